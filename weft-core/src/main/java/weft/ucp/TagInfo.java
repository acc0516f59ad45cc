package weft.ucp;

/**
 * What a tag receive or probe learned about the message: the sender's tag and the sender's length
 * (which is larger than what was written when the receive completed with
 * {@link weft.ucs.Status#MESSAGE_TRUNCATED}). Caller-owned and reusable, so that a receive that
 * completes at once can report without allocating a request.
 */
public final class TagInfo {
    long senderTag;
    long length;

    /** An empty holder, filled when a receive completes. */
    public TagInfo() {
    }

    /** The tag the sender used. */
    public long senderTag() {
        return senderTag;
    }

    /** The number of bytes the sender sent. */
    public long length() {
        return length;
    }

    void set(final long tag, final long len) {
        senderTag = tag;
        length = len;
    }

    @Override
    public String toString() {
        return "TagInfo[tag=0x" + Long.toHexString(senderTag) + ", length=" + length + "]";
    }
}
