import weft.ucp.*;
import weft.ucs.Status;
import weft.ucs.config.Config;
import java.lang.foreign.*;
import java.lang.management.*;

/**
 * CPU time per get of registered (not allocated) memory between two workers of one context over shm+cma+self,
 * one thread progressing both, so the figure is the initiator's and the target's work together and does not
 * depend on how the scheduler places two processes (robust on a loaded machine; wall time printed beside).
 * WEFT_SOFT_GET_THRESH as the third argument: auto (emulated over shm, the default) or inf (cma); or "alloc":
 * memory the context allocates (shm maps it: a copy from the mapping, the perftest's case).
 *   javac -cp "$(./weft classpath)" -d /tmp/getcost bench/getcost/GetCost.java
 *   taskset -c 1 java --enable-native-access=ALL-UNNAMED -cp "$(./weft classpath):/tmp/getcost" GetCost 65536 20000 auto
 */
public class GetCost {
    public static void main(String[] a) {
        long size = Long.parseLong(a[0]); int n = Integer.parseInt(a[1]); String thresh = a.length > 2 ? a[2] : "auto";
        Config cfg = Config.global().with("SOFT_GET_THRESH", thresh.equals("alloc") ? "auto" : thresh).with("KEEPALIVE_INTERVAL", "10m");
        var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (Context ctx = Context.builder().transports("shm", "cma", "self").config(cfg).build();
             Worker wa = ctx.newWorker(); Worker wb = ctx.newWorker(); Arena arena = Arena.ofShared();
             MemoryMap map = thresh.equals("alloc") ? ctx.memMap(size, 0) : ctx.memMap(arena.allocate(size, 4096), 0)) {
            Endpoint ab = wa.connect(wb.address()); wb.connect(wa.address());
            try (Rkey rk = ab.unpackRkey(map.packRkey())) {
                MemorySegment dst = arena.allocate(size, 4096);
                for (int round = 0; round < 6; round++) {
                    long c0 = mx.getCurrentThreadCpuTime(), t0 = System.nanoTime();
                    for (int i = 0; i < n; i++) {
                        Request r = ab.get(dst, 0, size, rk.base(), rk);
                        while (!r.isCompleted()) { wa.progress(); wb.progress(); }
                        if (r.status() != Status.OK) throw new AssertionError(r.status());
                        r.release();
                    }
                    long c = mx.getCurrentThreadCpuTime() - c0, t = System.nanoTime() - t0;
                    if (round >= 3) System.out.printf("%s size=%d thresh=%s cpu_us_per_get=%.3f wall_us_per_get=%.3f %s%n",
                        rk.describe().contains("get>=") ? "emulated" : rk.describe().startsWith("rma=shm") ? "shm-mapped" : "cma", size, thresh, c / 1e3 / n, t / 1e3 / n,
                        new String(java.nio.file.Files.readAllBytes(java.nio.file.Path.of("/proc/loadavg"))).trim());
                }
            }
        } catch (java.io.IOException e) { throw new RuntimeException(e); }
    }
}
