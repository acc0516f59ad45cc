package weft.testkit;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Finding a native tool (mpirun, cc) a test needs, so that the test can skip with the reason when it is absent. */
public final class Executables {
    private Executables() {
    }

    /** The executable {@code exe} on PATH, if any. */
    public static Optional<Path> onPath(final String exe) {
        for (final String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            final Path p = Path.of(dir.isEmpty() ? "." : dir, exe);
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }
}
