package weft.ucs.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * Parsers for the typed values of configuration variables. Each parser throws
 * {@link IllegalArgumentException} with a description of what is accepted.
 *
 * @param <T> the Java type of the parsed value
 */
public abstract class ConfigType<T> {
    private final String accepted;

    private ConfigType(final String accepted) {
        this.accepted = accepted;
    }

    /** A human description of the accepted syntax, used in error messages. */
    public String accepted() {
        return accepted;
    }

    /** Parses {@code text}, throwing IllegalArgumentException on bad input. */
    public abstract T parse(String text);

    /** Formats a value the way {@link #parse} reads it back. */
    public String format(final T value) {
        return String.valueOf(value);
    }

    /** A size as {@link #SIZE}, or {@code auto} (returned as -1: the library computes the value). */
    public static final ConfigType<Long> SIZE_OR_AUTO = orAuto("a size such as 4096, 8k, 16m or inf", () -> ConfigType.SIZE);

    /** A time as {@link #TIME}, or {@code auto} (returned as -1: the library computes the value). */
    public static final ConfigType<Long> TIME_OR_AUTO = orAuto("a time such as 5us, 10ms or inf", () -> ConfigType.TIME);

    /** A count as {@link #INT} (at least 0), or {@code auto} (returned as -1: the library computes the value). */
    public static final ConfigType<Integer> COUNT_OR_AUTO = new ConfigType<>("auto, or a count such as 16") {
        @Override
        public Integer parse(final String text) {
            if (text.trim().equalsIgnoreCase("auto")) {
                return -1;
            }
            final int n = INT.parse(text);
            if (n < 0) {
                throw new IllegalArgumentException("a count cannot be negative: " + text.trim());
            }
            return n;
        }

        @Override
        public String format(final Integer value) {
            return value < 0 ? "auto" : String.valueOf(value);
        }
    };

    /** {@code auto} (-1) or a value of {@code base} (a supplier: the base constants are declared further down). */
    private static ConfigType<Long> orAuto(final String what, final java.util.function.Supplier<ConfigType<Long>> base) {
        return new ConfigType<>("auto, or " + what) {
            @Override
            public Long parse(final String text) {
                return text.trim().equalsIgnoreCase("auto") ? -1L : base.get().parse(text);
            }

            @Override
            public String format(final Long value) {
                return value < 0 ? "auto" : base.get().format(value);
            }
        };
    }

    /** Byte sizes: {@code 4096}, {@code 8k}, {@code 16m}, {@code 1g}, {@code inf} (Long.MAX_VALUE). */
    public static final ConfigType<Long> SIZE = new ConfigType<>("a size such as 4096, 8k, 16m, 2g or inf") {
        @Override
        public Long parse(final String text) {
            String s = text.trim().toLowerCase(Locale.ROOT);
            if (s.equals("inf") || s.equals("infinity")) {
                return Long.MAX_VALUE;
            }
            if (s.endsWith("b")) {
                s = s.substring(0, s.length() - 1);
            }
            long mult = 1;
            if (!s.isEmpty() && Character.isLetter(s.charAt(s.length() - 1))) {
                mult = switch (s.charAt(s.length() - 1)) {
                    case 'k' -> 1L << 10;
                    case 'm' -> 1L << 20;
                    case 'g' -> 1L << 30;
                    case 't' -> 1L << 40;
                    default -> throw new IllegalArgumentException("unknown size unit '" + s.charAt(s.length() - 1) + "'");
                };
                s = s.substring(0, s.length() - 1);
            }
            if (s.isEmpty()) {
                throw new IllegalArgumentException("missing number");
            }
            final double v = Double.parseDouble(s) * mult;
            if (!(v >= 0) || v > Long.MAX_VALUE) {
                throw new IllegalArgumentException("out of range");
            }
            return (long) Math.ceil(v);
        }

        @Override
        public String format(final Long v) {
            if (v == Long.MAX_VALUE) {
                return "inf";
            }
            if (v != 0 && v % (1L << 30) == 0) {
                return (v >> 30) + "g";
            }
            if (v != 0 && v % (1L << 20) == 0) {
                return (v >> 20) + "m";
            }
            if (v != 0 && v % (1L << 10) == 0) {
                return (v >> 10) + "k";
            }
            return Long.toString(v);
        }
    };

    /** Durations in nanoseconds: {@code 80ns}, {@code 5us}, {@code 10ms}, {@code 2s}, {@code 1m}, {@code inf}. */
    public static final ConfigType<Long> TIME = new ConfigType<>("a time such as 80ns, 5us, 10ms, 2s, 1m or inf") {
        @Override
        public Long parse(final String text) {
            final String s = text.trim().toLowerCase(Locale.ROOT);
            if (s.equals("inf")) {
                return Long.MAX_VALUE;
            }
            final String unit = s.replaceAll("^[0-9.]+", "");
            final String num = s.substring(0, s.length() - unit.length());
            if (num.isEmpty()) {
                throw new IllegalArgumentException("missing number");
            }
            final double mult = switch (unit) {
                case "ns" -> 1;
                case "us" -> 1e3;
                case "ms" -> 1e6;
                case "s", "" -> 1e9;
                case "m", "min" -> 60e9;
                default -> throw new IllegalArgumentException("unknown time unit '" + unit + "'");
            };
            final double v = Double.parseDouble(num) * mult;
            if (v < 0 || v > Long.MAX_VALUE) {
                throw new IllegalArgumentException("out of range");
            }
            return (long) v;
        }

        @Override
        public String format(final Long v) {
            if (v == Long.MAX_VALUE) {
                return "inf";
            }
            if (v % 1_000_000_000L == 0) {
                return (v / 1_000_000_000L) + "s";
            }
            if (v % 1_000_000L == 0) {
                return (v / 1_000_000L) + "ms";
            }
            if (v % 1_000L == 0) {
                return (v / 1_000L) + "us";
            }
            return v + "ns";
        }
    };

    /** Booleans: y/yes/true/on/1 and n/no/false/off/0. */
    public static final ConfigType<Boolean> BOOL = new ConfigType<>("y, yes, true, on, 1 or n, no, false, off, 0") {
        @Override
        public Boolean parse(final String text) {
            return switch (text.trim().toLowerCase(Locale.ROOT)) {
                case "y", "yes", "true", "on", "1" -> true;
                case "n", "no", "false", "off", "0" -> false;
                default -> throw new IllegalArgumentException("not a boolean");
            };
        }

        @Override
        public String format(final Boolean v) {
            return v ? "y" : "n";
        }
    };

    /** Integers (decimal). */
    public static final ConfigType<Integer> INT = new ConfigType<>("an integer") {
        @Override
        public Integer parse(final String text) {
            return Integer.parseInt(text.trim());
        }
    };

    /** Floating point numbers. */
    public static final ConfigType<Double> DOUBLE = new ConfigType<>("a number such as 0.5") {
        @Override
        public Double parse(final String text) {
            final double d = Double.parseDouble(text.trim());
            if (Double.isNaN(d)) {
                throw new IllegalArgumentException("NaN");
            }
            return d;
        }
    };

    /** Free text. */
    public static final ConfigType<String> STRING = new ConfigType<>("any text") {
        @Override
        public String parse(final String text) {
            return text;
        }
    };

    /** Comma separated lists such as {@code shm,tcp}; empty text is the empty list. */
    public static final ConfigType<List<String>> LIST = new ConfigType<>("a comma separated list such as shm,tcp") {
        @Override
        public List<String> parse(final String text) {
            final List<String> out = new ArrayList<>();
            for (final String part : text.split(",")) {
                final String p = part.trim();
                if (!p.isEmpty()) {
                    out.add(p);
                }
            }
            return Collections.unmodifiableList(out);
        }

        @Override
        public String format(final List<String> v) {
            return String.join(",", v);
        }
    };

    /** An integer that must be a power of two, at least 2. */
    public static final ConfigType<Integer> POW2 = new ConfigType<>("a power of two >= 2, such as 256") {
        @Override
        public Integer parse(final String text) {
            final int v = Integer.parseInt(text.trim());
            if (v < 2 || Integer.bitCount(v) != 1) {
                throw new IllegalArgumentException("not a power of two >= 2");
            }
            return v;
        }
    };

    /** One of a fixed set of words (case-insensitive). */
    public static ConfigType<String> oneOf(final String... words) {
        final String acc = "one of " + String.join(", ", words);
        return new ConfigType<>(acc) {
            @Override
            public String parse(final String text) {
                final String t = text.trim().toLowerCase(Locale.ROOT);
                for (final String w : words) {
                    if (w.equals(t)) {
                        return w;
                    }
                }
                throw new IllegalArgumentException("not " + acc);
            }
        };
    }
}
