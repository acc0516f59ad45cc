package weft.tools.run;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HostListTest {
    @TempDir
    Path tmp;

    @Test
    void shouldParseHostsWithSlotsAndMergeRepeats() {
        assertEquals(List.of(new HostList.Host("a", 2), new HostList.Host("b", 1), new HostList.Host("c", 3)),
            HostList.parseHosts("a:2, b,c:1,c:2"));
    }

    @Test
    void shouldRejectABadSlotCount() {
        final LaunchException e = assertThrows(LaunchException.class, () -> HostList.parseHosts("a:0"));
        assertTrue(e.getMessage().contains("invalid slot count '0'"), e.getMessage());
    }

    @Test
    void shouldReadAnOpenMpiStyleHostfile() throws IOException {
        final Path f = tmp.resolve("hosts");
        Files.writeString(f, "# cluster\nnode1 slots=4\nnode2:2   # two\n\nnode3\n");
        assertEquals(List.of(new HostList.Host("node1", 4), new HostList.Host("node2", 2),
            new HostList.Host("node3", 1)), HostList.readHostfile(f));
        Files.writeString(f, "node1 cpus=4\n");
        assertTrue(assertThrows(LaunchException.class, () -> HostList.readHostfile(f)).getMessage()
            .contains(f + ":1: unknown word 'cpus=4'"));
    }

    @Test
    void shouldPlaceRanksBySlot() {
        final List<HostList.Placement> p = HostList.place(5, HostList.parseHosts("a:2,b:3"), false);
        assertEquals(new HostList.Placement(0, "a", 0, 0, 2, false), p.get(0));
        assertEquals(new HostList.Placement(1, "a", 0, 1, 2, false), p.get(1));
        assertEquals(new HostList.Placement(2, "b", 1, 0, 3, false), p.get(2));
        assertEquals(new HostList.Placement(4, "b", 1, 2, 3, false), p.get(4));
    }

    @Test
    void shouldRefuseMorePesThanSlotsUnlessOversubscribing() {
        final LaunchException e = assertThrows(LaunchException.class,
            () -> HostList.place(3, HostList.parseHosts("a,b"), false));
        assertTrue(e.getMessage().contains("3 PEs requested but the hosts have only 2 slot(s) (a:1,b:1)"),
            e.getMessage());
        final List<HostList.Placement> p = HostList.place(3, HostList.parseHosts("a,b"), true);
        assertEquals("a", p.get(2).host());
        assertEquals(2, p.get(2).localSize());
        assertEquals(1, p.get(2).localRank());
    }

    @Test
    void shouldStartLocalHostsWithoutTheAgent() {
        assertTrue(HostList.place(1, HostList.parseHosts("localhost:1"), false).getFirst().local());
    }

    @Test
    void shouldQuoteWordsSoTheRemoteShellSeesThemUnchanged() throws Exception {
        final List<String> cmd = AgentCommand.build(List.of("ssh"), "h", Map.of("A", "it's $HOME; `x`"),
            List.of("sh", "-c", "printf '%s|' \"$@\"; echo; printenv A", "argv0", "two words", "'q'", "$HOME"),
            "/nonexistent");
        assertEquals(List.of("ssh", "h", "sh", "-c"), cmd.subList(0, 4));
        // What the remote side does with ssh's joined words: a shell parses the line.
        final String line = String.join(" ", cmd.subList(2, cmd.size()));
        final Process p = new ProcessBuilder("sh", "-c", line).start();
        p.getOutputStream().write("secret\n".getBytes(StandardCharsets.US_ASCII));
        p.getOutputStream().close();
        assertEquals(0, p.waitFor());
        assertEquals("two words|'q'|$HOME|\nit's $HOME; `x`\n",
            new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    @Test
    void shouldPassWordsUnquotedToAnExecStyleAgent() {
        final List<String> cmd = AgentCommand.build(List.of("ip", "netns", "exec"), "ns1", Map.of(),
            List.of("java"), "/");
        assertEquals(List.of("ip", "netns", "exec", "ns1", "sh", "-c"), cmd.subList(0, 6));
        assertTrue(cmd.get(6).startsWith("IFS= read -r WEFT_JOB_SECRET"), cmd.get(6));
    }

    @Test
    void shouldRefuseToExportTheJobSecret() {
        final RunCommand cmd = new RunCommand();
        cmd.env = name -> null;
        new picocli.CommandLine(cmd).parseArgs("-n", "1", "-x", "WEFT_JOB_SECRET=abc", "Main");
        final LaunchException e = assertThrows(LaunchException.class, cmd::spec);
        assertTrue(e.getMessage().contains("-x WEFT_JOB_SECRET: the launcher sets this variable"), e.getMessage());
    }

    @Test
    void shouldPrintItsHelpWithoutAskingForTheRequiredOptions() {
        final java.io.StringWriter out = new java.io.StringWriter();
        final java.io.StringWriter err = new java.io.StringWriter();
        final int rc = new picocli.CommandLine(new RunCommand()).setCommandName("weft run")
            .setOut(new java.io.PrintWriter(out)).setErr(new java.io.PrintWriter(err)).execute("--help");
        assertEquals(0, rc, err.toString());
        assertTrue(out.toString().startsWith("Usage: weft run"), out.toString());
        assertTrue(!err.toString().contains("Missing required"), err.toString());
    }
}
