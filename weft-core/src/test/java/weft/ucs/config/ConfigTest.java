package weft.ucs.config;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import weft.ucs.Status;
import weft.ucs.WeftException;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConfigTest {
    private static final ConfigVar<Long> SIZE = ConfigVar.of("TEST_CFG_SIZE", ConfigType.SIZE, "8k", "a size");
    private static final ConfigVar<Long> TIME = ConfigVar.of("TEST_CFG_TIME", ConfigType.TIME, "10ms", "a time");

    @AfterEach
    void clearProperties() {
        System.clearProperty("weft.test_cfg_size");
    }

    @Test
    void shouldNameTheVariables() {
        assertEquals("WEFT_TEST_CFG_SIZE", SIZE.envName());
        assertEquals("weft.test_cfg_size", SIZE.propertyName());
        assertEquals(8192L, SIZE.defaultValue());
    }

    @Test
    void shouldFallBackToTheDefault() {
        final Config c = Config.fromMap(Map.of());
        assertEquals(8192L, c.get(SIZE));
        assertEquals("default", c.source(SIZE));
        assertEquals("8k", c.text(SIZE));
    }

    @Test
    void shouldReadTheEnvironment() {
        final Config c = Config.fromMap(Map.of("WEFT_TEST_CFG_SIZE", "16m", "TEST_CFG_SIZE", "1"));
        assertEquals(16L << 20, c.get(SIZE));
        assertEquals("env WEFT_TEST_CFG_SIZE", c.source(SIZE));
    }

    @Test
    void shouldPreferOverridesToTheEnvironment() {
        final Config env = Config.fromMap(Map.of("WEFT_TEST_CFG_SIZE", "16m"));
        final Config c = env.with("TEST_CFG_SIZE", "4096");
        assertEquals(4096L, c.get(SIZE));
        assertEquals("override", c.source(SIZE));
        assertEquals(16L << 20, env.get(SIZE), "with() returns a new view and leaves the old one alone");
        assertEquals(5000L, c.with("TEST_CFG_TIME", "5us").get(TIME));
        assertEquals(10_000_000L, c.get(TIME));
    }

    @Test
    void shouldPreferSystemPropertiesToTheDefaultAndOverridesToProperties() {
        System.setProperty("weft.test_cfg_size", "2k");
        assertEquals(2048L, Config.global().get(SIZE));
        assertEquals("property weft.test_cfg_size", Config.global().source(SIZE));
        assertEquals(1L << 30, Config.global().with("TEST_CFG_SIZE", "1g").get(SIZE));
        System.clearProperty("weft.test_cfg_size");
        assertEquals(8192L, Config.global().get(SIZE));
    }

    @Test
    void shouldExplainABadValue() {
        final Config c = Config.fromMap(Map.of("WEFT_TEST_CFG_SIZE", "12parsecs"));
        final WeftException e = assertThrows(WeftException.class, () -> c.get(SIZE));
        assertEquals(Status.INVALID_PARAM, e.status());
        final String m = e.getMessage();
        assertTrue(m.contains("WEFT_TEST_CFG_SIZE"), m);
        assertTrue(m.contains("12parsecs"), m);
        assertTrue(m.contains(ConfigType.SIZE.accepted()), m);
        assertTrue(m.contains("env"), "says where the value came from: " + m);
        final WeftException t = assertThrows(WeftException.class, () -> c.with("TEST_CFG_TIME", "soon").get(TIME));
        assertTrue(t.getMessage().contains("WEFT_TEST_CFG_TIME") && t.getMessage().contains("soon")
            && t.getMessage().contains(ConfigType.TIME.accepted()), t.getMessage());
    }

    @Test
    void shouldRejectBadDeclarations() {
        assertThrows(IllegalArgumentException.class, () -> ConfigVar.of("lower", ConfigType.INT, "1", "d"));
        assertThrows(IllegalArgumentException.class, () -> ConfigVar.of("X-Y", ConfigType.INT, "1", "d"));
        assertThrows(IllegalArgumentException.class, () -> ConfigVar.of("BAD_DEFAULT", ConfigType.INT, "one", "d"));
    }

    @Test
    void shouldRegisterEachNameOnce() {
        final ConfigVar<Integer> v = ConfigRegistry.register("TEST_REG_ONCE", ConfigType.INT, "3", "doc");
        assertTrue(ConfigRegistry.all().contains(v));
        // the same declaration again (e.g. from a second class loader pass) is accepted
        assertEquals(v, ConfigRegistry.register(ConfigVar.of("TEST_REG_ONCE", ConfigType.INT, "3", "doc")));
        // a conflicting declaration of the same name is a programming error
        assertThrows(IllegalStateException.class,
            () -> ConfigRegistry.register("TEST_REG_ONCE", ConfigType.INT, "4", "doc"));
        assertThrows(IllegalStateException.class,
            () -> ConfigRegistry.register("TEST_REG_ONCE", ConfigType.SIZE, "3", "doc"));
        final List<ConfigVar<?>> all = ConfigRegistry.all();
        assertEquals(1, all.stream().filter(x -> x.name().equals("TEST_REG_ONCE")).count());
        for (int i = 1; i < all.size(); i++) {
            assertTrue(all.get(i - 1).name().compareTo(all.get(i).name()) < 0, "sorted by name");
        }
        assertThrows(UnsupportedOperationException.class, () -> all.add(v));
    }
}
