package weft.ucp;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A PE of {@link SymmetricRkeyAcrossProcessesTest}: maps S segments with FIXED | SYMMETRIC_RKEY (and one
 * private segment), prints {@code ADDR <worker address>}, {@code KEY <s> <address> <packed key>} per
 * segment, {@code PRIV <packed key>}, {@code READY}; then progresses (serving the parent's puts and gets
 * over tcp) and obeys stdin: {@code UNMAP <s>} (answers {@code UNMAPPED <s>}), {@code QUIT} (answers
 * {@code VAL <s> <long at offset 8>} per mapped segment, then {@code BYE}). Exits when stdin closes or
 * after 60 s, so it never outlives the test.
 *
 * <p>Arguments: {@code tls segments segmentLength}.
 */
public final class SymmetricPeerMain {
    private SymmetricPeerMain() {
    }

    public static void main(final String[] args) throws Exception {
        final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        final HexFormat hex = HexFormat.of();
        final int segments = Integer.parseInt(args[1]);
        final long len = Long.parseLong(args[2]);
        final ConcurrentLinkedQueue<String> commands = new ConcurrentLinkedQueue<>();
        Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    commands.add(line.trim());
                }
            } catch (final java.io.IOException e) {
                System.err.println("stdin: " + e);
            }
            Runtime.getRuntime().halt(3); // the parent is gone
        });
        try (Context ctx = Context.builder().features(Feature.values()).transports(args[0].split(",")).build();
             Worker w = ctx.newWorker()) {
            final MemoryMap[] maps = new MemoryMap[segments];
            for (int s = 0; s < segments; s++) {
                maps[s] = ctx.memMap(len, MemoryMap.FIXED | MemoryMap.SYMMETRIC_RKEY);
                maps[s].segment().set(ValueLayout.JAVA_LONG, 8, -1);
            }
            final MemoryMap priv = ctx.memMap(4096, 0);
            out.println("ADDR " + hex.formatHex(w.address()));
            for (int s = 0; s < segments; s++) {
                out.println("KEY " + s + " " + Long.toHexString(maps[s].address()) + " " + hex.formatHex(maps[s].packRkey()));
            }
            out.println("PRIV " + hex.formatHex(priv.packRkey()));
            out.println("READY");
            final long deadline = System.nanoTime() + 60_000_000_000L;
            boolean quit = false;
            while (!quit) {
                w.progress();
                final String c = commands.poll();
                if (c != null && c.startsWith("UNMAP ")) {
                    final int s = Integer.parseInt(c.substring(6));
                    maps[s].close();
                    out.println("UNMAPPED " + s);
                } else if ("QUIT".equals(c)) {
                    quit = true;
                }
                if (System.nanoTime() > deadline) {
                    out.println("TIMEOUT");
                    System.exit(2);
                }
            }
            for (int s = 0; s < segments; s++) {
                if (maps[s].isMapped()) {
                    out.println("VAL " + s + " " + maps[s].segment().get(ValueLayout.JAVA_LONG, 8));
                    maps[s].close();
                }
            }
            priv.close();
        }
        out.println("BYE");
        out.flush();
        System.exit(0);
    }
}
