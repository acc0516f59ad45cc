package weft.runtime;

import weft.ucs.Status;
import weft.ucs.WeftException;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Pattern;

/**
 * How Weft's (rank, key, bytes) values fit PMI-2's key-value space: one space for the whole job, keys of
 * at most 64 characters, text values of at most 1024 characters without {@code ;}.
 *
 * <ul>
 *   <li>key: {@code weft.RANK.KEY} when KEY is at most 40 characters of {@code [A-Za-z0-9._-]}, else
 *       {@code weft.RANK.~} and 22 characters of the key's SHA-256 (base64url);</li>
 *   <li>value: base64url without padding, cut into pieces of {@value #PIECE} characters; the first piece
 *       goes under the key as {@code COUNT:PIECE}, piece i (from 1) under {@code KEY#i}.</li>
 * </ul>
 */
final class Pmi2Values {
    /** Characters of encoded value per key (PMI-2's limit is 1024 with the count in front). */
    static final int PIECE = 1000;
    /** Largest value accepted: far above any address or key blob. */
    static final int MAX_VALUE = 16 << 20;
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9._-]{1,40}");
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    private Pmi2Values() {
    }

    /** The PMI-2 key of {@code rank}'s value under {@code key}. */
    static String key(final int rank, final String key) {
        KvProtocol.keyBytes(key); // the same key rules as every bootstrap
        if (PLAIN.matcher(key).matches()) {
            return "weft." + rank + "." + key;
        }
        final byte[] h = weft.ucs.Sha256.of(key.getBytes(StandardCharsets.UTF_8));
        return "weft." + rank + ".~" + ENCODER.encodeToString(h).substring(0, 22);
    }

    /** The key of piece {@code i >= 1} of the value under {@code key}. */
    static String pieceKey(final String key, final int i) {
        return key + "#" + i;
    }

    /** {@code value} as the texts to store: the first under the key itself, then piece 1, 2, ... */
    static List<String> encode(final byte[] value) {
        if (value.length > MAX_VALUE) {
            throw new WeftException(Status.INVALID_PARAM, "bootstrap value of " + value.length + " bytes exceeds "
                + "the limit of " + MAX_VALUE + " bytes");
        }
        final String text = ENCODER.encodeToString(value);
        final int count = Math.max(1, (text.length() + PIECE - 1) / PIECE);
        final List<String> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            final String piece = text.substring(i * PIECE, Math.min(text.length(), (i + 1) * PIECE));
            out.add(i == 0 ? count + ":" + piece : piece);
        }
        return out;
    }

    /**
     * The number of pieces announced by a first piece.
     *
     * @throws WeftException IO_ERROR when it is not {@code COUNT:...}
     */
    static int count(final String first, final String key) {
        final int colon = first.indexOf(':');
        try {
            final int n = colon > 0 ? Integer.parseInt(first.substring(0, colon)) : -1;
            if (n >= 1 && n <= MAX_VALUE / PIECE + 1) {
                return n;
            }
        } catch (final NumberFormatException e) {
            // reported below
        }
        throw new WeftException(Status.IO_ERROR, "PMI-2: the value under '" + key + "' is not one Weft stored: '"
            + Pmi2Message.quote(first) + "'");
    }

    /** The bytes of a value from its pieces (the first with its count). */
    static byte[] decode(final List<String> pieces, final String key) {
        final StringBuilder sb = new StringBuilder();
        final String first = pieces.getFirst();
        sb.append(first, first.indexOf(':') + 1, first.length());
        for (int i = 1; i < pieces.size(); i++) {
            sb.append(pieces.get(i));
        }
        try {
            return DECODER.decode(sb.toString());
        } catch (final IllegalArgumentException e) {
            throw new WeftException(Status.IO_ERROR, "PMI-2: the value under '" + key + "' is not base64url: "
                + e.getMessage());
        }
    }
}
