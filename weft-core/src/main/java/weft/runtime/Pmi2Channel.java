package weft.runtime;

import weft.ucs.BlockedProgress;
import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.sys.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The byte stream to a PMI-2 process manager: the file descriptor a launcher hands its tasks
 * ({@code PMI_FD}, one end of a socketpair for Slurm's {@code srun --mpi=pmi2}), read and written with
 * {@link LibC} and {@code poll} so that every wait has a deadline.
 *
 * <p>Framing: the opening {@code cmd=init ...} exchange is a PMI-1 line ended by a newline; every later
 * message is {@code LLLLLLcmd=...;} where {@code LLLLLL} is the length of the rest in decimal, padded
 * with spaces to six characters. Any failure (end of stream, a timeout, a malformed length) leaves the
 * channel broken: later calls fail at once with the first reason, since the two ends no longer agree
 * where a message starts. One thread reads; {@link #send} may be called from another thread (an abort
 * while a fence waits).
 */
final class Pmi2Channel implements AutoCloseable {
    /** Longest message accepted: far above anything Weft or a process manager sends. */
    static final int MAX_MESSAGE = 1 << 20;
    private static final int LENGTH_DIGITS = 6;
    private static final int MAX_LINE = 1024;
    private static final int CHUNK = 64 * 1024;

    private final int fd;
    private final String origin;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment in = arena.allocate(CHUNK);
    private final MemorySegment pollFd = arena.allocate(LibC.POLLFD_SIZE, 8);
    private final MemorySegment writePollFd = arena.allocate(LibC.POLLFD_SIZE, 8);
    private final Object writeLock = new Object();
    private int inPos;
    private int inLen;
    private volatile String broken;
    private boolean closed;
    /** This node's PEs outnumber its CPUs: idle polls back off to {@link ProgressBackoff}'s crowded cap. */
    private volatile boolean crowded;

    /**
     * A channel over {@code fd}, which it owns from now on (closed by {@link #close}).
     *
     * @param origin how error messages name the descriptor, e.g. {@code PMI_FD=11}
     */
    Pmi2Channel(final int fd, final String origin) {
        this.fd = fd;
        this.origin = origin;
    }

    /** How error messages name this channel's descriptor. */
    String origin() {
        return origin;
    }

    /** Writes the PMI-1 style opening line (a newline is added). */
    void sendLine(final String line, final long deadlineNs) {
        checkUsable();
        write((line + "\n").getBytes(StandardCharsets.US_ASCII), deadlineNs);
    }

    /** Reads one newline-ended line (without the newline). */
    String receiveLine(final long deadlineNs) {
        checkUsable();
        final StringBuilder sb = new StringBuilder();
        while (true) {
            final int b = readByte(deadlineNs);
            if (b == '\n') {
                return sb.toString();
            }
            if (sb.length() >= MAX_LINE) {
                throw fail(Pmi2Message.malformed(origin, "a line longer than " + MAX_LINE + " bytes", sb.toString()));
            }
            sb.append((char) b);
        }
    }

    /** Sends one length-prefixed PMI-2 message. */
    void send(final Pmi2Message message, final long deadlineNs) {
        checkUsable();
        write(frame(message), deadlineNs);
    }

    /**
     * Sends one message even when an earlier failure left the channel out of step (an abort after a timed-out
     * fence: the server still reads whole messages from the start of ours).
     */
    void sendEvenIfBroken(final Pmi2Message message, final long deadlineNs) {
        if (closed) {
            throw new WeftException(Status.CLOSED, "PMI-2 channel on " + origin + " is closed");
        }
        write(frame(message), deadlineNs);
    }

    private static byte[] frame(final Pmi2Message message) {
        final byte[] body = message.encode().getBytes(StandardCharsets.UTF_8);
        if (body.length >= 1_000_000) {
            throw new WeftException(Status.INVALID_PARAM, "PMI-2 message of " + body.length + " bytes does not fit "
                + "the 6-digit length field");
        }
        final String prefix = String.format("%-" + LENGTH_DIGITS + "d", body.length);
        final byte[] all = new byte[LENGTH_DIGITS + body.length];
        System.arraycopy(prefix.getBytes(StandardCharsets.US_ASCII), 0, all, 0, LENGTH_DIGITS);
        System.arraycopy(body, 0, all, LENGTH_DIGITS, body.length);
        return all;
    }

    /** Reads one length-prefixed PMI-2 message. */
    Pmi2Message receive(final long deadlineNs) {
        checkUsable();
        final byte[] len = readFully(LENGTH_DIGITS, deadlineNs);
        final String lenText = new String(len, StandardCharsets.US_ASCII);
        final int n;
        try {
            n = Integer.parseInt(lenText.trim());
        } catch (final NumberFormatException e) {
            throw fail(Pmi2Message.malformed(origin, "a length field that is not a number", lenText));
        }
        if (n <= 0 || n > MAX_MESSAGE) {
            throw fail(Pmi2Message.malformed(origin, "a message length of " + n + " (1.." + MAX_MESSAGE + ")",
                lenText));
        }
        final String text = new String(readFully(n, deadlineNs), StandardCharsets.UTF_8);
        try {
            return Pmi2Message.parse(text, origin);
        } catch (final WeftException e) {
            throw fail(e);
        }
    }

    private byte[] readFully(final int n, final long deadlineNs) {
        final byte[] out = new byte[n];
        for (int i = 0; i < n; i++) {
            out[i] = (byte) readByte(deadlineNs);
        }
        return out;
    }

    private int readByte(final long deadlineNs) {
        if (inPos == inLen) {
            fill(deadlineNs);
        }
        return in.get(JAVA_BYTE, inPos++) & 0xff;
    }

    private void fill(final long deadlineNs) {
        while (true) {
            waitFor(pollFd, LibC.POLLIN, deadlineNs);
            final long r = LibC.read(fd, in.address(), CHUNK);
            if (r > 0) {
                inPos = 0;
                inLen = (int) r;
                return;
            }
            if (r == 0) {
                throw fail(new WeftException(Status.CONNECTION_RESET, "PMI-2: the process manager closed " + origin
                    + " (the job step ended, or this process finalized already)"));
            }
            if (r != -LibC.EINTR && r != -LibC.EAGAIN) {
                throw fail(new WeftException(Status.IO_ERROR, "PMI-2: cannot read " + origin + ": "
                    + LibC.strerror((int) -r)));
            }
        }
    }

    private void write(final byte[] bytes, final long deadlineNs) {
        synchronized (writeLock) {
            if (closed) {
                throw new WeftException(Status.CLOSED, "PMI-2 channel on " + origin + " is closed");
            }
            try (Arena a = Arena.ofConfined()) {
                final MemorySegment buf = a.allocate(bytes.length);
                MemorySegment.copy(bytes, 0, buf, JAVA_BYTE, 0, bytes.length);
                long off = 0;
                boolean socket = true;
                while (off < bytes.length) {
                    long r = socket ? LibC.send(fd, buf.address() + off, bytes.length - off, LibC.MSG_NOSIGNAL)
                        : LibC.write(fd, buf.address() + off, bytes.length - off);
                    if (r == -LibC.ENOTSOCK) { // a pipe or a tty: plain write (SIGPIPE is ignored by the JVM)
                        socket = false;
                        continue;
                    }
                    if (r >= 0) {
                        off += r;
                    } else if (r == -LibC.EAGAIN) {
                        waitFor(writePollFd, LibC.POLLOUT, deadlineNs);
                    } else if (r != -LibC.EINTR) {
                        throw fail(new WeftException(r == -LibC.EPIPE || r == -LibC.ECONNRESET
                            ? Status.CONNECTION_RESET : Status.IO_ERROR, "PMI-2: cannot write to " + origin + ": "
                            + LibC.strerror((int) -r) + (r == -LibC.EPIPE ? " (the process manager closed it)" : "")));
                    }
                }
            }
        }
    }

    /** The job's layout is known: on a crowded node idle waits sleep longer between progress rounds. */
    void crowded(final boolean c) {
        crowded = c;
    }

    /**
     * Polls until {@code events} are ready, or fails at the deadline or on an invalid descriptor. Meanwhile
     * this thread's workers progress ({@link BlockedProgress}): a peer may need them before it reaches the
     * same fence. On a crowded node the idle polls grow from 1 ms to 20 ms ({@link ProgressBackoff}).
     */
    private void waitFor(final MemorySegment pfd, final int events, final long deadlineNs) {
        final boolean progress = BlockedProgress.any();
        final ProgressBackoff backoff = crowded ? new ProgressBackoff(true) : null;
        boolean worked = false;
        while (true) {
            final long left = deadlineNs - System.nanoTime();
            if (left <= 0) {
                throw fail(new WeftException(Status.TIMED_OUT, "PMI-2: no answer from the process manager on "
                    + origin + " in time"));
            }
            pfd.set(JAVA_INT, 0, fd);
            pfd.set(JAVA_SHORT, 4, (short) events);
            pfd.set(JAVA_SHORT, 6, (short) 0);
            final int ms = !progress ? (int) Math.max(1, Math.min(1000, TimeUnit.NANOSECONDS.toMillis(left)))
                : worked ? 0 : backoff == null ? 1 : (int) Math.max(1, backoff.next(left) / 1_000_000);
            final int r = LibC.poll(pfd.address(), 1, ms);
            if (r == 0 && progress) {
                worked = BlockedProgress.run() > 0;
                if (worked && backoff != null) {
                    backoff.reset();
                }
                continue;
            }
            if (r > 0) {
                if ((pfd.get(JAVA_SHORT, 6) & LibC.POLLNVAL) != 0) {
                    throw fail(new WeftException(Status.IO_ERROR, "PMI-2: " + origin + " is not an open descriptor"));
                }
                return; // readable, writable, or an error/hang-up the next read or write reports
            }
            if (r < 0 && r != -LibC.EINTR && r != -LibC.EAGAIN) {
                throw fail(new WeftException(Status.IO_ERROR, "PMI-2: poll on " + origin + " failed: "
                    + LibC.strerror(-r)));
            }
        }
    }

    private WeftException fail(final WeftException e) {
        if (broken == null) {
            broken = e.getMessage();
        }
        return e;
    }

    private void checkUsable() {
        if (closed) {
            throw new WeftException(Status.CLOSED, "PMI-2 channel on " + origin + " is closed");
        }
        final String why = broken;
        if (why != null) {
            throw new WeftException(Status.IO_ERROR, "PMI-2 channel on " + origin + " is unusable after an earlier "
                + "failure: " + why);
        }
    }

    /** True once a read or write failed (the stream is out of step). */
    boolean isBroken() {
        return broken != null;
    }

    @Override
    public void close() {
        synchronized (writeLock) {
            if (closed) {
                return;
            }
            closed = true;
            LibC.close(fd);
            arena.close();
        }
    }
}
