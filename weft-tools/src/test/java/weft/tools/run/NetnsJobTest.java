package weft.tools.run;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import weft.ucs.config.Config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static weft.testkit.Netns.awaitOperUp;
import static weft.testkit.Netns.isRoot;
import static weft.testkit.Netns.must;
import static weft.testkit.Netns.sh;

/**
 * A job across two "hosts" on this machine: two network namespaces, each joined to the launcher's
 * namespace by a veth pair (and to each other by a third, for host-to-host traffic), with a launch
 * agent that runs the PE command through {@code ip netns exec HOST}. Needs root and permission to
 * create namespaces; skipped with the reason otherwise. The namespaces are removed in finally.
 *
 * <pre>
 *   launcher ns:  vrA 10.231.0.1/24   vrB 10.231.1.1/24     (the key-value service listens on both)
 *                   |                   |
 *   host A:       vnA 10.231.0.2 -- vab 10.231.9.1 ======== vba 10.231.9.2 -- host B: vnB 10.231.1.2
 * </pre>
 */
@Timeout(60)
class NetnsJobTest {
    @TempDir
    Path tmp;

    @Test
    void shouldRunAJobAcrossNetworkNamespaces() throws Exception {
        Assumptions.assumeTrue(isRoot(), "not root: creating network namespaces needs root; skipped");
        final String id = HexFormat.of().formatHex(new byte[] {(byte) ThreadLocalRandom.current().nextInt()})
            + Long.toString(ProcessHandle.current().pid() % 1000);
        final String a = "weftA" + id;
        final String b = "weftB" + id;
        final List<String> created = new ArrayList<>();
        try {
            final String refused = sh("ip", "netns", "add", a);
            Assumptions.assumeTrue(refused == null, "network namespaces are not permitted here (" + refused
                + "); skipped");
            created.add(a);
            must(sh("ip", "netns", "add", b));
            created.add(b);
            link(a, "vrA" + id, "vnA" + id, "10.231.0");
            link(b, "vrB" + id, "vnB" + id, "10.231.1");
            // Host-to-host link (for the data path between hosts, once the protocol layer runs on it).
            must(sh("ip", "link", "add", "vab" + id, "netns", a, "type", "veth", "peer", "name", "vba" + id,
                "netns", b));
            must(sh("ip", "netns", "exec", a, "ip", "addr", "add", "10.231.9.1/24", "dev", "vab" + id));
            must(sh("ip", "netns", "exec", b, "ip", "addr", "add", "10.231.9.2/24", "dev", "vba" + id));
            must(sh("ip", "netns", "exec", a, "ip", "link", "set", "vab" + id, "up"));
            must(sh("ip", "netns", "exec", b, "ip", "link", "set", "vba" + id, "up"));
            // the kernel marks a new link's carrier up (and its routes usable) from its link-watch work, up to
            // a second later: a PE that read its routes before saw only the path through the launcher
            awaitOperUp(a, "vnA" + id);
            awaitOperUp(b, "vnB" + id);
            awaitOperUp(a, "vab" + id);
            awaitOperUp(b, "vba" + id);

            final Path agent = tmp.resolve("netns-agent");
            Files.writeString(agent, "#!/bin/sh\nhost=$1; shift\nexec ip netns exec \"$host\" \"$@\"\n");
            Files.setPosixFilePermissions(agent, PosixFilePermissions.fromString("rwx------"));
            final Path pids = Files.createDirectory(tmp.resolve("pids"));
            final List<String> args = new ArrayList<>(List.of("-n", "4", "-H", a + ":2," + b + ":2",
                "--agent", agent.toString(), "--bootstrap-address", "10.231.0.1", "--tag-output"));
            args.addAll(LaunchTest.FAST_JVM);
            args.addAll(List.of(LaunchTestPe.class.getName(), "exchange", pids.toString()));
            final LaunchTest.Job job = LaunchTest.run(Config.global().with("RUN_KILL_GRACE", "500ms")
                .with("BOOTSTRAP_TIMEOUT", "20s"), args);
            assertEquals(0, job.rc(), job.toString());
            final String[] netns = new String[4];
            for (final String line : job.out().lines().toList()) {
                final int r = Integer.parseInt(line.substring(1, line.indexOf(']')));
                netns[r] = line.replaceAll(".* netns (\\S+) .*", "$1");
                if (r % 2 == 1) { // the ring's endpoint (and its key's rails) to the other host: over the link only
                    final String lanes = line.replaceAll(".* lanes (\\S+) .*", "$1");
                    assertTrue(lanes.contains("tcp/vab" + id) || lanes.contains("tcp/vba" + id), line);
                    assertTrue(!lanes.contains("tcp/vnA" + id) && !lanes.contains("tcp/vnB" + id),
                        "a lane through the launcher's namespace, which need not forward: " + line);
                }
                assertTrue(line.contains(" node " + (r / 2) + " ") && line.contains(" local " + (r % 2) + "/2 "), line);
            }
            final String mine = Files.readSymbolicLink(Path.of("/proc/self/ns/net")).toString();
            assertEquals(netns[0], netns[1], job.toString());
            assertEquals(netns[2], netns[3], job.toString());
            assertNotEquals(netns[0], netns[2], job.toString());
            assertNotEquals(mine, netns[0], job.toString());
            assertNotEquals(mine, netns[2], job.toString());
        } finally {
            for (final String ns : created) {
                final String err = sh("ip", "netns", "del", ns); // removes the veth ends inside, and their peers
                if (err != null) {
                    System.err.println("cannot remove network namespace " + ns + ": " + err);
                }
            }
        }
    }

    private static void link(final String ns, final String outside, final String inside, final String net)
        throws Exception {
        must(sh("ip", "link", "add", outside, "type", "veth", "peer", "name", inside, "netns", ns));
        must(sh("ip", "addr", "add", net + ".1/24", "dev", outside));
        must(sh("ip", "link", "set", outside, "up"));
        must(sh("ip", "netns", "exec", ns, "ip", "addr", "add", net + ".2/24", "dev", inside));
        must(sh("ip", "netns", "exec", ns, "ip", "link", "set", inside, "up"));
        must(sh("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up"));
        must(sh("ip", "netns", "exec", ns, "ip", "route", "add", "default", "via", net + ".1"));
    }
}
