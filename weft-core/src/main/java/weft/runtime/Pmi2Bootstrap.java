package weft.runtime;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.sys.LibC;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The bootstrap of a PE started by a PMI-2 process manager, Slurm's {@code srun --mpi=pmi2} above all:
 * the PMI-2 wire protocol, in Java, over the descriptor the launcher left open ({@code PMI_FD}).
 *
 * <p>Start-up: {@code cmd=init pmi_version=2 pmi_subversion=0} (a PMI-1 line) and its
 * {@code response_to_init}; {@code fullinit} (rank, size, appnum); {@code job-getid} (the job's id);
 * {@code info-getjobattr PMI_process_mapping} (node of every rank: {@link ProcessMapping}). Then
 * {@code kvs-put} at commit, {@code kvs-fence}, {@code kvs-get}, and {@code finalize} at close or
 * {@code abort isworld=TRUE} (Slurm then kills the whole step). Values are encoded as
 * {@link Pmi2Values} says. Every wait ends at {@code WEFT_BOOTSTRAP_TIMEOUT}.
 */
final class Pmi2Bootstrap implements Bootstrap {
    /** How long a finalize or an abort may take: the process is leaving either way. */
    private static final long LEAVE_NS = TimeUnit.SECONDS.toNanos(10);

    private final Pmi2Channel channel;
    private final long timeoutNs;
    private final JobLayout layout;
    private final int appnum;
    private final Map<String, byte[]> pending = new LinkedHashMap<>();
    private final Map<String, byte[]> own = new HashMap<>();
    private boolean closed;
    private volatile boolean aborted;
    /** A request is waiting for its answer (the thread that set up the job may be in a fence while the process exits). */
    private volatile boolean calling;

    private Pmi2Bootstrap(final Pmi2Channel channel, final long timeoutNs, final JobLayout layout, final int appnum) {
        this.channel = channel;
        this.timeoutNs = timeoutNs;
        this.layout = layout;
        this.appnum = appnum;
        channel.crowded(weft.ucs.Cpus.oversubscribed(layout.localSize()));
    }

    /**
     * Joins the job through the descriptor in {@code PMI_FD}.
     *
     * @throws WeftException naming the variable when PMI_FD is missing, not a number or not open, or the
     *                       process manager's failure
     */
    static Pmi2Bootstrap open(final Function<String, String> env, final long timeoutNs) {
        final String text = env.apply("PMI_FD");
        if (text == null || text.isBlank()) {
            throw new WeftException(Status.INVALID_PARAM, "the PMI-2 bootstrap needs PMI_FD, the descriptor a PMI-2 "
                + "launcher leaves open for its tasks, and it is not set: start the program with 'srun --mpi=pmi2' "
                + "(or choose another bootstrap with WEFT_BOOTSTRAP)");
        }
        final int fd;
        try {
            fd = Integer.parseInt(text.trim());
        } catch (final NumberFormatException e) {
            throw new WeftException(Status.INVALID_PARAM, "invalid PMI_FD='" + text + "': expected a descriptor number");
        }
        if (fd < 0 || LibC.fcntl(fd, LibC.F_GETFD, 0) < 0) {
            throw new WeftException(Status.INVALID_PARAM, "PMI_FD=" + fd + " is not an open descriptor of this "
                + "process: something between the launcher and this program (a wrapper script, a tool that closes "
                + "descriptors) closed it");
        }
        return connect(new Pmi2Channel(fd, "PMI_FD=" + fd), env.apply("PMI_JOBID"), env.apply("PMI_RANK"),
            timeoutNs);
    }

    /**
     * Runs the start-up exchange over {@code channel}, which the bootstrap owns from now on (closed on failure).
     *
     * @param pmiJobId the launcher's PMI_JOBID, or null
     * @param pmiRank  the launcher's PMI_RANK, or null
     */
    static Pmi2Bootstrap connect(final Pmi2Channel channel, final String pmiJobId, final String pmiRank,
                                 final long timeoutNs) {
        try {
            final String origin = channel.origin();
            final long deadline = System.nanoTime() + timeoutNs;
            channel.sendLine("cmd=init pmi_version=2 pmi_subversion=0", deadline);
            checkInitResponse(channel.receiveLine(deadline), origin);
            final List<String> init = new ArrayList<>();
            if (pmiJobId != null) {
                init.addAll(List.of("pmijobid", pmiJobId.trim()));
            }
            if (pmiRank != null) {
                init.addAll(List.of("pmirank", pmiRank.trim()));
            }
            init.addAll(List.of("threaded", "FALSE"));
            channel.send(Pmi2Message.of("fullinit", init.toArray(String[]::new)), deadline);
            final Pmi2Message full = channel.receive(deadline).expect("fullinit-response", origin);
            final int size = full.intField("size", origin);
            final int rank = full.intField("rank", origin);
            if (size < 1 || rank < 0 || rank >= size) {
                throw new WeftException(Status.IO_ERROR, "PMI-2: the process manager on " + origin + " gave rank "
                    + rank + " of a job of " + size);
            }
            final int appnum = full.get("appnum") == null ? -1 : full.intField("appnum", origin);
            channel.send(Pmi2Message.of("job-getid"), deadline);
            final Pmi2Message id = channel.receive(deadline).expect("job-getid-response", origin);
            String jobId = id.get("jobid");
            if (jobId == null || jobId.isBlank()) {
                jobId = pmiJobId != null && !pmiJobId.isBlank() ? pmiJobId.trim() : "pmi2-job";
            }
            channel.send(Pmi2Message.of("info-getjobattr", "key", "PMI_process_mapping"), deadline);
            final Pmi2Message map = channel.receive(deadline).expect("info-getjobattr-response", origin);
            final int[] nodes;
            if (map.flag("found") && map.get("value") != null) {
                nodes = ProcessMapping.nodes(map.get("value"), size);
            } else { // no mapping: assume nothing is shared (each PE alone on its node)
                nodes = new int[size];
                for (int r = 0; r < size; r++) {
                    nodes[r] = r;
                }
            }
            return new Pmi2Bootstrap(channel, timeoutNs, ProcessMapping.layout(nodes, rank, jobId), appnum);
        } catch (final RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    private static void checkInitResponse(final String line, final String origin) {
        final Map<String, String> f = new HashMap<>();
        for (final String word : line.trim().split("\\s+")) {
            final int eq = word.indexOf('=');
            if (eq <= 0) {
                throw Pmi2Message.malformed(origin, "an init response word without '='", line);
            }
            f.putIfAbsent(word.substring(0, eq), word.substring(eq + 1));
        }
        if (!"response_to_init".equals(f.get("cmd"))) {
            throw Pmi2Message.malformed(origin, "an answer to init that is not response_to_init", line);
        }
        if (!"0".equals(f.get("rc")) || !"2".equals(f.get("pmi_version"))) {
            throw new WeftException(Status.UNSUPPORTED, "PMI-2: the process manager on " + origin + " refused PMI "
                + "version 2.0 (it answered '" + Pmi2Message.quote(line.trim()) + "'): it speaks only PMI-1; under "
                + "Slurm use 'srun --mpi=pmi2' or 'srun --mpi=pmix'");
        }
    }

    @Override
    public String name() {
        return "pmi2";
    }

    @Override
    public JobLayout layout() {
        return layout;
    }

    /** The launcher's application number ({@code -1} when it does not tell). */
    int appnum() {
        return appnum;
    }

    @Override
    public void put(final String key, final byte[] value) {
        checkOpen();
        Pmi2Values.key(layout.rank(), key); // rejects a bad key now rather than at commit
        final byte[] copy = value.clone();
        pending.put(key, copy);
        own.put(key, copy);
    }

    @Override
    public void commit() {
        checkOpen();
        final long deadline = System.nanoTime() + timeoutNs;
        for (final Map.Entry<String, byte[]> e : pending.entrySet()) {
            final String base = Pmi2Values.key(layout.rank(), e.getKey());
            final List<String> pieces = Pmi2Values.encode(e.getValue());
            for (int i = 0; i < pieces.size(); i++) {
                final String k = i == 0 ? base : Pmi2Values.pieceKey(base, i);
                call(Pmi2Message.of("kvs-put", "key", k, "value", pieces.get(i)), "kvs-put-response", deadline);
            }
        }
        pending.clear();
    }

    @Override
    public void fence() {
        checkOpen();
        try {
            call(Pmi2Message.of("kvs-fence"), "kvs-fence-response", System.nanoTime() + timeoutNs);
        } catch (final WeftException e) {
            if (e.status() == Status.TIMED_OUT) {
                throw new WeftException(Status.TIMED_OUT, "PMI-2 kvs-fence did not complete within "
                    + seconds(timeoutNs) + " s (WEFT_BOOTSTRAP_TIMEOUT): a PE may have died "
                    + "or never reached the fence (rank " + layout.rank() + " of " + layout.size() + ")", e);
            }
            throw e;
        }
    }

    private static String seconds(final long ns) {
        return ns % 1_000_000_000L == 0 ? Long.toString(ns / 1_000_000_000L) : String.format("%.1f", ns / 1e9);
    }

    @Override
    public byte[] get(final int fromRank, final String key) {
        checkOpen();
        if (fromRank < 0 || fromRank >= layout.size()) {
            throw new WeftException(Status.INVALID_PARAM, "rank " + fromRank + " is outside the job (size "
                + layout.size() + ")");
        }
        if (fromRank == layout.rank()) {
            final byte[] v = own.get(key);
            if (v == null) {
                throw TcpBootstrap.missing(fromRank, key);
            }
            return v.clone();
        }
        final long deadline = System.nanoTime() + timeoutNs;
        final String base = Pmi2Values.key(fromRank, key);
        final String first = lookup(fromRank, base, deadline);
        if (first == null) {
            throw TcpBootstrap.missing(fromRank, key);
        }
        final int count = Pmi2Values.count(first, base);
        final List<String> pieces = new ArrayList<>(count);
        pieces.add(first);
        for (int i = 1; i < count; i++) {
            final String p = lookup(fromRank, Pmi2Values.pieceKey(base, i), deadline);
            if (p == null) {
                throw new WeftException(Status.IO_ERROR, "PMI-2: piece " + i + " of " + count + " of rank " + fromRank
                    + "'s value for '" + key + "' is missing");
            }
            pieces.add(p);
        }
        return Pmi2Values.decode(pieces, base);
    }

    private String lookup(final int fromRank, final String pmiKey, final long deadline) {
        final Pmi2Message r = call(Pmi2Message.of("kvs-get", "srcid", Integer.toString(fromRank), "key", pmiKey),
            "kvs-get-response", deadline);
        return r.flag("found") ? (r.get("value") == null ? "" : r.get("value")) : null;
    }

    private Pmi2Message call(final Pmi2Message request, final String response, final long deadline) {
        calling = true;
        try {
            channel.send(request, deadline);
            return channel.receive(deadline).expect(response, channel.origin());
        } finally {
            calling = false;
        }
    }

    private void checkOpen() {
        Bootstrap.checkOpen(closed, aborted);
    }

    /**
     * Asks the process manager to end the whole job ({@code abort isworld=TRUE}); Slurm then kills every
     * task of the step. No answer comes; the caller exits.
     */
    @Override
    public void abort(final int status, final String reason) {
        if (closed || aborted) {
            return;
        }
        aborted = true;
        String msg = Bootstrap.abortMessage(layout.rank(), status, reason);
        msg = msg.replace(';', ',').replace('\n', ' ').replace('\r', ' ');
        try {
            channel.sendEvenIfBroken(Pmi2Message.of("abort", "isworld", "TRUE", "msg", msg),
                System.nanoTime() + LEAVE_NS);
        } catch (final WeftException e) {
            System.err.println("weft: PMI-2 abort could not reach the process manager: " + e.getMessage());
        }
    }

    /**
     * Leaves the job: {@code finalize} (unless the channel broke or this PE aborted), then closes the descriptor.
     * When another thread still waits for an answer (the process exits while its main thread is in a fence),
     * nothing is sent or closed: the answers would cross, and the process is ending anyway.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (calling) {
            return;
        }
        try {
            if (!aborted && !channel.isBroken()) {
                final long deadline = System.nanoTime() + Math.min(timeoutNs, LEAVE_NS);
                channel.send(Pmi2Message.of("finalize"), deadline);
                channel.receive(deadline).expect("finalize-response", channel.origin());
            }
        } catch (final WeftException e) {
            System.err.println("weft: PMI-2 finalize failed: " + e.getMessage());
        } finally {
            channel.close();
        }
    }
}
