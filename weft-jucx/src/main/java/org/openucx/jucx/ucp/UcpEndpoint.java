package org.openucx.jucx.ucp;

import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.UcxException;
import org.openucx.jucx.UcxNativeStruct;
import org.openucx.jucx.ucs.UcsConstants;
import weft.ucp.AmFlags;
import weft.ucp.CloseMode;
import weft.ucp.Endpoint;
import weft.ucp.Request;
import weft.ucs.Status;
import weft.ucs.WeftException;

import java.io.Closeable;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * A connection to a peer worker: tag messages, streams, active messages and one-sided put/get. Made from
 * a worker address, a listener's socket address or a connection request.
 *
 * <p>A socket-address endpoint is returned at once, as with JUCX: the connection is made in the background
 * (bounded by {@code WEFT_CONNECT_TIMEOUT}), operations posted meanwhile wait on the endpoint and go out in
 * order once the listener accepts, and a failed connection (nothing listens, the listener rejects) reaches
 * the error handler from {@link UcpWorker#progress()}, the waiting operations completing with the error.
 */
public class UcpEndpoint extends UcxNativeStruct implements Closeable {
    private final UcpWorker worker;
    final Endpoint weft;
    private final UcpEndpointErrorHandler errorHandler;
    private final String name;
    private boolean errorReported;

    @Override
    public String toString() {
        return "UcpEndpoint{" + (name != null ? "name=" + name + ", " : "") + "id=" + getNativeId()
            + ", " + weft + "}";
    }

    /**
     * Connects: to the worker address of {@link UcpEndpointParams#setUcpAddress}, to the listener of
     * {@link UcpEndpointParams#setSocketAddress}, or accepts {@link UcpEndpointParams#setConnectionRequest}.
     */
    @SuppressWarnings("this-escape") // JUCX's classes are open (its API) and register themselves when made, as JUCX's do
    public UcpEndpoint(UcpWorker worker, UcpEndpointParams params) {
        this.worker = worker;
        this.errorHandler = params.errorHandler;
        this.name = params.name;
        Endpoint ep = null;
        try {
            if (params.connectionRequest != null) {
                ep = params.connectionRequest.accept(worker);
            } else if (params.ucpAddress != null) {
                ep = worker.weft.connect(Jucx.bytes(params.ucpAddress));
            } else if (params.socketAddress != null) {
                // returns at once, as ucp_ep_create: a failed connect reaches the error handler from progress
                ep = worker.weft.connect(params.socketAddress,
                    (params.flags & UcpConstants.UCP_EP_PARAMS_FLAGS_SEND_CLIENT_ID) != 0 ? worker.clientId : 0L);
            } else {
                throw new UcxException("an endpoint needs a worker address, a socket address or a connection request",
                    UcsConstants.STATUS.UCS_ERR_INVALID_PARAM);
            }
        } catch (final WeftException e) {
            throw Jucx.error(e);
        }
        this.weft = ep;
        setNativeId(newId());
        bind(ep);
    }

    /** The JUCX side of an endpoint Weft made (the reply endpoint of an active message). */
    UcpEndpoint(final UcpWorker worker, final Endpoint ep) {
        this.worker = worker;
        this.errorHandler = null;
        this.name = null;
        this.weft = ep;
        setNativeId(newId());
        worker.added(ep, this);
    }

    private void bind(final Endpoint ep) {
        if (name != null) {
            ep.name(name);
        }
        worker.added(ep, this);
        if (errorHandler != null) {
            ep.onError((e, st) -> callHandler(Jucx.code(st), "endpoint " + this + " failed: " + st));
        }
    }

    private void callHandler(final int status, final String msg) {
        if (errorReported || errorHandler == null) {
            return;
        }
        errorReported = true;
        try {
            errorHandler.onError(this, status, msg);
        } catch (final RuntimeException e) {
            throw e;
        } catch (final Exception e) {
            throw new UcxException("error handler of " + this + " threw: " + e, status);
        }
    }

    /** Closes the endpoint, flushing what was sent (bounded by the close timeout). */
    @Override
    public void close() {
        if (getNativeId() == null) {
            return;
        }
        setNativeId(null);
        worker.removed(weft);
        weft.close();
    }

    /** This side's socket address of a socket-address connection (null for worker-address endpoints). */
    public InetSocketAddress getLocalAddress() {
        return weft.localSocketAddress();
    }

    /** The peer's socket address of a socket-address connection (null for worker-address endpoints). */
    public InetSocketAddress getRemoteAddress() {
        return weft.remoteSocketAddress();
    }

    /** A key for the peer's memory, from the bytes of its {@link UcpMemory#getRemoteKeyBuffer()}. */
    public UcpRemoteKey unpackRemoteKey(ByteBuffer rkeyBuffer) {
        try {
            return new UcpRemoteKey(weft.unpackRkey(Jucx.bytes(rkeyBuffer)));
        } catch (final WeftException e) {
            throw Jucx.error(e);
        }
    }


    // ------------------------------------------------------------------ one-sided

    public UcpRequest putNonBlocking(ByteBuffer src, long remoteAddress, UcpRemoteKey remoteKey,
                                     UcxCallback callback) {
        final MemorySegment s = Jucx.segment(src);
        return put(s, 0, s.byteSize(), remoteAddress, remoteKey, callback);
    }

    public UcpRequest putNonBlocking(long localAddress, long size, long remoteAddress, UcpRemoteKey remoteKey,
                                     UcxCallback callback) {
        return put(Jucx.ALL, localAddress, size, remoteAddress, remoteKey, callback);
    }

    public UcpRequest putNonBlocking(long localAddress, long size, long remoteAddress, UcpRemoteKey remoteKey,
                                     UcxCallback callback, int memoryType) {
        Jucx.checkHost(memoryType);
        return put(Jucx.ALL, localAddress, size, remoteAddress, remoteKey, callback);
    }

    public UcpRequest putNonBlocking(long localAddress, long size, long remoteAddress, UcpRemoteKey remoteKey,
                                     UcxCallback callback, UcpRequestParams params) {
        Jucx.checkHost(params);
        return put(Jucx.ALL, localAddress, size, remoteAddress, remoteKey, callback);
    }

    private UcpRequest put(final MemorySegment s, final long off, final long size, final long remoteAddress,
                           final UcpRemoteKey k, final UcxCallback cb) {
        try {
            return Jucx.track(weft.put(s, off, size, remoteAddress, k.weft), cb);
        } catch (final WeftException e) {
            throw Jucx.error(e);
        }
    }

    /** A put completed by the next flush (no request). */
    public void putNonBlockingImplicit(ByteBuffer src, long remoteAddress, UcpRemoteKey remoteKey) {
        final MemorySegment s = Jucx.segment(src);
        implicit(weft.putNbi(s, 0, s.byteSize(), remoteAddress, remoteKey.weft));
    }

    public void putNonBlockingImplicit(long localAddress, long size, long remoteAddress, UcpRemoteKey remoteKey) {
        implicit(weft.putNbi(Jucx.ALL, localAddress, size, remoteAddress, remoteKey.weft));
    }

    private static void implicit(final Status st) {
        if (st.isError()) {
            throw new UcxException("one-sided operation failed: " + st, Jucx.code(st));
        }
    }

    public UcpRequest getNonBlocking(long remoteAddress, UcpRemoteKey remoteKey, ByteBuffer dst,
                                     UcxCallback callback) {
        final MemorySegment s = Jucx.segment(dst);
        return get(s, 0, s.byteSize(), remoteAddress, remoteKey, callback);
    }

    public UcpRequest getNonBlocking(long remoteAddress, UcpRemoteKey remoteKey, long localAddress, long size,
                                     UcxCallback callback) {
        return get(Jucx.ALL, localAddress, size, remoteAddress, remoteKey, callback);
    }

    public UcpRequest getNonBlocking(long remoteAddress, UcpRemoteKey remoteKey, long localAddress, long size,
                                     UcxCallback callback, int memoryType) {
        Jucx.checkHost(memoryType);
        return get(Jucx.ALL, localAddress, size, remoteAddress, remoteKey, callback);
    }

    public UcpRequest getNonBlocking(long remoteAddress, UcpRemoteKey remoteKey, long localAddress, long size,
                                     UcxCallback callback, UcpRequestParams params) {
        Jucx.checkHost(params);
        return get(Jucx.ALL, localAddress, size, remoteAddress, remoteKey, callback);
    }

    private UcpRequest get(final MemorySegment s, final long off, final long size, final long remoteAddress,
                           final UcpRemoteKey k, final UcxCallback cb) {
        try {
            return Jucx.track(weft.get(s, off, size, remoteAddress, k.weft), cb);
        } catch (final WeftException e) {
            throw Jucx.error(e);
        }
    }

    /** A get completed by the next flush (no request). */
    public void getNonBlockingImplicit(long remoteAddress, UcpRemoteKey remoteKey, ByteBuffer dst) {
        final MemorySegment s = Jucx.segment(dst);
        implicit(weft.getNbi(s, 0, s.byteSize(), remoteAddress, remoteKey.weft));
    }

    public void getNonBlockingImplicit(long remoteAddress, UcpRemoteKey remoteKey, long localAddress, long size) {
        implicit(weft.getNbi(Jucx.ALL, localAddress, size, remoteAddress, remoteKey.weft));
    }

    // ------------------------------------------------------------------ tag

    public UcpRequest sendTaggedNonBlocking(ByteBuffer sendBuffer, long tag, UcxCallback callback) {
        final MemorySegment s = Jucx.segment(sendBuffer);
        return sendTag(s, 0, s.byteSize(), tag, callback);
    }

    public UcpRequest sendTaggedNonBlocking(long localAddress, long size, long tag, UcxCallback callback) {
        return sendTag(Jucx.ALL, localAddress, size, tag, callback);
    }

    public UcpRequest sendTaggedNonBlocking(long localAddress, long size, long tag, UcxCallback callback,
                                            int memoryType) {
        Jucx.checkHost(memoryType);
        return sendTag(Jucx.ALL, localAddress, size, tag, callback);
    }

    public UcpRequest sendTaggedNonBlocking(long localAddress, long size, long tag, UcxCallback callback,
                                            UcpRequestParams params) {
        Jucx.checkHost(params);
        return sendTag(Jucx.ALL, localAddress, size, tag, callback);
    }

    /** Sends with tag 0. */
    public UcpRequest sendTaggedNonBlocking(ByteBuffer sendBuffer, UcxCallback callback) {
        return sendTaggedNonBlocking(sendBuffer, 0, callback);
    }

    /** Sends a gather list as one message. */
    public UcpRequest sendTaggedNonBlocking(long[] localAddresses, long[] sizes, long tag, UcxCallback callback,
                                            UcpRequestParams params) {
        Jucx.checkHost(params);
        return sendTaggedNonBlocking(localAddresses, sizes, tag, callback);
    }

    public UcpRequest sendTaggedNonBlocking(long[] localAddresses, long[] sizes, long tag, UcxCallback callback,
                                            int memoryType) {
        Jucx.checkHost(memoryType);
        return sendTaggedNonBlocking(localAddresses, sizes, tag, callback);
    }

    public UcpRequest sendTaggedNonBlocking(long[] localAddresses, long[] sizes, long tag, UcxCallback callback) {
        try {
            return Jucx.track(weft.sendTag(tag, Jucx.iov(localAddresses, sizes), null), callback);
        } catch (final WeftException e) {
            throw Jucx.error(e);
        }
    }

    private UcpRequest sendTag(final MemorySegment s, final long off, final long size, final long tag,
                               final UcxCallback cb) {
        try {
            return Jucx.track(weft.sendTag(tag, s, off, size, null), cb);
        } catch (final WeftException e) {
            throw Jucx.error(e);
        }
    }

    // ------------------------------------------------------------------ stream

    public UcpRequest sendStreamNonBlocking(long localAddress, long size, UcxCallback callback) {
        return sendStream(Jucx.ALL, localAddress, size, callback);
    }

    public UcpRequest sendStreamNonBlocking(long localAddress, long size, UcxCallback callback,
                                            UcpRequestParams params) {
        Jucx.checkHost(params);
        return sendStream(Jucx.ALL, localAddress, size, callback);
    }

    public UcpRequest sendStreamNonBlocking(long localAddress, long size, UcxCallback callback, int memoryType) {
        Jucx.checkHost(memoryType);
        return sendStream(Jucx.ALL, localAddress, size, callback);
    }

    /** Sends a gather list: its buffers' bytes in order, on the stream. */
    public UcpRequest sendStreamNonBlocking(long[] localAddresses, long[] sizes, UcxCallback callback) {
        final weft.uct.IoVector g = Jucx.iov(localAddresses, sizes); // the stream carries the bytes in order
        try {
            return Jucx.track(weft.sendStream(g, null), callback);
        } catch (final WeftException e) {
            throw Jucx.error(e);
        }
    }

    public UcpRequest sendStreamNonBlocking(long[] localAddresses, long[] sizes, UcxCallback callback,
                                            UcpRequestParams params) {
        Jucx.checkHost(params);
        return sendStreamNonBlocking(localAddresses, sizes, callback);
    }

    public UcpRequest sendStreamNonBlocking(long[] localAddresses, long[] sizes, UcxCallback callback,
                                            int memoryType) {
        Jucx.checkHost(memoryType);
        return sendStreamNonBlocking(localAddresses, sizes, callback);
    }

    public UcpRequest sendStreamNonBlocking(ByteBuffer buffer, UcxCallback callback) {
        final MemorySegment s = Jucx.segment(buffer);
        return sendStream(s, 0, s.byteSize(), callback);
    }

    private UcpRequest sendStream(final MemorySegment s, final long off, final long size, final UcxCallback cb) {
        try {
            return Jucx.track(weft.sendStream(s, off, size, null), cb);
        } catch (final WeftException e) {
            throw Jucx.error(e);
        }
    }

    /** Receives stream bytes; {@code UCP_STREAM_RECV_FLAG_WAITALL}: only once the buffer is full. */
    public UcpRequest recvStreamNonBlocking(long localAddress, long size, long flags, UcxCallback callback,
                                            UcpRequestParams params) {
        Jucx.checkHost(params);
        return recvStream(Jucx.ALL, localAddress, size, flags, callback);
    }

    public UcpRequest recvStreamNonBlocking(long localAddress, long size, long flags, UcxCallback callback,
                                            int memoryType) {
        Jucx.checkHost(memoryType);
        return recvStream(Jucx.ALL, localAddress, size, flags, callback);
    }

    public UcpRequest recvStreamNonBlocking(long localAddress, long size, long flags, UcxCallback callback) {
        return recvStream(Jucx.ALL, localAddress, size, flags, callback);
    }

    /** Receives stream bytes into a scatter list, in order. */
    public UcpRequest recvStreamNonBlocking(long[] localAddresses, long[] sizes, long flags,
                                            UcxCallback callback, UcpRequestParams params) {
        Jucx.checkHost(params);
        return recvStreamNonBlocking(localAddresses, sizes, flags, callback);
    }

    public UcpRequest recvStreamNonBlocking(long[] localAddresses, long[] sizes, long flags,
                                            UcxCallback callback, int memoryType) {
        Jucx.checkHost(memoryType);
        return recvStreamNonBlocking(localAddresses, sizes, flags, callback);
    }

    public UcpRequest recvStreamNonBlocking(long[] localAddresses, long[] sizes, long flags,
                                            UcxCallback callback) {
        final weft.uct.IoVector sc = Jucx.iov(localAddresses, sizes); // scattered as the bytes arrive
        try {
            return Jucx.trackRecv(weft.recvStream(sc, (flags & UcpConstants.UCP_STREAM_RECV_FLAG_WAITALL) != 0, null),
                callback, sc.totalLength());
        } catch (final WeftException e) {
            throw Jucx.error(e);
        }
    }

    public UcpRequest recvStreamNonBlocking(ByteBuffer buffer, long flags, UcxCallback callback) {
        final MemorySegment s = Jucx.segment(buffer);
        return recvStream(s, 0, s.byteSize(), flags, callback);
    }

    private UcpRequest recvStream(final MemorySegment s, final long off, final long size, final long flags,
                                  final UcxCallback cb) {
        try {
            return Jucx.trackRecv(weft.recvStream(s, off, size,
                (flags & UcpConstants.UCP_STREAM_RECV_FLAG_WAITALL) != 0, null), cb, size);
        } catch (final WeftException e) {
            throw Jucx.error(e);
        }
    }

    // ------------------------------------------------------------------ active messages

    /** Sends an active message (header and data by address; flags {@code UCP_AM_SEND_FLAG_*}). */
    public UcpRequest sendAmNonBlocking(int activeMessageId, long headerAddress, long headerLength,
                                        long dataAddress, long dataLength, long flags, UcxCallback callback,
                                        UcpRequestParams params) {
        Jucx.checkHost(params);
        return sendAmNonBlocking(activeMessageId, headerAddress, headerLength, dataAddress, dataLength, flags,
            callback);
    }

    public UcpRequest sendAmNonBlocking(int activeMessageId, long headerAddress, long headerLength,
                                        long dataAddress, long dataLength, long flags, UcxCallback callback,
                                        int memoryType) {
        Jucx.checkHost(memoryType);
        return sendAmNonBlocking(activeMessageId, headerAddress, headerLength, dataAddress, dataLength, flags,
            callback);
    }

    public UcpRequest sendAmNonBlocking(int activeMessageId, long headerAddress, long headerLength,
                                        long dataAddress, long dataLength, long flags, UcxCallback callback) {
        final int f = ((flags & UcpConstants.UCP_AM_SEND_FLAG_REPLY) != 0 ? AmFlags.SEND_REPLY : 0)
            | ((flags & UcpConstants.UCP_AM_SEND_FLAG_EAGER) != 0 ? AmFlags.SEND_EAGER : 0)
            | ((flags & UcpConstants.UCP_AM_SEND_FLAG_RNDV) != 0 ? AmFlags.SEND_RNDV : 0);
        try {
            return Jucx.track(weft.sendAm(activeMessageId, Jucx.ALL, headerAddress, headerLength, Jucx.ALL,
                dataAddress, dataLength, f, null), callback);
        } catch (final WeftException e) {
            throw Jucx.error(e);
        }
    }

    // ------------------------------------------------------------------ flush and close

    /** Completes when every one-sided operation started on this endpoint is complete at the target. */
    public UcpRequest flushNonBlocking(UcxCallback callback) {
        try {
            return Jucx.track(weft.flush(), callback);
        } catch (final WeftException e) {
            throw Jucx.error(e);
        }
    }

    /** Closes at once: operations in flight complete with an error. */
    public UcpRequest closeNonBlockingForce() {
        return closeNonBlocking(CloseMode.FORCE);
    }

    /** Closes after what was sent has left (bounded by the close timeout). */
    public UcpRequest closeNonBlockingFlush() {
        return closeNonBlocking(CloseMode.FLUSH);
    }

    private UcpRequest closeNonBlocking(final CloseMode mode) {
        setNativeId(null);
        worker.removed(weft);
        try {
            final Request r = weft.closeNonBlocking(mode);
            return Jucx.track(r, null);
        } catch (final WeftException e) {
            throw Jucx.error(e);
        }
    }
}
