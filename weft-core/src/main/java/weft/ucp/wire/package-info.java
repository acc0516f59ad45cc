/**
 * The wire formats of the protocol layer ({@code weft.ucp}), one descriptor class per message: named
 * offsets, the header length, static accessors and an ASCII diagram, used by both the writer and the
 * reader so that no offset is written twice. Every reader first checks the message's length with the
 * descriptor's {@code fits}; what a field may hold (an endpoint that exists, an offset inside the message)
 * is the protocol's check. All fields are little endian.
 *
 * <p>An active message sent "am short" reaches its handler as {@code [u64 header][payload]}: the
 * descriptors of such messages give offsets in that received form, and their writers fill the payload
 * (offsets minus {@link weft.ucp.wire.ControlMessage#HEADER_LENGTH}).
 *
 * <p>Internal: the module does not export this package.
 */
package weft.ucp.wire;
