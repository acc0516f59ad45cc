package weft.uct;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.AfterAll;
import weft.ucs.WeftException;
import weft.testkit.FuzzBytes;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Coverage-guided fuzzing of packed remote keys, which peers send for RMA, rendezvous and the eager-get
 * pool: the common envelope ({@link RkeyCodec}) and every transport's {@link MemoryDomain#unpackRkey}
 * (self, shm, cma where the machine allows it, tcp). A decoder may only return a key or throw
 * {@link WeftException}; a key it returns answers {@code ptr} (where the domain maps memory) inside its
 * range only, through a segment no larger than that range.
 *
 * <p>{@code unpack} starts, half of the time, from a real key of a live 4 KiB region of this process and
 * edits a few fields (the fuzzer cannot guess a live pid, memory file or region id), so that the checks
 * behind the envelope are reached too.
 */
class RemoteKeyFuzzTest {
    private static final Map<String, MemoryDomain> DOMAINS = new LinkedHashMap<>();
    private static final List<byte[]> TEMPLATES = new ArrayList<>();
    private static final List<MemoryHandle> HANDLES = new ArrayList<>();

    private static synchronized void setUp() {
        if (!DOMAINS.isEmpty()) {
            return;
        }
        for (final Transport t : Transports.all()) {
            if (t.unavailableReason() != null) {
                continue;
            }
            final MemoryDomain md = t.memoryDomain();
            final MemoryHandle h = md.allocate(4096);
            HANDLES.add(h);
            DOMAINS.put(t.name(), md);
            TEMPLATES.add(md.packRkey(h));
        }
    }

    @AfterAll
    static void tearDown() {
        for (final MemoryHandle h : HANDLES) {
            h.domain().deregister(h);
        }
        HANDLES.clear();
        DOMAINS.clear();
        TEMPLATES.clear();
    }

    @FuzzTest(maxDuration = "2m")
    void envelope(final FuzzedDataProvider data) {
        final String name = data.consumeString(8);
        final byte[] bytes = data.consumeRemainingAsBytes();
        try {
            final java.nio.ByteBuffer body = RkeyCodec.open(name, bytes);
            assertTrue(body.remaining() <= bytes.length);
            final byte[] again = RkeyCodec.pack(name, java.util.Arrays.copyOfRange(bytes, bytes.length
                - body.remaining(), bytes.length));
            assertArrayEquals(bytes, again, "an accepted envelope packs back to the same bytes");
        } catch (final WeftException e) {
            // declared
        }
    }

    @FuzzTest(maxDuration = "2m")
    void unpack(final FuzzedDataProvider data) {
        setUp();
        final List<String> names = new ArrayList<>(DOMAINS.keySet());
        final int i = data.consumeInt(0, names.size() - 1);
        final MemoryDomain md = DOMAINS.get(names.get(i));
        final byte[] bytes = FuzzBytes.edit(data, TEMPLATES.get(i));
        final RemoteKey k;
        try {
            k = md.unpackRkey(bytes);
        } catch (final WeftException e) {
            return; // declared
        }
        try {
            assertTrue(k.length() >= 0, "negative key length");
            if (md.attributes().has(MemoryDomainAttributes.RKEY_PTR)) {
                final long len = Math.min(k.length(), data.consumeInt(0, 64));
                try {
                    final java.lang.foreign.MemorySegment s = k.ptr(k.base(), len);
                    assertTrue(s.byteSize() == len, "ptr gives " + s.byteSize() + " bytes for " + len);
                    s.fill((byte) 0); // every byte it grants is ours to write (a region of this process)
                } catch (final WeftException e) {
                    // declared (the owner revoked it, or out of range)
                }
                try {
                    k.ptr(k.base() + k.length(), 1);
                    throw new AssertionError("ptr past the end of the key's range");
                } catch (final WeftException e) {
                    // expected
                }
            }
        } finally {
            k.close();
        }
    }
}
