package org.openucx.jucx.ucp;

import org.openucx.jucx.UcxParams;

import java.nio.ByteBuffer;

/** Parameters of a {@link UcpWorker}. */
public class UcpWorkerParams extends UcxParams {
    boolean threadSafe;
    int cpu = -1;
    long events;
    ByteBuffer userData;
    int eventFD = -1;
    long clientId;

    @Override
    public UcpWorkerParams clear() {
        super.clear();
        threadSafe = false;
        cpu = -1;
        events = 0L;
        userData = null;
        eventFD = -1;
        clientId = 0L;
        return this;
    }

    /** Any thread may call the worker (a lock per call). */
    public UcpWorkerParams requestThreadSafety() {
        threadSafe = true;
        fieldMask |= UcpConstants.UCP_WORKER_PARAM_FIELD_THREAD_MODE;
        return this;
    }

    /** The CPU the worker's thread runs on (recorded; Weft does not pin threads). */
    public UcpWorkerParams setCpu(int cpuNum) {
        if (cpuNum < 0) {
            throw new org.openucx.jucx.UcxException("negative CPU number " + cpuNum);
        }
        this.cpu = cpuNum;
        fieldMask |= UcpConstants.UCP_WORKER_PARAM_FIELD_CPU_MASK;
        return this;
    }

    public UcpWorkerParams requestWakeupRMA() {
        return event(UcpConstants.UCP_WAKEUP_RMA);
    }

    public UcpWorkerParams requestWakeupAMO() {
        return event(UcpConstants.UCP_WAKEUP_AMO);
    }

    public UcpWorkerParams requestWakeupTagSend() {
        return event(UcpConstants.UCP_WAKEUP_TAG_SEND);
    }

    public UcpWorkerParams requestWakeupTagRecv() {
        return event(UcpConstants.UCP_WAKEUP_TAG_RECV);
    }

    public UcpWorkerParams requestWakeupTX() {
        return event(UcpConstants.UCP_WAKEUP_TX);
    }

    public UcpWorkerParams requestWakeupRX() {
        return event(UcpConstants.UCP_WAKEUP_RX);
    }

    public UcpWorkerParams requestWakeupEdge() {
        return event(UcpConstants.UCP_WAKEUP_EDGE);
    }

    /** Data kept with the worker for the application. */
    public UcpWorkerParams setUserData(ByteBuffer userData) {
        this.userData = userData;
        fieldMask |= UcpConstants.UCP_WORKER_PARAM_FIELD_USER_DATA;
        return this;
    }

    /** An external event descriptor: not supported (the worker refuses it); use {@link UcpWorker#getEventFD()}. */
    public UcpWorkerParams setEventFD(int eventFD) {
        this.eventFD = eventFD;
        fieldMask |= UcpConstants.UCP_WORKER_PARAM_FIELD_EVENT_FD;
        return this;
    }

    /** The id a client endpoint sends to a listener ({@link UcpConnectionRequest#getClientId()}). */
    public UcpWorkerParams setClientId(long clientId) {
        this.clientId = clientId;
        fieldMask |= UcpConstants.UCP_WORKER_PARAM_FIELD_CLIENT_ID;
        return this;
    }

    private UcpWorkerParams event(final long bit) {
        events |= bit;
        fieldMask |= UcpConstants.UCP_WORKER_PARAM_FIELD_EVENTS;
        return this;
    }
}
