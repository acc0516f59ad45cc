package weft.ucp;

import org.junit.jupiter.api.Test;
import weft.ucp.wire.SoftGetRequest;
import weft.ucs.Status;
import weft.ucs.WeftException;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The protocol layer's wire version ({@link WorkerAddress#VERSION}) follows its formats: two builds whose
 * messages differ must refuse to connect instead of dropping each other's messages as malformed.
 */
class WireVersionTest {
    /**
     * The fingerprint of the format constants at each wire version. When a format changes, this test fails
     * with the new fingerprint: raise {@link WorkerAddress#VERSION}, say why in its comment, and add the pair.
     */
    private static final Map<Integer, String> FINGERPRINTS = Map.of(2, "6b63ea7df81ca8f1");

    @Test
    void theWireVersionIsRaisedWhenAFormatChanges() throws Exception {
        final String now = fingerprint();
        assertEquals(FINGERPRINTS.get(WorkerAddress.VERSION), now, () -> "the constants of weft.ucp.wire or AmId "
            + "changed (fingerprint " + now + "): if a format or an id's meaning changed, raise WorkerAddress.VERSION "
            + "and add (version, fingerprint) to WireVersionTest.FINGERPRINTS; if not (a constant that is no "
            + "format), record the new fingerprint for the current version");
    }

    @Test
    void aPeerOfAnotherWireVersionIsRefusedAtConnectNamingBothVersions() {
        try (Context ctx = RawAm.context(); Worker a = ctx.newWorker(); Worker b = ctx.newWorker()) {
            final byte[] other = b.address().clone();
            other[4] = (byte) (WorkerAddress.VERSION - 1);
            final WeftException e = assertThrows(WeftException.class, () -> a.connect(other));
            assertEquals(Status.UNSUPPORTED, e.status());
            assertTrue(e.getMessage().contains("version " + (WorkerAddress.VERSION - 1))
                && e.getMessage().contains("reads version " + WorkerAddress.VERSION), e::getMessage);
            assertTrue(a.endpoints().isEmpty(), "no endpoint is left behind");
            a.connect(b.address()).close(); // the worker is unharmed
        }
    }

    /** Every top-level class of {@link weft.ucp.wire} (each a message's descriptor), read from the class path. */
    private static List<String> wireClasses() throws IOException, URISyntaxException {
        final Path root = Path.of(SoftGetRequest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        if (Files.isDirectory(root)) {
            return list(root.resolve("weft/ucp/wire"));
        }
        try (FileSystem jar = FileSystems.newFileSystem(root)) {
            return list(jar.getPath("weft/ucp/wire"));
        }
    }

    private static List<String> list(final Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString())
                .filter(n -> n.endsWith(".class") && !n.contains("$") && !n.equals("package-info.class"))
                .map(n -> n.substring(0, n.length() - ".class".length())).toList();
        }
    }

    /** The static final primitive fields of the wire classes, as "Class.FIELD=value" lines in order, hashed. */
    private static String fingerprint() throws ReflectiveOperationException, NoSuchAlgorithmException, IOException,
        URISyntaxException {
        final List<Class<?>> classes = new ArrayList<>();
        final List<String> names = wireClasses();
        assertTrue(names.contains("SoftGetRequest") && names.size() > 10, "the wire classes are found: " + names);
        for (final String n : names) {
            classes.add(Class.forName("weft.ucp.wire." + n));
        }
        classes.add(AmId.class);
        final TreeSet<String> lines = new TreeSet<>();
        for (final Class<?> c : classes) {
            for (final Field f : c.getDeclaredFields()) {
                final int m = f.getModifiers();
                if (Modifier.isStatic(m) && Modifier.isFinal(m) && f.getType().isPrimitive()) {
                    f.setAccessible(true);
                    lines.add(c.getSimpleName() + "." + f.getName() + "=" + f.get(null));
                }
            }
        }
        final byte[] d = MessageDigest.getInstance("SHA-256").digest(String.join("\n", lines)
            .getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(d, 0, 8);
    }
}
