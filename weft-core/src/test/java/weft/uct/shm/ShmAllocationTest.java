package weft.uct.shm;

import weft.uct.AllocationMeter;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.uct.AmHandler;
import weft.uct.AtomicOp;
import weft.uct.Endpoint;
import weft.uct.Interface;
import weft.uct.InterfaceParams;
import weft.uct.MemoryDomain;
import weft.uct.MemoryHandle;
import weft.uct.RemoteKey;
import weft.uct.Transport;
import weft.uct.Transports;
import weft.uct.UctWorker;
import weft.uct.Unpacker;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The hot paths allocate nothing in steady state (measured per thread by the JVM, via ThreadMXBean). */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@org.junit.jupiter.api.Tag("allocation") // runs in a fresh JVM: see the surefire "allocation" execution
class ShmAllocationTest {
    private static final int N = 20_000;
    private static final long LIMIT = 400;

    private final Transport shm = Transports.byName("shm");
    private final MemoryDomain md = shm.memoryDomain();
    private final Arena arena = Arena.ofConfined();
    private UctWorker wa;
    private UctWorker wb;
    private Interface a;
    private Interface b;
    private Endpoint ab;
    private MemoryHandle mem;
    private RemoteKey key;

    /** Counts messages and sums their headers: no capture, no boxing. */
    private static final class Sink implements AmHandler, Unpacker {
        long count;
        long sum;

        @Override
        public Status onReceive(final MemorySegment data, final long offset, final long length, final int flags) {
            count++;
            sum += data.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
            return Status.OK;
        }

        @Override
        public void unpack(final MemorySegment src, final long offset, final long length) {
            sum += src.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
        }
    }

    private final Sink sink = new Sink();

    @BeforeEach
    void open() {
        wa = new UctWorker();
        wb = new UctWorker();
        a = shm.openInterface(wa, shm.devices().getFirst(), InterfaceParams.defaults());
        b = shm.openInterface(wb, shm.devices().getFirst(), InterfaceParams.defaults());
        b.setAmHandler(7, sink);
        ab = a.connect(b.deviceAddress(), b.interfaceAddress());
        mem = md.allocate(4096);
        key = md.unpackRkey(md.packRkey(mem));
    }

    @AfterEach
    void close() {
        key.close();
        md.deregister(mem);
        wa.close();
        wb.close();
        arena.close();
    }

    private void amLoop(final MemorySegment payload) {
        for (int i = 0; i < N; i++) {
            while (ab.amShort(7, i, payload, 0, 8) != Status.OK) {
                b.progress();
            }
            b.progress();
            a.progress();
        }
        while (b.progress() != 0) {
            a.progress();
        }
    }

    @Test
    void amShortSendAndReceiveAllocateNothing() {
        final MemorySegment payload = arena.allocate(8);
        AllocationMeter.fewestBytes(N + " am short send+receive", () -> {
            final long count = sink.count;
            amLoop(payload);
            assertEquals(count + N, sink.count, "messages received");
        }, LIMIT, 30_000);
    }

    private void rmaLoop(final MemorySegment src, final MemorySegment result) {
        final long base = mem.address();
        for (int i = 0; i < N; i++) {
            if (ab.putShort(src, 0, 8, base + 64, key) != Status.OK
                || ab.getBcopy(sink, 8, base + 64, key, null) != Status.OK
                || ab.atomic64Fetch(AtomicOp.ADD, 1, result, 0, base + 128, key, null) != Status.OK
                || ab.atomic64Post(AtomicOp.ADD, 1, base + 136, key) != Status.OK) {
                throw new AssertionError("operation failed");
            }
        }
    }

    @Test
    void putShortGetBcopyAndAtomicsAllocateNothing() {
        final MemorySegment src = arena.allocate(8);
        src.set(ValueLayout.JAVA_LONG, 0, 5);
        final MemorySegment result = arena.allocate(8);
        AllocationMeter.fewestBytes(N + " putShort+getBcopy+atomic64Fetch+atomic64Post", () -> {
            final long adds = mem.segment().get(ValueLayout.JAVA_LONG, 128);
            final long sum = sink.sum;
            rmaLoop(src, result);
            assertEquals(adds + N, mem.segment().get(ValueLayout.JAVA_LONG, 128), "fetching adds");
            assertEquals(sum + 5L * N, sink.sum, "values read back");
        }, LIMIT, 30_000);
    }
}
