package weft.ucs.config;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Coverage-guided fuzzing of every {@link ConfigType} parser (configuration values come from the
 * environment and from launchers, which may pass another process's text on). A parser may only return a
 * value or throw {@link IllegalArgumentException} (its declared exception, NumberFormatException
 * included); a value it returns formats to text that parses back to the same value; sizes and times are
 * never negative (apart from the -1 of SIZE_OR_AUTO's and COUNT_OR_AUTO's auto). Through {@link Config}, a bad value is a
 * {@link weft.ucs.WeftException}.
 */
class ConfigTypeFuzzTest {
    private static final List<ConfigType<?>> TYPES = List.of(ConfigType.SIZE, ConfigType.SIZE_OR_AUTO,
        ConfigType.TIME, ConfigType.BOOL, ConfigType.INT, ConfigType.DOUBLE, ConfigType.STRING, ConfigType.LIST,
        ConfigType.POW2, ConfigType.oneOf("auto", "get", "put", "am"), ConfigType.COUNT_OR_AUTO);

    @FuzzTest(maxDuration = "2m")
    void parse(final FuzzedDataProvider data) {
        final int which = data.consumeInt(0, TYPES.size() - 1);
        final String text = data.consumeRemainingAsString();
        check(TYPES.get(which), text);
    }

    private static <T> void check(final ConfigType<T> type, final String text) {
        final T v;
        try {
            v = type.parse(text);
        } catch (final IllegalArgumentException e) {
            return; // declared: a bad value
        }
        if (type == ConfigType.SIZE || type == ConfigType.TIME) {
            assertTrue((Long) v >= 0, () -> "negative " + v + " from '" + text + "'");
        }
        if (type == ConfigType.SIZE_OR_AUTO) {
            assertTrue((Long) v >= -1, () -> "negative " + v + " from '" + text + "'");
        }
        if (type == ConfigType.COUNT_OR_AUTO) {
            assertTrue((Integer) v >= -1, () -> "negative " + v + " from '" + text + "'");
        }
        final String f = type.format(v);
        final T back;
        try {
            back = type.parse(f);
        } catch (final IllegalArgumentException e) {
            throw new AssertionError("'" + text + "' parsed to " + v + ", formatted as '" + f
                + "', which does not parse: " + e.getMessage(), e);
        }
        assertEquals(v, back, () -> "'" + text + "' -> " + v + " -> '" + f + "' -> " + back);
    }
}
