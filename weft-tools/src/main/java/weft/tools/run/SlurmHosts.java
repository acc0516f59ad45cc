package weft.tools.run;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The hosts of the Slurm allocation {@code weft run} runs in ({@code salloc}, {@code sbatch}), as mpirun
 * takes them: the nodes of {@code SLURM_JOB_NODELIST} in Slurm's hostlist syntax, each with as many slots
 * as {@code SLURM_TASKS_PER_NODE} gives it (else {@code SLURM_JOB_CPUS_PER_NODE}, else one).
 *
 * <p>Hostlist syntax: a comma-separated list of names, where a bracket holds numbers and ranges that
 * expand in place, keeping the width of zero-padded numbers: {@code node[1-3,5]} is node1, node2,
 * node3, node5; {@code n[01-02]-ib} is n01-ib, n02-ib; {@code r[1-2]n[1-2]} is r1n1, r1n2, r2n1, r2n2.
 * Counts: {@code 2(x3),1} is 2, 2, 2, 1.
 */
final class SlurmHosts {
    /** Most names one list may expand to (a typo such as node[1-99999999] must not exhaust memory). */
    static final int MAX_HOSTS = 1 << 16;

    private SlurmHosts() {
    }

    /**
     * The allocation's hosts, or null when {@code env} shows no Slurm allocation (no SLURM_JOB_NODELIST).
     *
     * @throws LaunchException when a variable is malformed or the counts do not match the nodes
     */
    static List<HostList.Host> fromEnvironment(final Function<String, String> env) {
        final String nodelist = env.apply("SLURM_JOB_NODELIST");
        if (nodelist == null || nodelist.isBlank()) {
            return null;
        }
        final List<String> names = expand(nodelist);
        String countsVar = "SLURM_TASKS_PER_NODE";
        String counts = env.apply(countsVar);
        if (counts == null || counts.isBlank()) {
            countsVar = "SLURM_JOB_CPUS_PER_NODE";
            counts = env.apply(countsVar);
        }
        final List<HostList.Host> hosts = new ArrayList<>(names.size());
        if (counts == null || counts.isBlank()) {
            names.forEach(n -> hosts.add(new HostList.Host(n, 1)));
            return hosts;
        }
        final List<Integer> slots = counts(counts, countsVar);
        if (slots.size() != names.size()) {
            throw new LaunchException(countsVar + "='" + counts + "' gives " + slots.size() + " count(s) for the "
                + names.size() + " node(s) of SLURM_JOB_NODELIST='" + nodelist + "'");
        }
        for (int i = 0; i < names.size(); i++) {
            hosts.add(new HostList.Host(names.get(i), slots.get(i)));
        }
        return hosts;
    }

    /**
     * The names of a hostlist expression.
     *
     * @throws LaunchException naming what is wrong
     */
    static List<String> expand(final String hostlist) {
        final List<String> out = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i <= hostlist.length(); i++) {
            final char c = i < hostlist.length() ? hostlist.charAt(i) : ',';
            if (c == '[') {
                depth++;
                if (depth > 1) {
                    throw bad(hostlist, "nested '['");
                }
            } else if (c == ']') {
                depth--;
                if (depth < 0) {
                    throw bad(hostlist, "']' without '['");
                }
            } else if (c == ',' && depth == 0) {
                final String name = hostlist.substring(start, i).trim();
                if (!name.isEmpty()) {
                    expandOne(name, hostlist, out);
                }
                start = i + 1;
            }
        }
        if (depth != 0) {
            throw bad(hostlist, "'[' without ']'");
        }
        if (out.isEmpty()) {
            throw bad(hostlist, "no host");
        }
        return out;
    }

    /** Expands the first bracket of {@code name}, then the rest recursively. */
    private static void expandOne(final String name, final String whole, final List<String> out) {
        final int open = name.indexOf('[');
        if (open < 0) {
            add(out, name, whole);
            return;
        }
        final int close = name.indexOf(']', open);
        final String prefix = name.substring(0, open);
        final String rest = name.substring(close + 1);
        for (final String range : name.substring(open + 1, close).split(",", -1)) {
            final int dash = range.indexOf('-');
            final String lo = (dash < 0 ? range : range.substring(0, dash)).trim();
            final String hi = (dash < 0 ? range : range.substring(dash + 1)).trim();
            if (!lo.matches("[0-9]{1,9}") || !hi.matches("[0-9]{1,9}")) {
                throw bad(whole, "'" + range + "' in brackets is not a number or a range a-b");
            }
            final long from = Long.parseLong(lo);
            final long to = Long.parseLong(hi);
            if (to < from) {
                throw bad(whole, "the range " + range + " runs backwards");
            }
            if (to - from >= MAX_HOSTS) {
                throw bad(whole, "the range " + range + " has more than " + MAX_HOSTS + " names");
            }
            final int width = lo.length();
            for (long v = from; v <= to; v++) {
                final String digits = String.format("%0" + width + "d", v);
                expandOne(prefix + digits + rest, whole, out);
            }
        }
    }

    private static void add(final List<String> out, final String name, final String whole) {
        if (out.size() >= MAX_HOSTS) {
            throw bad(whole, "more than " + MAX_HOSTS + " names");
        }
        out.add(name);
    }

    /**
     * Slurm's per-node counts: {@code 2(x3),1} is 2, 2, 2, 1.
     *
     * @throws LaunchException naming the variable when malformed
     */
    static List<Integer> counts(final String spec, final String var) {
        final List<Integer> out = new ArrayList<>();
        for (final String part : spec.split(",")) {
            final String p = part.trim();
            final java.util.regex.Matcher m = java.util.regex.Pattern.compile("([0-9]+)(?:\\(x([0-9]+)\\))?")
                .matcher(p);
            if (!m.matches()) {
                throw new LaunchException("invalid " + var + "='" + spec + "': '" + p + "' is not N or N(xM)");
            }
            final int n = Integer.parseInt(m.group(1));
            final int times = m.group(2) == null ? 1 : Integer.parseInt(m.group(2));
            if (n < 1 || times < 1 || out.size() + times > MAX_HOSTS) {
                throw new LaunchException("invalid " + var + "='" + spec + "': counts must be >= 1, for at most "
                    + MAX_HOSTS + " nodes");
            }
            for (int i = 0; i < times; i++) {
                out.add(n);
            }
        }
        return out;
    }

    private static LaunchException bad(final String hostlist, final String why) {
        return new LaunchException("invalid SLURM_JOB_NODELIST='" + hostlist + "': " + why);
    }
}
