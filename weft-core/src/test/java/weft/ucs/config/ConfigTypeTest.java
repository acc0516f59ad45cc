package weft.ucs.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ConfigTypeTest {
    @ParameterizedTest
    @CsvSource({
        "4096, 4096",
        "0, 0",
        "8k, 8192",
        "8K, 8192",
        "8kb, 8192",
        "16m, 16777216",
        "1g, 1073741824",
        "1.5g, 1610612736",
        "2t, 2199023255552",
        "' 64k ', 65536",
        "inf, 9223372036854775807",
        "INFINITY, 9223372036854775807",
        "0.5k, 512",
        "1.0001k, 1025"})
    void shouldParseSizes(final String text, final long expected) {
        assertEquals(expected, ConfigType.SIZE.parse(text));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "k", "8q", "8 kk", "8kk", "-1", "-4k", "abc", "1e30t", "0x10", "nan"})
    void shouldRejectBadSizes(final String text) {
        assertThrows(IllegalArgumentException.class, () -> ConfigType.SIZE.parse(text), text);
    }

    @Test
    void shouldFormatSizesSoTheyParseBack() {
        for (final long v : new long[] {0, 1, 1000, 4096, 8192, 1 << 20, 3L << 30, 12345, Long.MAX_VALUE}) {
            assertEquals(v, ConfigType.SIZE.parse(ConfigType.SIZE.format(v)), "value " + v);
        }
        assertEquals("8k", ConfigType.SIZE.format(8192L));
        assertEquals("16m", ConfigType.SIZE.format(16L << 20));
        assertEquals("inf", ConfigType.SIZE.format(Long.MAX_VALUE));
    }

    @ParameterizedTest
    @CsvSource({
        "80ns, 80",
        "5us, 5000",
        "10ms, 10000000",
        "2s, 2000000000",
        "2, 2000000000",
        "1.5us, 1500",
        "1m, 60000000000",
        "1min, 60000000000",
        "' 3MS ', 3000000",
        "inf, 9223372036854775807"})
    void shouldParseTimes(final String text, final long expectedNs) {
        assertEquals(expectedNs, ConfigType.TIME.parse(text));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "ms", "5h", "5 ms", "-1s", "1.2.3s", "fast", "10sec"})
    void shouldRejectBadTimes(final String text) {
        assertThrows(IllegalArgumentException.class, () -> ConfigType.TIME.parse(text), text);
    }

    @Test
    void shouldFormatTimesSoTheyParseBack() {
        for (final long v : new long[] {0, 80, 5000, 10_000_000, 2_000_000_000, 1234, Long.MAX_VALUE}) {
            assertEquals(v, ConfigType.TIME.parse(ConfigType.TIME.format(v)), "value " + v);
        }
        assertEquals("5us", ConfigType.TIME.format(5000L));
    }

    @Test
    void shouldParseBooleans() {
        for (final String t : new String[] {"y", "yes", "true", "on", "1", "YES", " On "}) {
            assertEquals(true, ConfigType.BOOL.parse(t), t);
        }
        for (final String f : new String[] {"n", "no", "false", "off", "0", "FALSE"}) {
            assertEquals(false, ConfigType.BOOL.parse(f), f);
        }
        for (final String bad : new String[] {"", "2", "yep", "maybe", "nope"}) {
            assertThrows(IllegalArgumentException.class, () -> ConfigType.BOOL.parse(bad), bad);
        }
        assertEquals("y", ConfigType.BOOL.format(true));
        assertEquals("n", ConfigType.BOOL.format(false));
    }

    @Test
    void shouldParseLists() {
        assertEquals(List.of("shm", "tcp"), ConfigType.LIST.parse("shm,tcp"));
        assertEquals(List.of("shm", "tcp"), ConfigType.LIST.parse(" shm , ,tcp, "));
        assertEquals(List.of(), ConfigType.LIST.parse(""));
        assertEquals(List.of("^cma"), ConfigType.LIST.parse("^cma"));
        assertEquals("a,b", ConfigType.LIST.format(List.of("a", "b")));
        assertThrows(UnsupportedOperationException.class, () -> ConfigType.LIST.parse("a").add("b"));
    }

    @Test
    void shouldParsePowersOfTwo() {
        assertEquals(2, ConfigType.POW2.parse("2"));
        assertEquals(256, ConfigType.POW2.parse(" 256 "));
        assertEquals(1 << 30, ConfigType.POW2.parse(Integer.toString(1 << 30)));
        for (final String bad : new String[] {"0", "1", "3", "-2", "96", "x", "4k", ""}) {
            assertThrows(IllegalArgumentException.class, () -> ConfigType.POW2.parse(bad), bad);
        }
    }

    @Test
    void shouldParseNumbersAndWords() {
        assertEquals(-7, ConfigType.INT.parse(" -7 "));
        assertThrows(IllegalArgumentException.class, () -> ConfigType.INT.parse("1.5"));
        assertEquals(0.25, ConfigType.DOUBLE.parse("0.25"));
        assertThrows(IllegalArgumentException.class, () -> ConfigType.DOUBLE.parse("NaN"));
        assertEquals(" x ", ConfigType.STRING.parse(" x "));
        final ConfigType<String> mode = ConfigType.oneOf("poll", "sleep");
        assertEquals("sleep", mode.parse(" SLEEP "));
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> mode.parse("spin"));
        assertEquals("one of poll, sleep", mode.accepted());
        assertEquals("not one of poll, sleep", e.getMessage());
    }
}
