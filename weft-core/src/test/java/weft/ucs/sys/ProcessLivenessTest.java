package weft.ucs.sys;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Process start times tell a live peer from a dead or reused pid; node identity tells same-node peers. */
class ProcessLivenessTest {
    @Test
    @Timeout(30)
    void shouldReportALiveProcessThenItsDeath() throws Exception {
        final Process p = new ProcessBuilder("sleep", "30").start();
        try (Arena arena = Arena.ofConfined()) {
            final int pid = (int) p.pid();
            final long start = ProcessLiveness.startTime(pid);
            assertTrue(start > 0, "start time of a live child: " + start);
            // the allocation-free polling form reads the same field
            final MemorySegment path = ProcessLiveness.statPath(arena, pid);
            final MemorySegment buf = ProcessLiveness.newBuffer(arena);
            assertEquals(start, ProcessLiveness.startTime(path, buf));
            p.destroyForcibly();
            assertTrue(p.waitFor(10, TimeUnit.SECONDS));
            assertEquals(ProcessLiveness.DEAD, ProcessLiveness.startTime(path, buf));
            assertEquals(ProcessLiveness.DEAD, ProcessLiveness.startTime(pid));
        } finally {
            p.destroyForcibly();
        }
    }

    /** A command name with spaces and parentheses: the fields are counted after its last ')'. */
    @Test
    void shouldParseTheStartTimeAfterACommandNameWithParentheses(@TempDir final Path dir) throws Exception {
        final StringBuilder line = new StringBuilder("4194303 (a) b) (c)) S");
        for (int field = 4; field <= 21; field++) {
            line.append(' ').append(field * 11);
        }
        line.append(" 987654321 77 88 99\n");
        final Path stat = Files.writeString(dir.resolve("stat"), line);
        final Path zombie = Files.writeString(dir.resolve("zombie"),
            line.toString().replace(") S ", ") Z "));
        try (Arena a = Arena.ofConfined()) {
            assertEquals(987654321L,
                ProcessLiveness.startTime(a.allocateFrom(stat.toString()), ProcessLiveness.newBuffer(a)));
            assertEquals(ProcessLiveness.DEAD,
                ProcessLiveness.startTime(a.allocateFrom(zombie.toString()), ProcessLiveness.newBuffer(a)));
        }
    }

    @Test
    void shouldTellThisProcessFromANonexistentOne() {
        assertTrue(ProcessLiveness.startTime(LibC.getpid()) > 0);
        assertEquals(ProcessLiveness.DEAD, ProcessLiveness.startTime(Integer.MAX_VALUE));
    }

    @Test
    void shouldIdentifyTheNodeAndNamespaces() throws Exception {
        final byte[] boot = NodeIdentity.bootId();
        assertNotNull(boot, "this Linux machine has a boot id");
        assertEquals(16, boot.length);
        assertArrayEquals(boot, NodeIdentity.bootId());
        final String link = Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString();
        assertEquals(link, "pid:[" + NodeIdentity.namespaceInode("pid") + "]");
        assertNotEquals(0, NodeIdentity.namespaceInode("net"));
        assertEquals(0, NodeIdentity.namespaceInode("no-such-namespace"));
    }
}
