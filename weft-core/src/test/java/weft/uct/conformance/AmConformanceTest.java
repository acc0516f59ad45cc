package weft.uct.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import weft.uct.Capability;
import weft.uct.Completion;
import weft.uct.InterfaceAttributes;
import weft.uct.conformance.AmTraffic.Kind;

/** Active messages: every size class and boundary, AM ids 0 and 31, ordering of 10k mixed messages. */
@Timeout(90)
class AmConformanceTest {
    /** Largest message the suite sends, even if a transport advertises more. */
    static final int MAX_TEST_SIZE = 1 << 20;

    private record Plan(Kind kind, int size, int header, int id) {
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("weft.uct.conformance.Case#withAm")
    void everySizeClassArrivesIntact(final Case c) {
        try (Fixture f = Fixture.open(c)) {
            final InterfaceAttributes a = f.attrs;
            final List<Plan> plan = new ArrayList<>();
            final int[] ids = {0, 31, 1, 30, 17};
            if (a.has(Capability.AM_SHORT)) {
                for (final int s : new int[] {0, 1, a.amMaxShort()}) {
                    plan.add(new Plan(Kind.SHORT, s, 0, ids[plan.size() % ids.length]));
                }
            }
            if (a.has(Capability.AM_BCOPY)) {
                final List<Long> sizes = new ArrayList<>(List.of(0L, 1L, a.amMaxBcopy()));
                if (a.has(Capability.AM_SHORT)) {
                    sizes.add(2, (long) a.amMaxShort() + 1); // max short + 1 goes as bcopy
                }
                for (final long s : sizes) {
                    if (s <= a.amMaxBcopy()) {
                        plan.add(new Plan(Kind.BCOPY, cap(s), 0, ids[plan.size() % ids.length]));
                    }
                }
            }
            if (a.has(Capability.AM_ZCOPY)) {
                plan.add(new Plan(Kind.ZCOPY, 1, Math.min(8, a.amMaxHeader()), ids[plan.size() % ids.length]));
                plan.add(new Plan(Kind.ZCOPY, cap(a.amMaxZcopy()), a.amMaxHeader(), ids[plan.size() % ids.length]));
            }
            Assumptions.assumeFalse(plan.isEmpty(), c + " advertises no active message class");
            final Completion zc = new Completion();
            final List<byte[]> expected = new ArrayList<>();
            long seq = 0;
            for (final Plan p : plan) {
                expected.add(AmTraffic.send(f, p.kind, p.id, p.size, p.header, Math.max(1, Math.min(3, a.amMaxIov())),
                    seq++, zc));
            }
            f.await(zc, "AM zcopy completions");
            f.awaitMessages(plan.size(), "one per size class");
            assertEquals(plan.size(), f.inbox.messages().size(), "messages received on " + c);
            for (int i = 0; i < plan.size(); i++) {
                final Inbox.Message m = f.inbox.messages().get(i);
                final Plan p = plan.get(i);
                assertEquals(p.id, m.id(), "AM id of message " + i + " (" + p + ") on " + c);
                final String d = AmTraffic.diff(expected.get(i), m.data());
                assertNull(d, () -> p + " on " + c + ": " + d);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("weft.uct.conformance.Case#withAm")
    void idsZeroAndThirtyOneAreDistinct(final Case c) {
        try (Fixture f = Fixture.open(c)) {
            final Kind kind = f.attrs.has(Capability.AM_SHORT) ? Kind.SHORT
                : f.attrs.has(Capability.AM_BCOPY) ? Kind.BCOPY : null;
            Assumptions.assumeTrue(kind != null, c + " has neither AM short nor bcopy");
            final Completion zc = new Completion();
            final int[] ids = {0, 31, 31, 0, 31};
            final List<byte[]> expected = new ArrayList<>();
            for (int i = 0; i < ids.length; i++) {
                expected.add(AmTraffic.send(f, kind, ids[i], 16, 0, 1, 1000 + i, zc));
            }
            f.awaitMessages(ids.length, "ids 0 and 31");
            for (int i = 0; i < ids.length; i++) {
                final Inbox.Message m = f.inbox.messages().get(i);
                assertEquals(ids[i], m.id(), "id of message " + i + " on " + c);
                assertNull(AmTraffic.diff(expected.get(i), m.data()), "data of message " + i + " on " + c);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("weft.uct.conformance.Case#withAm")
    void tenThousandMixedMessagesArriveInSendOrder(final Case c) {
        try (Fixture f = Fixture.open(c)) {
            final InterfaceAttributes a = f.attrs;
            final List<Kind> kinds = new ArrayList<>();
            if (a.has(Capability.AM_SHORT) && a.amMaxShort() >= 0) {
                kinds.add(Kind.SHORT);
            }
            if (a.has(Capability.AM_BCOPY) && a.amMaxBcopy() >= 8) {
                kinds.add(Kind.BCOPY);
            }
            if (a.has(Capability.AM_ZCOPY) && a.amMaxZcopy() + a.amMaxHeader() >= 8) {
                kinds.add(Kind.ZCOPY);
            }
            Assumptions.assumeFalse(kinds.isEmpty(), c + " advertises no active message class");
            final int n = 10_000;
            final Completion zc = new Completion();
            final List<byte[]> expected = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                final Kind k = kinds.get(i % kinds.size());
                final int small = i % 57;
                final byte[] img = switch (k) {
                    case SHORT -> AmTraffic.send(f, k, i & 31, Math.min(small, a.amMaxShort()), 0, 1, i, zc);
                    case BCOPY -> AmTraffic.send(f, k, i & 31, (int) Math.min(8 + small, a.amMaxBcopy()), 0, 1, i, zc);
                    case ZCOPY -> {
                        final int h = Math.min(8, a.amMaxHeader());
                        yield AmTraffic.send(f, k, i & 31, (int) Math.min(8 - h + small, a.amMaxZcopy()), h,
                            Math.max(1, Math.min(2, a.amMaxIov())), i, zc);
                    }
                };
                expected.add(img);
                if ((i & 255) == 0) {
                    f.progress();
                }
            }
            f.await(zc, "AM zcopy completions");
            f.awaitMessages(n, "10k mixed messages");
            final List<Inbox.Message> got = f.inbox.messages();
            assertEquals(n, got.size(), "messages on " + c);
            for (int i = 0; i < n; i++) {
                final String d = AmTraffic.diff(expected.get(i), got.get(i).data());
                if (d != null) {
                    throw new AssertionError("message " + i + " of " + n + " on " + c + " (" + kinds.get(i % kinds.size())
                        + "): " + d + " (out of order or corrupt)");
                }
                assertEquals(i & 31, got.get(i).id(), "id of message " + i);
            }
        }
    }

    private static int cap(final long size) {
        return (int) Math.min(size, MAX_TEST_SIZE);
    }
}
