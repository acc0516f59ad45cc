package weft.ucp;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.uct.Device;
import weft.uct.Interface;
import weft.uct.InterfaceAttributes;
import weft.uct.MemoryDomain;
import weft.uct.MemoryDomainAttributes;
import weft.uct.InterfaceParams;
import weft.uct.Transport;
import weft.uct.UctWorker;

import java.util.ArrayList;
import java.util.List;

/** One opened resource of a worker: a transport interface on one device, with its memory domain. */
final class WorkerIface {
    private static final System.Logger LOG = System.getLogger(WorkerIface.class.getName());

    final int index;
    final Transport transport;
    final Device device;
    final Interface iface;
    final InterfaceAttributes attrs;
    final MemoryDomain md;
    final MemoryDomainAttributes mdAttrs;
    /** Lanes of this worker's endpoints on this interface; 0 = idle unless it has activity of its own (see IfaceSet). */
    int lanes;
    /** Lanes, or activity of the interface's own, as of the worker's last slow tick (see IfaceSet). */
    boolean active;
    /** Progress calls left during which an idle interface that just did work is progressed every time. */
    int hot;

    WorkerIface(final int index, final Transport transport, final Device device, final Interface iface) {
        this.index = index;
        this.transport = transport;
        this.device = device;
        this.iface = iface;
        this.attrs = iface.attributes();
        this.md = transport.memoryDomain();
        this.mdAttrs = md.attributes();
    }

    /**
     * Opens one interface per device of every selected transport; on a failure closes what was opened. A
     * device that goes away while it is being opened (a network interface deleted between the listing and
     * the bind: the transport then answers NO_ELEMENT) is left out rather than failing the worker.
     */
    static WorkerIface[] openAll(final Context context, final UctWorker uct, final InterfaceParams params) {
        final List<WorkerIface> list = new ArrayList<>();
        try {
            for (final Transport t : context.transports()) {
                for (final Device d : t.devices()) {
                    final Interface iface;
                    try {
                        iface = t.openInterface(uct, d, params);
                    } catch (final WeftException e) {
                        if (e.status() != Status.NO_ELEMENT) {
                            throw e;
                        }
                        LOG.log(System.Logger.Level.DEBUG, "device " + t.name() + "/" + d.name()
                            + " went away while the worker opened it: left out (" + e.getMessage() + ")");
                        continue;
                    }
                    list.add(new WorkerIface(list.size(), t, d, iface));
                }
            }
        } catch (final RuntimeException e) {
            uct.close();
            throw e;
        }
        return list.toArray(new WorkerIface[0]);
    }

    String name() {
        return transport.name() + "/" + device.name();
    }

    WorkerAddress.Entry addressEntry() {
        return new WorkerAddress.Entry(transport.name(), device.name(), mdAttrs.flags(), attrs.flags(),
            attrs.latencyNs(), attrs.overheadNs(), attrs.bandwidth(), attrs.priority(), attrs.amMaxShort(),
            attrs.amMaxBcopy(), iface.deviceAddress(), iface.interfaceAddress());
    }
}
