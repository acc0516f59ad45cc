package weft.ucp;

import org.junit.jupiter.api.Test;
import weft.ucs.Status;
import weft.uct.IoVector;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Request#reset} restores only the plain-receive fields unless the request was marked
 * {@link Request#wide}: every field, of the request or of one of its protocol groups ({@link RndvState} ...),
 * set alone to something else, must come back when the request is wide, and {@link Request#isPristine} must
 * notice it first (a field added to Request or to a group without both fails here). The fields a plain
 * receive writes come back without the mark. The rest of the contract (every step that widens a receive
 * sets the mark) is checked by the assertion in {@code Worker.acquire}, which every test run with
 * assertions enabled exercises.
 */
class RequestResetTest {
    /**
     * Fields reset() deliberately keeps: identity, the pool generation (it counts across uses), the pooled
     * completion, reusable striping arrays, and the scratch an internal AM's header is copied into (each send
     * copies its header in before use, and reads no more than it copied).
     */
    private static final List<String> KEPT = List.of("worker", "generation", "completion", "rmaIov",
        "StripeState.pos", "StripeState.end", "kind", "AmSendState.ownHeader");
    /** The protocol groups: made once per pooled request (kept), their fields checked one by one. */
    private static final List<Class<?>> GROUPS = List.of(RndvState.class, RmaState.class, StripeState.class,
        AmSendState.class, DatatypeState.class, ControlState.class);

    @Test
    void everyFieldComesBackAlone() throws Exception {
        try (Context ctx = Context.builder().transports("self").build(); Worker w = ctx.newWorker();
             Arena arena = Arena.ofConfined()) {
            final MemorySegment seg = arena.allocate(8);
            final List<String> checked = new ArrayList<>();
            for (final Field f : Request.class.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) || KEPT.contains(f.getName())) {
                    continue;
                }
                if (!GROUPS.contains(f.getType())) {
                    checkAlone(w, seg, null, f, checked);
                    continue;
                }
                assertTrue(Modifier.isFinal(f.getModifiers()), f.getName() + ": a group is made once per request");
                for (final Field g : f.getType().getDeclaredFields()) {
                    if (!Modifier.isStatic(g.getModifiers())
                        && !KEPT.contains(f.getType().getSimpleName() + "." + g.getName())) {
                        checkAlone(w, seg, f, g, checked);
                    }
                }
            }
            // the one piece of an RMA operation lives in a reused IoVector: reset must empty it
            final Request r = w.acquire(Request.RMA);
            r.rmaIov.add(seg, 0, 8);
            assertTrue(!r.isPristine());
            r.reset();
            assertEquals(0, r.rmaIov.count());
            assertTrue(checked.size() > 50, "checked " + checked);
        }
    }

    @Test
    void plainReceiveFieldsComeBackWithoutTheMark() throws Exception {
        try (Context ctx = Context.builder().transports("self").build(); Worker w = ctx.newWorker();
             Arena arena = Arena.ofConfined()) {
            final Request r = w.acquire(Request.RECV);
            assertTrue(!r.wide, "a receive starts narrow");
            r.buffer = arena.allocate(8);
            r.offset = 1;
            r.capacity = 7;
            r.tag = 5;
            r.mask = -1;
            r.length = 7;
            r.moved = 7;
            r.sn = 9;
            r.bucket = 3;
            r.info = new TagInfo();
            r.callback = req -> { };
            r.status = Status.MESSAGE_TRUNCATED;
            r.completed = true;
            r.released = true;
            r.queuedDone = true;
            r.prev = r.next = r.nextDone = w.acquire(Request.RECV);
            r.reset();
            assertTrue(r.isPristine(), "a plain receive's fields come back without the mark");
            assertTrue(!w.acquire(Request.SEND).wide, "a send starts narrow (TagEager.start widens it)");
            assertTrue(w.acquire(Request.RNDV_SEND).wide, "every other kind starts wide");
            assertTrue(w.acquire(Request.AM_SEND).wide, "every other kind starts wide");
        }
    }

    /** Dirties field {@code f} (of the group in request field {@code group}, or of the request) and resets. */
    private static void checkAlone(final Worker w, final MemorySegment seg, final Field group, final Field f,
                                   final List<String> checked) throws ReflectiveOperationException {
        final Request r = w.acquire(Request.RECV);
        assertTrue(r.isPristine(), "fresh from the pool");
        final String name = group == null ? f.getName() : group.getName() + "." + f.getName();
        if (group != null) {
            group.setAccessible(true);
        }
        final Object holder = group == null ? r : group.get(r);
        f.setAccessible(true);
        f.set(holder, dirty(f.getType(), f.get(holder), seg, w));
        assertTrue(!r.isPristine(), "isPristine misses a dirty " + name);
        r.wide = true;
        r.reset();
        assertTrue(r.isPristine(), "reset leaves " + name + " dirty");
        checked.add(name);
    }

    private static Object dirty(final Class<?> t, final Object current, final MemorySegment seg, final Worker w) {
        if (t == boolean.class) {
            return !(Boolean) current;
        }
        if (t == byte.class) {
            return (byte) ((Byte) current + 7);
        }
        if (t == int.class) {
            return (Integer) current + 7;
        }
        if (t == long.class) {
            return (Long) current + 7;
        }
        if (t == Status.class) {
            return Status.CANCELED;
        }
        if (t == MemorySegment.class) {
            return seg;
        }
        if (t == IoVector.class) {
            return new IoVector(1);
        }
        if (t == Request.class) {
            return w.acquire(Request.SEND);
        }
        if (t.isArray()) {
            return java.lang.reflect.Array.newInstance(t.getComponentType(), 1);
        }
        if (t.isEnum()) {
            return t.getEnumConstants()[0];
        }
        if (t == Object.class) {
            return new Object();
        }
        if (t.isInterface()) { // callbacks, datatypes
            return java.lang.reflect.Proxy.newProxyInstance(t.getClassLoader(), new Class<?>[] {t}, (p, m, a) -> null);
        }
        return instanceOf(t); // endpoints, keys, futures: only the reference matters here
    }

    private static Object instanceOf(final Class<?> t) {
        try {
            final Field f = Class.forName("sun.misc.Unsafe").getDeclaredField("theUnsafe");
            f.setAccessible(true);
            final Object unsafe = f.get(null);
            return unsafe.getClass().getMethod("allocateInstance", Class.class).invoke(unsafe, t);
        } catch (final ReflectiveOperationException e) {
            throw new AssertionError("cannot make a " + t, e);
        }
    }
}
