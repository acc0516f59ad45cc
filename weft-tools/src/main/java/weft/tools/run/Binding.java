package weft.tools.run;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Where each PE of this machine may run, as mpirun's {@code --bind-to} and {@code --map-by} decide it:
 * with {@code core} binding, the PEs of this machine take the CPUs the launcher may use in order, each
 * its own {@code PE=N} (default one) of them, local rank 0 first. Without an explicit {@code --bind-to}
 * the PEs are bound when they fit those CPUs and left unbound when they do not (as mpirun does when
 * oversubscribed). Pure functions: the launcher applies the result (see {@link JobLauncher}).
 */
final class Binding {
    /** What a PE is bound to. */
    enum Target { CORE, NONE }

    /**
     * The parsed options.
     *
     * @param target    core or none
     * @param explicit  whether --bind-to was given (then a job that does not fit is an error, not a fallback)
     * @param cpusPerPe CPUs per PE (--map-by ...:PE=N)
     * @param byNode    ranks go round-robin over the hosts (--map-by node) instead of filling each host's slots
     */
    record Policy(Target target, boolean explicit, int cpusPerPe, boolean byNode) {
    }

    private Binding() {
    }

    /**
     * Parses {@code --bind-to} (null: not given) and {@code --map-by} (null: slot).
     *
     * @throws LaunchException for a value mpirun-like options do not know
     */
    static Policy parse(final String bindTo, final String mapBy) {
        final Target target;
        if (bindTo == null) {
            target = Target.CORE;
        } else {
            switch (bindTo.toLowerCase(Locale.ROOT)) {
                case "core", "cpu", "hwthread" -> target = Target.CORE;
                case "none" -> target = Target.NONE;
                default -> throw new LaunchException("--bind-to " + bindTo + ": expected core or none");
            }
        }
        boolean byNode = false;
        int perPe = 1;
        if (mapBy != null) {
            final String[] parts = mapBy.split(":", -1);
            switch (parts[0].toLowerCase(Locale.ROOT)) {
                case "slot", "core", "" -> byNode = false;
                case "node" -> byNode = true;
                default -> throw new LaunchException("--map-by " + mapBy + ": expected slot, core or node, "
                    + "optionally followed by :PE=N");
            }
            for (int i = 1; i < parts.length; i++) {
                final String mod = parts[i];
                if (!mod.regionMatches(true, 0, "PE=", 0, 3)) {
                    throw new LaunchException("--map-by " + mapBy + ": unknown modifier '" + mod + "' (known: PE=N)");
                }
                try {
                    perPe = Integer.parseInt(mod.substring(3));
                } catch (final NumberFormatException e) {
                    throw new LaunchException("--map-by " + mapBy + ": PE= takes a number of CPUs per PE", e);
                }
                if (perPe < 1) {
                    throw new LaunchException("--map-by " + mapBy + ": PE= must be at least 1");
                }
            }
        }
        return new Policy(target, bindTo != null, perPe, byNode);
    }

    /**
     * The CPUs of each placement, in rank order: null for a PE left unbound (a remote one, or all of them
     * when binding is off or, without an explicit --bind-to, when this machine's PEs do not fit).
     *
     * @param allowed       the CPUs the launcher may run on, ascending
     * @param oversubscribe with an explicit core binding, PEs beyond the CPUs wrap around instead of failing
     * @throws LaunchException when binding was asked for and this machine's PEs do not fit its CPUs
     */
    static List<int[]> assign(final List<HostList.Placement> placements, final int[] allowed, final Policy policy,
                              final boolean oversubscribe) {
        final List<int[]> out = new ArrayList<>(placements.size());
        final int local = (int) placements.stream().filter(HostList.Placement::local).count();
        final long needed = (long) local * policy.cpusPerPe();
        boolean bind = policy.target() == Target.CORE && local > 0 && allowed.length > 0;
        if (bind && needed > allowed.length) {
            if (policy.explicit() && !oversubscribe) {
                throw new LaunchException("--bind-to core: " + local + " PE(s) of " + policy.cpusPerPe()
                    + " CPU(s) each do not fit the " + allowed.length + " CPU(s) this machine lets the launcher use ("
                    + ranges(allowed) + "); pass --bind-to none, or --oversubscribe to share CPUs");
            }
            bind = policy.explicit(); // explicit + --oversubscribe: wrap around; default: no binding
        }
        int localIndex = 0;
        for (final HostList.Placement p : placements) {
            if (!bind || !p.local()) {
                out.add(null);
                continue;
            }
            final int[] cpus = new int[Math.min(policy.cpusPerPe(), allowed.length)];
            for (int i = 0; i < cpus.length; i++) {
                cpus[i] = allowed[(int) (((long) localIndex * policy.cpusPerPe() + i) % allowed.length)];
            }
            Arrays.sort(cpus);
            out.add(cpus);
            localIndex++;
        }
        return out;
    }

    /** A CPU list in the kernel's list format ("0-3,6"), as /proc/self/status's Cpus_allowed_list. */
    static String ranges(final int[] cpus) {
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < cpus.length; i++) {
            int j = i;
            while (j + 1 < cpus.length && cpus[j + 1] == cpus[j] + 1) {
                j++;
            }
            if (!sb.isEmpty()) {
                sb.append(',');
            }
            sb.append(cpus[i]);
            if (j > i) {
                sb.append('-').append(cpus[j]);
            }
            i = j;
        }
        return sb.toString();
    }
}
