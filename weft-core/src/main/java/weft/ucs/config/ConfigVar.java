package weft.ucs.config;

/**
 * One tunable: read from the environment as {@code WEFT_<NAME>} or from the system property
 * {@code weft.<name>} (lower case; the property wins), typed and validated.
 *
 * <pre>{@code
 * static final ConfigVar<Long> SEG_SIZE =
 *     ConfigVar.of("SHM_SEG_SIZE", ConfigType.SIZE, "8k", "Size of a medium-message buffer.");
 * long seg = Config.global().get(SEG_SIZE);
 * }</pre>
 *
 * @param name        the name without prefix, upper case, e.g. {@code SHM_FIFO_SIZE}
 * @param type        the parser
 * @param defaultText the default, in the syntax the parser reads
 * @param doc         one line of documentation
 * @param <T>         the value type
 */
public record ConfigVar<T>(String name, ConfigType<T> type, String defaultText, String doc) {

    public ConfigVar {
        if (!name.matches("[A-Z][A-Z0-9_]*")) {
            throw new IllegalArgumentException("config variable names are UPPER_SNAKE: " + name);
        }
        type.parse(defaultText); // a bad default is a programming error: fail at class init
    }

    public static <T> ConfigVar<T> of(final String name, final ConfigType<T> type, final String def,
                                      final String doc) {
        return new ConfigVar<>(name, type, def, doc);
    }

    /** {@code WEFT_<NAME>}. */
    public String envName() {
        return "WEFT_" + name;
    }

    /** {@code weft.<name>} in lower case. */
    public String propertyName() {
        return "weft." + name.toLowerCase(java.util.Locale.ROOT);
    }

    /** Parses the default value. */
    public T defaultValue() {
        return type.parse(defaultText);
    }
}
