package weft.tools.run;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The --bind-to / --map-by options and the CPUs they give each PE (pure logic; BindingJobTest runs PEs). */
class BindingTest {
    private static List<HostList.Placement> local(final int n) {
        return HostList.place(n, List.of(new HostList.Host("localhost", n)), false);
    }

    @Test
    void parsesTheOptions() {
        final Binding.Policy d = Binding.parse(null, null);
        assertEquals(Binding.Target.CORE, d.target());
        assertFalse(d.explicit());
        assertEquals(1, d.cpusPerPe());
        assertFalse(d.byNode());
        assertEquals(Binding.Target.NONE, Binding.parse("none", null).target());
        assertTrue(Binding.parse("core", null).explicit());
        assertTrue(Binding.parse(null, "node").byNode());
        assertEquals(2, Binding.parse(null, "core:PE=2").cpusPerPe());
        assertEquals(3, Binding.parse(null, "slot:pe=3").cpusPerPe());
    }

    @Test
    void rejectsBadValuesClearly() {
        assertTrue(assertThrows(LaunchException.class, () -> Binding.parse("socket", null)).getMessage()
            .contains("--bind-to socket: expected core or none"));
        assertTrue(assertThrows(LaunchException.class, () -> Binding.parse(null, "ppr")).getMessage()
            .contains("--map-by ppr"));
        assertTrue(assertThrows(LaunchException.class, () -> Binding.parse(null, "core:PE=0")).getMessage()
            .contains("at least 1"));
        assertTrue(assertThrows(LaunchException.class, () -> Binding.parse(null, "core:PE=x")).getMessage()
            .contains("number of CPUs"));
        assertTrue(assertThrows(LaunchException.class, () -> Binding.parse(null, "core:span")).getMessage()
            .contains("unknown modifier"));
    }

    @Test
    void eachPeGetsItsOwnCpuInOrder() {
        final List<int[]> c = Binding.assign(local(3), new int[] {2, 3, 5, 7}, Binding.parse(null, null), false);
        assertArrayEquals(new int[] {2}, c.get(0));
        assertArrayEquals(new int[] {3}, c.get(1));
        assertArrayEquals(new int[] {5}, c.get(2));
    }

    @Test
    void pePerCpuGroups() {
        final List<int[]> c = Binding.assign(local(2), new int[] {0, 1, 2, 3}, Binding.parse("core", "core:PE=2"),
            false);
        assertArrayEquals(new int[] {0, 1}, c.get(0));
        assertArrayEquals(new int[] {2, 3}, c.get(1));
    }

    @Test
    void byDefaultTooManyPesAreLeftUnbound() {
        final List<int[]> c = Binding.assign(local(3), new int[] {0, 1}, Binding.parse(null, null), false);
        assertTrue(c.stream().allMatch(x -> x == null));
    }

    @Test
    void explicitCoreBindingThatDoesNotFitIsAnError() {
        final LaunchException e = assertThrows(LaunchException.class,
            () -> Binding.assign(local(3), new int[] {0, 1}, Binding.parse("core", null), false));
        assertTrue(e.getMessage().contains("do not fit the 2 CPU(s)"), e.getMessage());
        assertTrue(e.getMessage().contains("--bind-to none"), e.getMessage());
    }

    @Test
    void explicitCoreBindingWithOversubscribeWraps() {
        final List<int[]> c = Binding.assign(local(3), new int[] {0, 1}, Binding.parse("core", null), true);
        assertArrayEquals(new int[] {0}, c.get(0));
        assertArrayEquals(new int[] {1}, c.get(1));
        assertArrayEquals(new int[] {0}, c.get(2));
    }

    @Test
    void noneBindsNothing() {
        assertTrue(Binding.assign(local(2), new int[] {0, 1}, Binding.parse("none", null), false).stream()
            .allMatch(x -> x == null));
    }

    @Test
    void remotePesAreNotBoundHereAndDoNotCount() {
        final List<HostList.Placement> p = List.of(new HostList.Placement(0, "localhost", 0, 0, 1, true),
            new HostList.Placement(1, "far", 1, 0, 2, false), new HostList.Placement(2, "far", 1, 1, 2, false));
        final List<int[]> c = Binding.assign(p, new int[] {4}, Binding.parse("core", null), false);
        assertArrayEquals(new int[] {4}, c.get(0));
        assertNull(c.get(1));
        assertNull(c.get(2));
    }

    @Test
    void rangesAsTheKernelWritesThem() {
        assertEquals("0", Binding.ranges(new int[] {0}));
        assertEquals("0-3,6,8-9", Binding.ranges(new int[] {0, 1, 2, 3, 6, 8, 9}));
        assertEquals("", Binding.ranges(new int[0]));
    }

    @Test
    void mapByNodeGoesRoundRobin() {
        final List<HostList.Host> hosts = List.of(new HostList.Host("a", 2), new HostList.Host("b", 2));
        final List<HostList.Placement> bySlot = HostList.place(4, hosts, false, false);
        final List<HostList.Placement> byNode = HostList.place(4, hosts, false, true);
        assertEquals(List.of("a", "a", "b", "b"), bySlot.stream().map(HostList.Placement::host).toList());
        assertEquals(List.of("a", "b", "a", "b"), byNode.stream().map(HostList.Placement::host).toList());
        assertEquals(List.of(0, 0, 1, 1), byNode.stream().map(HostList.Placement::localRank).toList());
    }

    @Test
    void mapByNodeSkipsFullHosts() {
        final List<HostList.Host> hosts = List.of(new HostList.Host("a", 3), new HostList.Host("b", 1));
        assertEquals(List.of("a", "b", "a", "a"),
            HostList.place(4, hosts, false, true).stream().map(HostList.Placement::host).toList());
    }
}
