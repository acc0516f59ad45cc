package weft.uct.tcp;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucp.Context;
import weft.ucp.Worker;
import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.uct.Device;
import weft.uct.InterfaceParams;
import weft.uct.Transports;
import weft.uct.UctWorker;

import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static weft.testkit.Netns.isRoot;
import static weft.testkit.Netns.must;
import static weft.testkit.Netns.sh;

/**
 * A network interface deleted after the tcp transport listed it (the list is scanned once per process):
 * opening it answers NO_ELEMENT and the list is scanned again, and a worker made then leaves the device out
 * instead of failing. Seen in the suite when another process's test deleted its bridge between a worker's
 * listing and its bind. Needs root (a veth pair in this namespace); skipped otherwise.
 */
@Timeout(60)
class TcpDeviceGoneTest {
    /** The process's tcp transport, the one workers use. */
    private static TcpTransport shared() {
        return (TcpTransport) Transports.all().stream().filter(t -> t.name().equals("tcp")).findFirst().orElseThrow();
    }

    /** Scans until the transport lists {@code dev} (the link comes up a few milliseconds after the command). */
    private static Device awaitListed(final TcpTransport tcp, final String dev) throws InterruptedException {
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            tcp.forgetDevices();
            final Device d = tcp.devices().stream().filter(x -> x.name().equals(dev)).findFirst().orElse(null);
            if (d != null) {
                return d;
            }
            assertTrue(System.nanoTime() < deadline, "the transport lists " + dev + ": " + tcp.devices());
            Thread.sleep(20);
        }
    }

    @Test
    void aDeviceThatWentAwayIsLeftOutNotFatal() throws Exception {
        Assumptions.assumeTrue(isRoot(), "not root: creating a network interface needs root; skipped");
        final String id = HexFormat.of().formatHex(new byte[] {(byte) ThreadLocalRandom.current().nextInt()})
            + ProcessHandle.current().pid() % 1000;
        final String dev = "wg" + id;
        final String refused = sh("ip", "link", "add", dev, "type", "veth", "peer", "name", "wh" + id);
        Assumptions.assumeTrue(refused == null, "cannot create a veth pair here (" + refused + "); skipped");
        boolean deleted = false;
        try {
            must(sh("ip", "addr", "add", "10.213." + (ThreadLocalRandom.current().nextInt(200) + 20) + ".1/24",
                "dev", dev));
            must(sh("ip", "link", "set", dev, "up"));
            must(sh("ip", "link", "set", "wh" + id, "up")); // carrier: an interface counts as up with both ends up
            final TcpTransport tcp = shared();
            final Device gone = awaitListed(tcp, dev);
            must(sh("ip", "link", "del", dev));
            deleted = true;

            try (UctWorker uct = new UctWorker()) {
                final WeftException e = assertThrows(WeftException.class,
                    () -> tcp.openInterface(uct, gone, InterfaceParams.defaults()));
                assertEquals(Status.NO_ELEMENT, e.status(), e.getMessage());
                assertTrue(e.getMessage().contains("went away"), e.getMessage());
            }
            assertFalse(tcp.devices().stream().anyMatch(d -> d.name().equals(dev)), "scanned again");

            // the same through a worker, whose transport still lists the device from before
            must(sh("ip", "link", "add", dev, "type", "veth", "peer", "name", "wh" + id));
            deleted = false;
            must(sh("ip", "link", "set", dev, "up"));
            must(sh("ip", "link", "set", "wh" + id, "up"));
            must(sh("ip", "addr", "add", "10.213.19.1/24", "dev", dev));
            awaitListed(tcp, dev);
            must(sh("ip", "link", "del", dev));
            deleted = true;
            try (Context ctx = Context.builder().transports("tcp").build(); Worker w = ctx.newWorker()) {
                assertFalse(w.resources().contains("tcp/" + dev), "the worker left the device out: " + w.resources());
                assertTrue(w.resources().contains("tcp/lo"), w.resources().toString());
            }
        } finally {
            if (!deleted) {
                sh("ip", "link", "del", dev);
            }
            shared().forgetDevices();
        }
    }
}
