package weft.uct.conformance;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntSupplier;

import weft.uct.Device;

/**
 * A peer in a child JVM running {@link ConformancePeer}. Commands go to its stdin, replies come
 * from its stdout (read by one daemon thread into a map keyed by command id); its stderr goes to
 * a temporary file that failure messages quote. Every wait progresses the test's worker through
 * the {@link #attach(IntSupplier) attached} hook and has a deadline.
 */
final class ProcessPeer implements Peer {
    private static final HexFormat HEX = HexFormat.of();
    /** Deadline of one command round trip. */
    static final long COMMAND_TIMEOUT_MS = 15_000;

    private final String what;
    private final Process process;
    private final OutputStream stdin;
    private final Thread reader;
    private final Path stderr;
    private final Set<Integer> fds;
    private final ConcurrentHashMap<Long, String> replies = new ConcurrentHashMap<>();
    private final List<String> noise = new ArrayList<>();
    private final AtomicLong ids = new AtomicLong();
    private volatile String ready;
    private volatile boolean eof;
    private IntSupplier hook = () -> 0;
    private byte[] dev;
    private byte[] ifaceAddr;
    private byte[] rkey;
    private long addr;
    private long len;
    private boolean dead;

    private ProcessPeer(final Device device) throws IOException {
        what = "peer process for " + device;
        stderr = Files.createTempFile("conformance-peer-", ".err");
        final List<String> cmd = List.of(ProcessHandle.current().info().command().orElseThrow(),
            "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx256m",
            "-Xshare:auto", "-cp", System.getProperty("java.class.path"), ConformancePeer.class.getName(),
            device.transport(), device.name());
        final Set<Integer> before = Resources.fdNumbers();
        process = new ProcessBuilder(cmd).redirectError(stderr.toFile()).start();
        final Set<Integer> after = Resources.fdNumbers();
        after.removeAll(before);
        fds = after; // the pipe ends this peer holds in our process; excluded from hygiene checks
        stdin = process.getOutputStream();
        reader = Thread.ofPlatform().daemon().name("conformance-peer-reader").start(this::readStdout);
    }

    /** Spawns a peer for {@code device} and waits for its READY line. */
    static ProcessPeer spawn(final Device device) {
        final ProcessPeer p;
        try {
            p = new ProcessPeer(device);
        } catch (final IOException e) {
            throw new AssertionError("cannot spawn a peer JVM: " + e, e);
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (p.ready == null) {
            if (p.eof || System.nanoTime() > deadline) {
                final String why = p.eof ? "exited (" + p.exitInfo() + ")" : "did not print READY within 30 s";
                p.close();
                throw new AssertionError(p.what + " " + why + "; stdout noise " + p.noise + "; stderr: " + p.stderrTail());
            }
            LockSupport.parkNanos(1_000_000);
        }
        final String[] a = p.ready.split(" ");
        p.dev = HEX.parseHex(a[1]);
        p.ifaceAddr = HEX.parseHex(a[2]);
        p.rkey = HEX.parseHex(a[3]);
        p.addr = Long.parseLong(a[4]);
        p.len = Long.parseLong(a[5]);
        return p;
    }

    private void readStdout() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.US_ASCII))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith("READY ")) {
                    ready = line;
                    continue;
                }
                final int sp = line.indexOf(' ');
                try {
                    replies.put(Long.parseLong(line.substring(0, sp)), line.substring(sp + 1));
                } catch (final RuntimeException e) {
                    synchronized (noise) {
                        noise.add(line);
                    }
                }
            }
        } catch (final IOException e) {
            synchronized (noise) {
                noise.add("stdout read failed: " + e);
            }
        } finally {
            eof = true;
        }
    }

    /** Sets the hook that progresses the test side while this peer is waited for. */
    void attach(final IntSupplier progress) {
        hook = progress == null ? () -> 0 : progress;
    }

    /** File descriptors of this process that belong to the peer (pipes), for hygiene checks. */
    Set<Integer> fds() {
        return dead ? Set.of() : fds;
    }

    Thread readerThread() {
        return reader;
    }

    /** The child's process handle (for harness tests: CPU time, exit). */
    ProcessHandle handle() {
        return process.toHandle();
    }

    /**
     * Closes only the child's stdin and waits up to {@code ms} for it to exit on its own.
     *
     * @return true if it exited by itself (no kill needed)
     */
    boolean exitsWhenStdinCloses(final long ms) throws InterruptedException {
        try {
            stdin.close();
        } catch (final IOException e) {
            throw new AssertionError(what + ": closing stdin failed", e);
        }
        return process.waitFor(ms, TimeUnit.MILLISECONDS);
    }

    boolean isAlive() {
        return !dead && process.isAlive();
    }

    String stderrTail() {
        try {
            final String s = Files.readString(stderr);
            return s.length() > 2000 ? "..." + s.substring(s.length() - 2000) : s;
        } catch (final IOException e) {
            return "(stderr unreadable: " + e + ")";
        }
    }

    private String exitInfo() {
        return process.isAlive() ? "alive" : "exit code " + process.exitValue();
    }

    /** Sends a command; returns its id. */
    private long send(final String command) {
        if (dead) {
            throw new AssertionError(what + " is gone; cannot send '" + command + "'");
        }
        final long id = ids.incrementAndGet();
        try {
            stdin.write((id + " " + command + "\n").getBytes(StandardCharsets.US_ASCII));
            stdin.flush();
        } catch (final IOException e) {
            throw new AssertionError(what + ": cannot send '" + command + "' (" + exitInfo() + "): " + e
                + "; stderr: " + stderrTail(), e);
        }
        return id;
    }

    /** Waits for the reply of {@code id}, progressing the test side; returns the text after OK. */
    private String await(final long id, final String command) {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(COMMAND_TIMEOUT_MS);
        int idle = 0;
        while (true) {
            final String r = replies.remove(id);
            if (r != null) {
                if (r.startsWith("OK")) {
                    return r.length() > 3 ? r.substring(3) : "";
                }
                throw new AssertionError(what + ": '" + command + "' failed: " + r);
            }
            if (eof && !replies.containsKey(id)) {
                throw new AssertionError(what + " died while running '" + command + "' (" + exitInfo()
                    + "); stderr: " + stderrTail());
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + ": no reply to '" + abbreviate(command) + "' within "
                    + COMMAND_TIMEOUT_MS + " ms; stderr: " + stderrTail());
            }
            idle = Waits.backoff(hook.getAsInt(), idle);
        }
    }

    private static String abbreviate(final String s) {
        return s.length() > 80 ? s.substring(0, 80) + "..." : s;
    }

    private String call(final String command) {
        return await(send(command), command);
    }

    @Override
    public String describe() {
        return what;
    }

    @Override
    public boolean isLoopback() {
        return false;
    }

    @Override
    public boolean isRemoteProcess() {
        return true;
    }

    @Override
    public byte[] deviceAddress() {
        return dev.clone();
    }

    @Override
    public byte[] interfaceAddress() {
        return ifaceAddr.clone();
    }

    @Override
    public byte[] packedRkey() {
        return rkey.clone();
    }

    @Override
    public long regionAddress() {
        return addr;
    }

    @Override
    public long regionLength() {
        return len;
    }

    @Override
    public void connectBack(final byte[] deviceAddress, final byte[] interfaceAddress) {
        call("connect " + HEX.formatHex(deviceAddress) + " " + HEX.formatHex(interfaceAddress));
    }

    @Override
    public void disconnect() {
        call("disconnect");
    }

    @Override
    public void pause() {
        call("pause");
    }

    @Override
    public void resume() {
        call("resume");
    }

    @Override
    public int progress() {
        return 0;
    }

    @Override
    public byte[] read(final long offset, final int length) {
        return HEX.parseHex(call("read " + offset + " " + length));
    }

    @Override
    public void write(final long offset, final byte[] data) {
        call("write " + offset + " " + HEX.formatHex(data));
    }

    @Override
    public void fill(final long offset, final long length, final byte value) {
        call("fill " + offset + " " + length + " " + value);
    }

    @Override
    public long word(final long offset) {
        return Long.parseLong(call("word " + offset));
    }

    private Task task(final String command) {
        final long id = send(command);
        return new Task() {
            private String result;

            @Override
            public boolean isDone() {
                if (result == null && (replies.containsKey(id) || eof)) {
                    try {
                        result = await(id, command);
                    } catch (final AssertionError e) {
                        result = "FAILED " + e.getMessage();
                    }
                }
                return result != null;
            }

            @Override
            public String result() {
                return result;
            }
        };
    }

    @Override
    public Task localAdd(final long offset, final int width, final long value, final int count) {
        return task("add " + offset + " " + width + " " + value + " " + count);
    }

    @Override
    public Task watch(final long dataOffset, final int words, final long flagOffset, final long expect,
                      final long timeoutMs) {
        return task("watch " + dataOffset + " " + words + " " + flagOffset + " " + expect + " " + timeoutMs);
    }

    @Override
    public void closeInterface() {
        call("closeiface");
    }

    @Override
    public void kill() {
        process.destroyForcibly();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                throw new AssertionError(what + " did not die within 10 s of SIGKILL");
            }
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        close();
    }

    @Override
    public String error() {
        final String[] s = call("stats").split(" ", 3);
        return "null".equals(s[2]) ? null : s[2];
    }

    /** Asks the peer to exit, then kills it if it does not; closes our pipe ends; joins the reader. */
    @Override
    public void close() {
        if (dead) {
            return;
        }
        dead = true;
        try {
            stdin.close(); // the peer exits on stdin EOF
        } catch (final IOException e) {
            // already closed by a dead process: nothing left to release
        }
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
            reader.join(5_000);
            process.getInputStream().close();
        } catch (final InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        } catch (final IOException e) {
            throw new AssertionError(what + ": closing stdout failed", e);
        }
        try {
            Files.deleteIfExists(stderr);
        } catch (final IOException e) {
            // a temp file left behind is harmless; the peer itself is gone
        }
    }
}
