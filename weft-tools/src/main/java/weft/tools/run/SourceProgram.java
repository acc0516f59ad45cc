package weft.tools.run;

import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.JavacTask;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * A single-file program ({@code weft run -n 64 Prog.java}) compiled once by the launcher, so that the PEs start
 * its class instead of each compiling the source again (the java launcher's source mode costs every JVM a
 * compiler run, and its module options do not match Weft's AOT cache, which then refuses to load).
 *
 * <p>Follows the java launcher's source mode: the first top-level class of the file is the main class (for a
 * compact source file, the class named after the file), other sources of the program's directory tree are
 * compiled when the file uses them, annotation processing is off. The classes go to an owner-only directory
 * deleted by {@link #close()}; one left behind by a launcher that was killed is deleted by the next launch
 * ({@link #sweep}).
 *
 * <pre>{@code
 * try (SourceProgram p = SourceProgram.compile(Path.of("Ring.java"), classPath)) {
 *     command.addAll(List.of("-cp", classPath + ":" + p.classes(), p.mainClass()));
 *     ...
 * }
 * }</pre>
 */
final class SourceProgram implements AutoCloseable {
    /** Directory name prefix, followed by the launcher's pid. */
    static final String PREFIX = "weft-program-";

    private final Path classes;
    private final String mainClass;

    private SourceProgram(final Path classes, final String mainClass) {
        this.classes = classes;
        this.mainClass = mainClass;
    }

    /** The directory of the compiled classes (for the PEs' class path). */
    Path classes() {
        return classes;
    }

    /** The binary name of the class the PEs start. */
    String mainClass() {
        return mainClass;
    }

    /**
     * Compiles {@code source} against {@code classPath}.
     *
     * @throws LaunchException naming the compiler's errors, or when no compiler is available
     */
    static SourceProgram compile(final Path source, final String classPath) {
        if (!Files.isRegularFile(source)) {
            throw new LaunchException("source file " + source + " does not exist");
        }
        final JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) {
            throw new LaunchException("cannot compile " + source + ": this JVM has no Java compiler (a JDK is needed)");
        }
        final Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        sweep(tmp);
        final Path dir;
        try {
            dir = Files.createTempDirectory(tmp, PREFIX + ProcessHandle.current().pid() + "-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (final IOException e) {
            throw new LaunchException("cannot make a directory for the compiled program in " + tmp + ": "
                + e.getMessage(), e);
        }
        try {
            final String main = compileInto(javac, source.toAbsolutePath().normalize(), classPath, dir);
            return new SourceProgram(dir, main);
        } catch (final RuntimeException e) {
            delete(dir);
            throw e;
        }
    }

    private static String compileInto(final JavaCompiler javac, final Path source, final String classPath,
                                      final Path dir) {
        final DiagnosticCollector<JavaFileObject> diags = new DiagnosticCollector<>();
        try (StandardJavaFileManager fm = javac.getStandardFileManager(diags, Locale.ROOT, null)) {
            final List<String> options = new ArrayList<>(List.of("-proc:none", "-implicit:class",
                "-d", dir.toString(), "-cp", classPath == null ? "" : classPath));
            final Path root = sourceRoot(source);
            if (root != null) {
                options.addAll(List.of("-sourcepath", root.toString()));
            }
            final JavacTask task = (JavacTask) javac.getTask(null, fm, diags, options, null,
                fm.getJavaFileObjects(source));
            String main = null;
            for (final CompilationUnitTree cu : task.parse()) {
                main = firstClass(cu, source);
            }
            task.analyze();
            task.generate();
            final boolean ok = diags.getDiagnostics().stream().noneMatch(d -> d.getKind() == Diagnostic.Kind.ERROR);
            if (!ok || main == null) {
                final StringBuilder b = new StringBuilder("cannot compile " + source);
                for (final Diagnostic<? extends JavaFileObject> d : diags.getDiagnostics()) {
                    if (d.getKind() == Diagnostic.Kind.ERROR) {
                        b.append(System.lineSeparator()).append(d.getSource() == null ? "" : d.getSource().getName()
                            + ":" + d.getLineNumber() + ": ").append(d.getMessage(Locale.ROOT));
                    }
                }
                if (ok) {
                    b.append(": it declares no class");
                }
                throw new LaunchException(b.toString());
            }
            return main;
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The binary name of the file's first top-level class (the implicit class of a compact file included). */
    private static String firstClass(final CompilationUnitTree cu, final Path source) {
        final String pkg = cu.getPackageName() == null ? "" : cu.getPackageName() + ".";
        for (final Tree t : cu.getTypeDecls()) {
            if (t instanceof ClassTree c && !c.getSimpleName().isEmpty()) {
                return pkg + c.getSimpleName();
            }
        }
        final String file = source.getFileName().toString();
        return cu.getTypeDecls().isEmpty() ? null : pkg + file.substring(0, file.length() - ".java".length());
    }

    /** The directory the file's package starts in (the source launcher's search root), or null if none fits. */
    private static Path sourceRoot(final Path source) {
        Path dir = source.getParent();
        try {
            final String text = Files.readString(source);
            final java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^\\s*package\\s+([\\w.]+)\\s*;")
                .matcher(text);
            if (m.find()) {
                for (int i = m.group(1).split("\\.").length; i > 0 && dir != null; i--) {
                    dir = dir.getParent();
                }
            }
        } catch (final IOException e) {
            throw new LaunchException("cannot read " + source + ": " + e.getMessage(), e);
        }
        return dir;
    }

    /** Deletes program directories of launchers that are no longer running. */
    static void sweep(final Path tmp) {
        try (Stream<Path> s = Files.list(tmp)) {
            s.filter(p -> p.getFileName().toString().startsWith(PREFIX)).filter(SourceProgram::ownerGone)
                .forEach(SourceProgram::delete);
        } catch (final IOException | UncheckedIOException e) {
            // an unreadable temporary directory: nothing of ours can be there
        }
    }

    private static boolean ownerGone(final Path dir) {
        final String rest = dir.getFileName().toString().substring(PREFIX.length());
        final int dash = rest.indexOf('-');
        try {
            final long pid = Long.parseLong(dash < 0 ? rest : rest.substring(0, dash));
            return Files.isWritable(dir) && ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true);
        } catch (final NumberFormatException e) {
            return false;
        }
    }

    private static void delete(final Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            for (final Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (final IOException | UncheckedIOException e) {
            // already gone, or another launcher's sweep got there first
        }
    }

    @Override
    public void close() {
        delete(classes);
    }
}
