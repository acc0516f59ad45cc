package weft.runtime;

import weft.ucs.sys.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * A PMI-2 process manager for tests, written from the wire protocol independently of the client's
 * classes: one socketpair per rank (the client end plays PMI_FD), one thread per rank reading raw
 * bytes. It answers init, fullinit, job-getid, info-getjobattr, kvs-put/fence/get and finalize as
 * Slurm's mpi/pmi2 does (values visible after the fence that follows their put; the fence answers
 * once every rank entered it), records abort, and lets a test replace any answer with raw bytes
 * ({@link #answerWith}) to play a broken server.
 */
final class FakePmi2Server implements AutoCloseable {
    private final int size;
    private final String mapping;
    private final Map<String, String> published = new ConcurrentHashMap<>();
    private final Map<String, String> staged = new HashMap<>(); // guarded by this
    private final List<Integer> fenceWaiters = new ArrayList<>(); // guarded by this
    private final int[] serverFds;
    private final List<Thread> threads = new ArrayList<>();
    private final List<String> requests = Collections.synchronizedList(new ArrayList<>());
    private volatile BiFunction<Integer, String, byte[]> override = (rank, req) -> null;
    volatile String abortRequest;
    volatile boolean finalized;
    private boolean closed;

    /**
     * @param mapping the PMI_process_mapping attribute, or null for none
     */
    FakePmi2Server(final int size, final String mapping) {
        this.size = size;
        this.mapping = mapping;
        this.serverFds = new int[size];
    }

    /** Creates rank's socketpair and serves it; returns the client's descriptor (PMI_FD). */
    int clientFd(final int rank) {
        final int[] fds = new int[2];
        if (LibC.socketpair(LibC.AF_UNIX, LibC.SOCK_STREAM | LibC.SOCK_CLOEXEC, fds) != 0) {
            throw new IllegalStateException("socketpair failed");
        }
        serverFds[rank] = fds[1];
        final Thread t = Thread.ofPlatform().daemon().name("fake-pmi2-" + rank).start(() -> serve(rank, fds[1]));
        threads.add(t);
        return fds[0];
    }

    /** From now on, {@code answer(rank, requestText)} returning bytes replaces the normal answer (null keeps it). */
    void answerWith(final BiFunction<Integer, String, byte[]> answer) {
        override = answer;
    }

    /** Every request text received so far, in order ("init ..." lines included). */
    List<String> requests() {
        synchronized (requests) {
            return List.copyOf(requests);
        }
    }

    Map<String, String> published() {
        return published;
    }

    /** A well-formed PMI-2 frame around {@code body}. */
    static byte[] frame(final String body) {
        return (String.format("%-6d", body.length()) + body).getBytes(StandardCharsets.US_ASCII);
    }

    private void serve(final int rank, final int fd) {
        try {
            final String init = readLine(fd);
            requests.add(init);
            final byte[] special = override.apply(rank, init);
            write(fd, special != null ? special
                : "cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0\n".getBytes(StandardCharsets.US_ASCII));
            while (true) {
                final String len = new String(readExactly(fd, 6), StandardCharsets.US_ASCII);
                final String req = new String(readExactly(fd, Integer.parseInt(len.trim())), StandardCharsets.UTF_8);
                requests.add(req);
                final byte[] raw = override.apply(rank, req);
                if (raw != null) {
                    if (raw.length > 0) {
                        write(fd, raw);
                    }
                    continue; // an empty override means: never answer
                }
                final Map<String, String> f = parse(req);
                switch (f.get("cmd")) {
                    case "fullinit" -> reply(fd, "cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank="
                        + f.get("pmirank") + ";size=" + size + ";appnum=-1;debugged=FALSE;pmiverbose=FALSE;");
                    case "job-getid" -> reply(fd, "cmd=job-getid-response;rc=0;jobid=fake.0;");
                    case "info-getjobattr" -> reply(fd, mapping != null && f.get("key").equals("PMI_process_mapping")
                        ? "cmd=info-getjobattr-response;rc=0;found=TRUE;value=" + mapping + ";"
                        : "cmd=info-getjobattr-response;rc=0;found=FALSE;");
                    case "kvs-put" -> {
                        synchronized (this) {
                            staged.put(f.get("key"), f.get("value"));
                        }
                        reply(fd, "cmd=kvs-put-response;rc=0;");
                    }
                    case "kvs-fence" -> fence(rank);
                    case "kvs-get" -> {
                        final String v = published.get(f.get("key"));
                        reply(fd, v == null ? "cmd=kvs-get-response;rc=0;found=FALSE;"
                            : "cmd=kvs-get-response;rc=0;found=TRUE;value=" + v + ";");
                    }
                    case "finalize" -> {
                        finalized = true;
                        reply(fd, "cmd=finalize-response;rc=0;");
                        return;
                    }
                    case "abort" -> abortRequest = req;
                    default -> reply(fd, "cmd=" + f.get("cmd") + "-response;rc=14;errmsg=unknown command;");
                }
            }
        } catch (final RuntimeException e) {
            // the client closed its end, or the test closed the server
        }
    }

    private void fence(final int rank) {
        final List<Integer> release;
        synchronized (this) {
            fenceWaiters.add(rank);
            if (fenceWaiters.size() < size) {
                return;
            }
            published.putAll(staged);
            staged.clear();
            release = List.copyOf(fenceWaiters);
            fenceWaiters.clear();
        }
        for (final int r : release) {
            reply(serverFds[r], "cmd=kvs-fence-response;rc=0;");
        }
    }

    private static Map<String, String> parse(final String req) {
        final Map<String, String> f = new HashMap<>();
        for (final String part : req.split(";")) {
            final int eq = part.indexOf('=');
            f.put(part.substring(0, eq), part.substring(eq + 1));
        }
        return f;
    }

    private static void reply(final int fd, final String body) {
        write(fd, frame(body));
    }

    private static String readLine(final int fd) {
        final StringBuilder sb = new StringBuilder();
        while (true) {
            final byte b = readExactly(fd, 1)[0];
            if (b == '\n') {
                return sb.toString();
            }
            sb.append((char) b);
        }
    }

    private static byte[] readExactly(final int fd, final int n) {
        try (Arena a = Arena.ofConfined()) {
            final MemorySegment buf = a.allocate(Math.max(1, n));
            int got = 0;
            while (got < n) {
                final long r = LibC.read(fd, buf.address() + got, n - got);
                if (r <= 0 && r != -LibC.EINTR) {
                    throw new IllegalStateException("end of stream");
                }
                got += (int) Math.max(0, r);
            }
            return buf.asSlice(0, n).toArray(JAVA_BYTE);
        }
    }

    private static void write(final int fd, final byte[] bytes) {
        try (Arena a = Arena.ofConfined()) {
            final MemorySegment buf = a.allocate(Math.max(1, bytes.length));
            MemorySegment.copy(bytes, 0, buf, JAVA_BYTE, 0, bytes.length);
            long off = 0;
            while (off < bytes.length) {
                final long r = LibC.send(fd, buf.address() + off, bytes.length - off, LibC.MSG_NOSIGNAL);
                if (r < 0 && r != -LibC.EINTR) {
                    throw new IllegalStateException("write failed");
                }
                off += Math.max(0, r);
            }
        }
    }

    /** Closes the server's ends (the clients see end of stream) and waits for the threads. */
    @Override
    public synchronized void close() throws InterruptedException {
        if (closed) {
            return;
        }
        closed = true;
        for (int r = 0; r < size; r++) {
            if (serverFds[r] > 0) {
                LibC.shutdown(serverFds[r], LibC.SHUT_RDWR);
                LibC.close(serverFds[r]);
            }
        }
        for (final Thread t : threads) {
            t.join(5000);
        }
    }
}
