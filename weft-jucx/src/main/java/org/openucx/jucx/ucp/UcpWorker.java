package org.openucx.jucx.ucp;

import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.UcxException;
import org.openucx.jucx.UcxNativeStruct;
import org.openucx.jucx.ucs.UcsConstants;
import weft.ucp.AmFlags;
import weft.ucp.AmMessage;
import weft.ucp.Endpoint;
import weft.ucp.Request;
import weft.ucp.TagMessage;
import weft.ucp.ThreadMode;
import weft.ucp.Worker;
import weft.ucs.Status;
import weft.ucs.WeftException;

import java.io.Closeable;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * A worker: progresses communication and holds receives, active-message handlers and endpoints. Made on a
 * Weft {@link Worker} (serialized thread mode, or multi with {@link UcpWorkerParams#requestThreadSafety()}).
 * Completion callbacks, active-message handlers, connection and error handlers run from {@link #progress()}.
 */
public class UcpWorker extends UcxNativeStruct implements Closeable {
    final Worker weft;
    final UcpContext context;
    final long clientId;
    /** Endpoints by their Weft endpoint: a reply endpoint of an active message maps back here. */
    private final Map<Endpoint, UcpEndpoint> endpoints = new IdentityHashMap<>();
    /** Active messages kept by their handler (UCS_INPROGRESS) or in their handler, by data handle. */
    private final Map<Long, AmMessage> amData = new HashMap<>();
    private long nextRndvHandle = -1;

    @SuppressWarnings("this-escape") // JUCX's classes are open (its API) and register themselves when made, as JUCX's do
    public UcpWorker(UcpContext context, UcpWorkerParams params) {
        if (params.eventFD >= 0) {
            throw Jucx.unsupported("an external event descriptor (UcpWorkerParams.setEventFD)");
        }
        this.context = context;
        this.clientId = params.clientId;
        try {
            this.weft = context.weft.newWorker(params.threadSafe ? ThreadMode.MULTI : ThreadMode.SERIALIZED);
        } catch (final WeftException e) {
            throw Jucx.error(e);
        }
        setNativeId(newId());
        context.workers.add(this);
    }

    /** Makes an endpoint (see {@link UcpEndpoint#UcpEndpoint}). */
    public UcpEndpoint newEndpoint(UcpEndpointParams params) {
        return new UcpEndpoint(this, params);
    }

    /** Makes a listener (see {@link UcpListener#UcpListener}). */
    public UcpListener newListener(UcpListenerParams params) {
        return new UcpListener(this, params);
    }

    /** Closes the worker and its endpoints; pending operations complete with an error. */
    @Override
    public void close() {
        if (getNativeId() == null) {
            return;
        }
        setNativeId(null);
        for (final AmMessage m : amData.values()) {
            weft.releaseAmData(m);
        }
        amData.clear();
        weft.close();
        context.workers.remove(this);
    }

    /** The longest active-message header every protocol carries. */
    public long getMaxAmHeaderSize() {
        return weft.maxAmHeaderSize();
    }

    /**
     * Sets the handler of active-message id {@code amId}. Flags: {@code UCP_AM_FLAG_PERSISTENT_DATA} (eager
     * data may be kept: returning UCS_INPROGRESS keeps it) and {@code UCP_AM_FLAG_WHOLE_MSG} (always the case
     * here: a message is delivered whole).
     */
    public void setAmRecvHandler(int amId, UcpAmRecvCallback callback, long flags) {
        final int f = (flags & UcpConstants.UCP_AM_FLAG_PERSISTENT_DATA) != 0 ? AmFlags.HANDLER_PERSISTENT_DATA : 0;
        try {
            weft.setAmHandler(amId, callback == null ? null : (h, hOff, hLen, d, dOff, dLen, m) ->
                deliver(callback, h, hOff, hLen, d, dOff, dLen, m), f);
        } catch (final WeftException e) {
            throw Jucx.error(e);
        }
    }

    public void setAmRecvHandler(int amId, UcpAmRecvCallback callback) {
        setAmRecvHandler(amId, callback, UcpConstants.UCP_AM_FLAG_WHOLE_MSG);
    }

    public void removeAmRecvHandler(int amId) {
        setAmRecvHandler(amId, null, 0);
    }

    private Status deliver(final UcpAmRecvCallback cb, final MemorySegment h, final long hOff, final long hLen,
                           final MemorySegment d, final long dOff, final long dLen, final AmMessage m) {
        final boolean rndv = m.isRendezvous();
        final long handle = rndv ? nextRndvHandle-- : d.address() + dOff;
        final long flags = rndv ? UcpConstants.UCP_AM_RECV_ATTR_FLAG_RNDV
            : m.isPersistent() ? UcpConstants.UCP_AM_RECV_ATTR_FLAG_DATA : 0;
        final Endpoint reply = m.replyEndpoint();
        amData.put(handle, m);
        final int st = cb.onReceive(hLen == 0 ? 0 : h.address() + hOff, hLen, new UcpAmData(this, handle, dLen, flags),
            reply == null ? null : endpointOf(reply));
        final boolean keep = st == UcsConstants.STATUS.UCS_INPROGRESS && (rndv || m.isPersistent());
        if (!keep) {
            amData.remove(handle); // received or released inside the handler, or done with
            return Status.OK;
        }
        return amData.containsKey(handle) ? Status.IN_PROGRESS : Status.OK;
    }

    /** The JUCX endpoint of a Weft endpoint (made for reply endpoints the application never made). */
    UcpEndpoint endpointOf(final Endpoint ep) {
        UcpEndpoint u = endpoints.get(ep);
        if (u == null) {
            u = new UcpEndpoint(this, ep);
        }
        return u;
    }

    void added(final Endpoint ep, final UcpEndpoint u) {
        endpoints.put(ep, u);
    }

    void removed(final Endpoint ep) {
        endpoints.remove(ep);
    }

    /** Releases active-message data kept by a handler (its {@link UcpAmData#getDataAddress()}). */
    public void amDataRelease(long address) {
        final AmMessage m = amData.remove(address);
        if (m == null) {
            throw new UcxException("no kept active-message data at 0x" + Long.toHexString(address),
                UcsConstants.STATUS.UCS_ERR_INVALID_PARAM);
        }
        weft.releaseAmData(m);
    }

    /** Receives an active message's data (rendezvous, or kept) into {@code address}. */
    public UcpRequest recvAmDataNonBlocking(long dataDesc, long address, long size, UcxCallback callback,
                                           UcpRequestParams params) {
        Jucx.checkHost(params);
        return recvAm(dataDesc, address, size, callback);
    }

    public UcpRequest recvAmDataNonBlocking(long dataDesc, long address, long size, UcxCallback callback,
                                           int memoryType) {
        Jucx.checkHost(memoryType);
        return recvAm(dataDesc, address, size, callback);
    }

    private UcpRequest recvAm(final long handle, final long address, final long size, final UcxCallback cb) {
        final AmMessage m = amData.remove(handle);
        if (m == null) {
            throw new UcxException("no active-message data with handle 0x" + Long.toHexString(handle),
                UcsConstants.STATUS.UCS_ERR_INVALID_PARAM);
        }
        final long n = Math.min(size, m.dataLength()); // what a receive that ends inside the call got
        try {
            return Jucx.trackRecv(weft.recvAmData(m, Jucx.ALL, address, size), cb, n);
        } catch (final WeftException e) {
            throw Jucx.error(e);
        }
    }

    /**
     * Progresses communication: completes requests and runs callbacks and handlers. Returns the number of
     * events handled (0 when there was nothing to do).
     */
    public int progress() throws Exception {
        try {
            return weft.progress();
        } catch (final WeftException e) {
            throw Jucx.error(e);
        }
    }

    /** Progresses until {@code request} completes. */
    public void progressRequest(UcpRequest request) throws Exception {
        while (!request.isCompleted()) {
            progress();
        }
    }

    /** Completes when every one-sided operation started on this worker is complete at its target. */
    public UcpRequest flushNonBlocking(UcxCallback callback) {
        try {
            return Jucx.track(weft.flush(), callback);
        } catch (final WeftException e) {
            throw Jucx.error(e);
        }
    }

    /** Sleeps until an event arrives or {@link #signal()} is called (needs the wakeup feature). */
    public void waitForEvents() {
        try {
            weft.waitForEvents(-1);
        } catch (final WeftException e) {
            throw Jucx.error(e);
        }
    }

    /** Wakes {@link #waitForEvents()}; callable from any thread. */
    public void signal() {
        try {
            weft.signal();
        } catch (final WeftException e) {
            throw Jucx.error(e);
        }
    }

    /**
     * Arms the event descriptor ({@link #getEventFD()}) before sleeping on it. Throws with
     * {@code UCS_ERR_BUSY} when events are pending (progress, then arm again), as UCX's arm answers.
     */
    public void arm() {
        final Status st;
        try {
            st = weft.arm();
        } catch (final WeftException e) {
            throw Jucx.error(e);
        }
        if (st != Status.OK) {
            throw new UcxException("events are pending: progress the worker before arming it", Jucx.code(st));
        }
    }

    /** The worker's event descriptor, readable when {@link #arm()} was called and an event arrived. */
    public int getEventFD() {
        try {
            return weft.eventFd();
        } catch (final WeftException e) {
            throw Jucx.error(e);
        }
    }

    // ------------------------------------------------------------------ tag receives

    public UcpRequest recvTaggedNonBlocking(ByteBuffer recvBuffer, long tag, long tagMask, UcxCallback callback) {
        final MemorySegment s = Jucx.segment(recvBuffer);
        try {
            return Jucx.trackRecv(weft.recvTag(s, 0, s.byteSize(), tag, tagMask, Jucx.info(), null), callback, -1);
        } catch (final WeftException e) {
            throw Jucx.error(e);
        }
    }

    public UcpRequest recvTaggedNonBlocking(long localAddress, long size, long tag, long tagMask,
                                            UcxCallback callback) {
        try {
            return Jucx.trackRecv(weft.recvTag(Jucx.ALL, localAddress, size, tag, tagMask, Jucx.info(), null), callback,
                -1);
        } catch (final WeftException e) {
            throw Jucx.error(e);
        }
    }

    public UcpRequest recvTaggedNonBlocking(long localAddress, long size, long tag, long tagMask,
                                            UcxCallback callback, int memoryType) {
        Jucx.checkHost(memoryType);
        return recvTaggedNonBlocking(localAddress, size, tag, tagMask, callback);
    }

    public UcpRequest recvTaggedNonBlocking(long localAddress, long size, long tag, long tagMask,
                                            UcxCallback callback, UcpRequestParams params) {
        Jucx.checkHost(params);
        return recvTaggedNonBlocking(localAddress, size, tag, tagMask, callback);
    }

    /** Receives any tag into the buffer. */
    public UcpRequest recvTaggedNonBlocking(ByteBuffer recvBuffer, UcxCallback callback) {
        return recvTaggedNonBlocking(recvBuffer, 0, 0, callback);
    }

    /** Receives into a scatter list (the message fills the buffers in order). */
    public UcpRequest recvTaggedNonBlocking(long[] localAddresses, long[] sizes, long tag, long tagMask,
                                            UcxCallback callback) {
        try {
            return Jucx.trackRecv(weft.recvTag(Jucx.iov(localAddresses, sizes), tag, tagMask, Jucx.info(), null),
                callback, -1);
        } catch (final WeftException e) {
            throw Jucx.error(e);
        }
    }

    public UcpRequest recvTaggedNonBlocking(long[] localAddresses, long[] sizes, long tag, long tagMask,
                                            UcxCallback callback, UcpRequestParams params) {
        Jucx.checkHost(params);
        return recvTaggedNonBlocking(localAddresses, sizes, tag, tagMask, callback);
    }

    public UcpRequest recvTaggedNonBlocking(long[] localAddresses, long[] sizes, long tag, long tagMask,
                                            UcxCallback callback, int memoryType) {
        Jucx.checkHost(memoryType);
        return recvTaggedNonBlocking(localAddresses, sizes, tag, tagMask, callback);
    }

    /** A message that matches, if one has arrived; {@code remove}: take it out of the unexpected queue. */
    public UcpTagMessage tagProbeNonBlocking(long tag, long tagMask, boolean remove) {
        try {
            final TagMessage m = weft.probeTag(tag, tagMask, remove);
            return m == null ? null : new UcpTagMessage(m);
        } catch (final WeftException e) {
            throw Jucx.error(e);
        }
    }

    public UcpRequest recvTaggedMessageNonBlocking(long address, long size, UcpTagMessage message,
                                                   UcxCallback callback, UcpRequestParams params) {
        Jucx.checkHost(params);
        return recvTaggedMessageNonBlocking(address, size, message, callback);
    }

    public UcpRequest recvTaggedMessageNonBlocking(long address, long size, UcpTagMessage message,
                                                   UcxCallback callback, int memoryType) {
        Jucx.checkHost(memoryType);
        return recvTaggedMessageNonBlocking(address, size, message, callback);
    }

    /** Receives a message taken by {@link #tagProbeNonBlocking} with {@code remove}. */
    public UcpRequest recvTaggedMessageNonBlocking(long address, long size, UcpTagMessage message,
                                                   UcxCallback callback) {
        return recvMessage(Jucx.ALL, address, size, message, callback);
    }

    public UcpRequest recvTaggedMessageNonBlocking(ByteBuffer buffer, UcpTagMessage message, UcxCallback callback) {
        final MemorySegment s = Jucx.segment(buffer);
        return recvMessage(s, 0, s.byteSize(), message, callback);
    }

    private UcpRequest recvMessage(final MemorySegment s, final long off, final long size, final UcpTagMessage m,
                                   final UcxCallback cb) {
        try {
            return Jucx.trackRecv(weft.recvTag(m.weft, s, off, size, Jucx.info(), null), cb, -1);
        } catch (final WeftException e) {
            throw Jucx.error(e);
        }
    }

    /** Cancels a receive still in progress: it completes with {@code UCS_ERR_CANCELED}. */
    public void cancelRequest(UcpRequest request) {
        final Request r = request.weft;
        if (r != null) {
            try {
                weft.cancel(r);
            } catch (final WeftException e) {
                throw Jucx.error(e);
            }
        }
    }

    /** This worker's address, for {@link UcpEndpointParams#setUcpAddress}. */
    public ByteBuffer getAddress() {
        return Jucx.direct(weft.address());
    }
}
