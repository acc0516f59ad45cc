package weft.runtime;

import weft.ucs.Status;
import weft.ucs.WeftException;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One PMI-2 command or response as it travels after its length prefix: {@code cmd=NAME;key=value;...;}.
 * Keys are plain words; a value runs to the next {@code ;}, and a {@code ;} inside a value is written
 * doubled ({@code ;;}, the PMI-2 wire protocol's escape; Slurm's server neither sends nor accepts it,
 * so Weft never puts one in a value it sends). {@link #parse} turns anything else into an error that
 * quotes the text.
 *
 * @param cmd    the command, e.g. {@code kvs-put} or {@code kvs-get-response}
 * @param fields the other key-value pairs in wire order (the first of a repeated key wins)
 */
record Pmi2Message(String cmd, Map<String, String> fields) {
    /** Longest text quoted in an error message. */
    private static final int QUOTE_MAX = 200;

    Pmi2Message {
        fields = Collections.unmodifiableMap(new LinkedHashMap<>(fields));
    }

    /** A message from alternating keys and values. */
    static Pmi2Message of(final String cmd, final String... keysAndValues) {
        if (keysAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("keys and values must pair up");
        }
        final Map<String, String> f = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            f.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return new Pmi2Message(cmd, f);
    }

    /** The wire text; keys and values must not contain {@code ;} (nor keys {@code =}). */
    String encode() {
        final StringBuilder sb = new StringBuilder("cmd=").append(word(cmd)).append(';');
        fields.forEach((k, v) -> {
            if (v.indexOf(';') >= 0 || v.indexOf('\n') >= 0) {
                throw new IllegalArgumentException("PMI-2 value of " + k + " contains ';' or a newline");
            }
            sb.append(word(k)).append('=').append(v).append(';');
        });
        return sb.toString();
    }

    private static String word(final String w) {
        if (w.isEmpty() || w.indexOf(';') >= 0 || w.indexOf('=') >= 0 || w.indexOf('\n') >= 0) {
            throw new IllegalArgumentException("not a PMI-2 key: '" + w + "'");
        }
        return w;
    }

    /**
     * Parses the text of one message.
     *
     * @param origin where it came from, for the error message (e.g. {@code PMI_FD=11})
     * @throws WeftException IO_ERROR naming what is malformed
     */
    static Pmi2Message parse(final String text, final String origin) {
        final Map<String, String> f = new LinkedHashMap<>();
        String cmd = null;
        int i = 0;
        final int n = text.length();
        while (i < n) {
            final int eq = text.indexOf('=', i);
            final int semi = text.indexOf(';', i);
            if (eq < 0 || (semi >= 0 && semi < eq)) {
                throw malformed(origin, "a field without '='", text);
            }
            final String key = text.substring(i, eq);
            if (key.isEmpty()) {
                throw malformed(origin, "an empty key", text);
            }
            final StringBuilder value = new StringBuilder();
            int j = eq + 1;
            while (true) {
                if (j >= n) {
                    throw malformed(origin, "a value not ended by ';'", text);
                }
                final char c = text.charAt(j);
                if (c == ';') {
                    if (j + 1 < n && text.charAt(j + 1) == ';') { // escaped ';'
                        value.append(';');
                        j += 2;
                        continue;
                    }
                    break;
                }
                value.append(c);
                j++;
            }
            if (cmd == null) {
                if (!key.equals("cmd")) {
                    throw malformed(origin, "no 'cmd=' at its start", text);
                }
                cmd = value.toString();
            } else {
                f.putIfAbsent(key, value.toString());
            }
            i = j + 1;
        }
        if (cmd == null || cmd.isEmpty()) {
            throw malformed(origin, "no command", text);
        }
        return new Pmi2Message(cmd, f);
    }

    /** The value of {@code key}, or null. */
    String get(final String key) {
        return fields.get(key);
    }

    /**
     * The integer value of {@code key}.
     *
     * @throws WeftException IO_ERROR when it is missing or not an integer
     */
    int intField(final String key, final String origin) {
        final String v = fields.get(key);
        if (v == null) {
            throw new WeftException(Status.IO_ERROR, "PMI-2: the process manager's " + cmd + " on " + origin
                + " has no " + key);
        }
        try {
            return Integer.parseInt(v.trim());
        } catch (final NumberFormatException e) {
            throw new WeftException(Status.IO_ERROR, "PMI-2: the process manager's " + cmd + " on " + origin
                + " has a non-numeric " + key + "='" + quote(v) + "'");
        }
    }

    /** True when {@code key} is {@code TRUE} (any case), as PMI-2's booleans are written. */
    boolean flag(final String key) {
        return "TRUE".equalsIgnoreCase(fields.get(key));
    }

    /**
     * Checks that this is the response {@code expected} with {@code rc=0}.
     *
     * @throws WeftException IO_ERROR for another command or a non-zero rc (with the server's errmsg)
     */
    Pmi2Message expect(final String expected, final String origin) {
        if (!cmd.equals(expected)) {
            throw new WeftException(Status.IO_ERROR, "PMI-2: expected " + expected + " from the process manager on "
                + origin + ", got '" + quote(encodeLoosely()) + "'");
        }
        if (intField("rc", origin) != 0) {
            final String why = fields.get("errmsg");
            throw new WeftException(Status.IO_ERROR, "PMI-2: the process manager on " + origin + " answered " + cmd
                + " with rc=" + fields.get("rc") + (why == null ? "" : ": " + quote(why)));
        }
        return this;
    }

    private String encodeLoosely() {
        final StringBuilder sb = new StringBuilder("cmd=").append(cmd).append(';');
        fields.forEach((k, v) -> sb.append(k).append('=').append(v).append(';'));
        return sb.toString();
    }

    static WeftException malformed(final String origin, final String what, final String text) {
        return new WeftException(Status.IO_ERROR, "PMI-2: malformed message from the process manager on " + origin
            + ": " + what + " in '" + quote(text) + "'");
    }

    /** {@code text} cut to a readable length, control characters shown as '?'. */
    static String quote(final String text) {
        final String t = text.length() > QUOTE_MAX ? text.substring(0, QUOTE_MAX) + "..." : text;
        final StringBuilder sb = new StringBuilder(t.length());
        for (int i = 0; i < t.length(); i++) {
            final char c = t.charAt(i);
            sb.append(c < 0x20 || c == 0x7f ? '?' : c);
        }
        return sb.toString();
    }
}
