package weft.tools.run;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The hosts of a job and where its ranks go, following mpirun: {@code -H h1:2,h2:2} or a hostfile
 * with lines {@code host}, {@code host slots=N} or {@code host:N} ({@code #} starts a comment); a host
 * without a count has one slot. Ranks fill the first host's slots, then the next host's ("by
 * slot"); with oversubscription they wrap around.
 */
final class HostList {
    /** One host and how many PEs it may run. */
    record Host(String name, int slots) {
    }

    /** Where one rank runs. */
    record Placement(int rank, String host, int nodeId, int localRank, int localSize, boolean local) {
    }

    private HostList() {
    }

    /** Parses {@code h1:2,h2,h3:4}. */
    static List<Host> parseHosts(final String spec) {
        final List<Host> out = new ArrayList<>();
        for (final String part : spec.split(",")) {
            final String p = part.trim();
            if (p.isEmpty()) {
                continue;
            }
            out.add(parseEntry(p, p));
        }
        if (out.isEmpty()) {
            throw new LaunchException("empty host list '" + spec + "'");
        }
        return merge(out);
    }

    /** Reads a hostfile. */
    static List<Host> readHostfile(final Path file) {
        final List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (final IOException e) {
            throw new LaunchException("cannot read hostfile " + file + ": " + e.getMessage());
        }
        final List<Host> out = new ArrayList<>();
        int lineNo = 0;
        for (final String raw : lines) {
            lineNo++;
            final int hash = raw.indexOf('#');
            final String line = (hash >= 0 ? raw.substring(0, hash) : raw).trim();
            if (line.isEmpty()) {
                continue;
            }
            final String[] words = line.split("\\s+");
            Host h = parseEntry(words[0], file + ":" + lineNo);
            for (int i = 1; i < words.length; i++) {
                if (words[i].startsWith("slots=")) {
                    h = new Host(h.name(), count(words[i].substring(6), file + ":" + lineNo));
                } else if (!words[i].startsWith("max_slots=")) {
                    throw new LaunchException("hostfile " + file + ":" + lineNo + ": unknown word '" + words[i]
                        + "' (expected slots=N)");
                }
            }
            out.add(h);
        }
        if (out.isEmpty()) {
            throw new LaunchException("hostfile " + file + " lists no host");
        }
        return merge(out);
    }

    private static Host parseEntry(final String entry, final String where) {
        final int colon = entry.lastIndexOf(':');
        // An IPv6 literal has colons too: only "name:digits" without other colons is host:slots.
        if (colon > 0 && entry.indexOf(':') == colon) {
            return new Host(entry.substring(0, colon), count(entry.substring(colon + 1), where));
        }
        return new Host(entry, 1);
    }

    private static int count(final String text, final String where) {
        try {
            final int n = Integer.parseInt(text.trim());
            if (n < 1) {
                throw new NumberFormatException();
            }
            return n;
        } catch (final NumberFormatException e) {
            throw new LaunchException("invalid slot count '" + text + "' in " + where + " (expected a number >= 1)");
        }
    }

    private static List<Host> merge(final List<Host> hosts) {
        final Map<String, Integer> slots = new LinkedHashMap<>();
        for (final Host h : hosts) {
            slots.merge(h.name(), h.slots(), Integer::sum);
        }
        final List<Host> out = new ArrayList<>();
        slots.forEach((name, n) -> out.add(new Host(name, n)));
        return out;
    }

    /**
     * Places {@code n} ranks on {@code hosts} by slot.
     *
     * @throws LaunchException if the hosts have fewer slots than {@code n} and not oversubscribing
     */
    static List<Placement> place(final int n, final List<Host> hosts, final boolean oversubscribe) {
        return place(n, hosts, oversubscribe, false);
    }

    /**
     * As {@link #place(int, List, boolean)}; with {@code byNode} (mpirun's {@code --map-by node}) rank r goes
     * to the next host that has a free slot, round-robin, instead of filling each host's slots in turn.
     */
    static List<Placement> place(final int n, final List<Host> hosts, final boolean oversubscribe,
                                 final boolean byNode) {
        final int total = hosts.stream().mapToInt(Host::slots).sum();
        if (n > total && !oversubscribe) {
            throw new LaunchException(n + " PEs requested but the hosts have only " + total + " slot(s) ("
                + describe(hosts) + "); add slots (-H host:N) or pass --oversubscribe");
        }
        final int[] hostOf = byNode ? roundRobin(n, hosts) : new int[n];
        int rank = byNode ? n : 0;
        while (rank < n) {
            for (int h = 0; h < hosts.size() && rank < n; h++) {
                for (int s = 0; s < hosts.get(h).slots() && rank < n; s++) {
                    hostOf[rank++] = h;
                }
            }
        }
        final int[] perHost = new int[hosts.size()];
        for (final int h : hostOf) {
            perHost[h]++;
        }
        final boolean[] local = new boolean[hosts.size()]; // once per host: it may ask the resolver
        for (int h = 0; h < hosts.size(); h++) {
            local[h] = isLocal(hosts.get(h).name());
        }
        final int[] next = new int[hosts.size()];
        final List<Placement> out = new ArrayList<>(n);
        for (int r = 0; r < n; r++) {
            final int h = hostOf[r];
            out.add(new Placement(r, hosts.get(h).name(), h, next[h]++, perHost[h], local[h]));
        }
        return out;
    }

    /** Host of each rank, one per host in turn while slots last (then one per host in turn regardless). */
    private static int[] roundRobin(final int n, final List<Host> hosts) {
        final int[] hostOf = new int[n];
        final int[] used = new int[hosts.size()];
        final int total = hosts.stream().mapToInt(Host::slots).sum();
        int h = 0;
        for (int r = 0; r < n; r++) {
            if (r < total) {
                while (used[h] >= hosts.get(h).slots()) {
                    h = (h + 1) % hosts.size();
                }
            }
            hostOf[r] = h;
            used[h]++;
            h = (h + 1) % hosts.size();
        }
        return hostOf;
    }

    private static String describe(final List<Host> hosts) {
        final StringBuilder sb = new StringBuilder();
        for (final Host h : hosts) {
            sb.append(sb.isEmpty() ? "" : ",").append(h.name()).append(':').append(h.slots());
        }
        return sb.toString();
    }

    /** True for names of this machine: PEs there are started directly, without the agent. */
    static boolean isLocal(final String host) {
        if (host.equals("localhost") || host.equals("127.0.0.1") || host.equals("::1")) {
            return true;
        }
        try {
            return host.equals(InetAddress.getLocalHost().getHostName());
        } catch (final IOException e) {
            return false;
        }
    }
}
