package weft.ucp;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.config.ConfigRegistry;
import weft.ucs.config.ConfigType;
import weft.ucs.config.ConfigVar;
import weft.ucs.memory.FixedMapping;
import weft.uct.MemoryDomainAttributes;
import weft.uct.MemoryHandle;
import weft.uct.Transport;

/**
 * Memory for a {@link MemoryMap#FIXED} map: at the address the caller gave, or at the context's next
 * address in its reserved range. The range starts at {@code WEFT_MEM_FIXED_BASE} and each FIXED map
 * without an address takes the next 2 MiB-aligned slot, whether it succeeds or not, so PEs that make
 * the same maps in the same order stay in step and map at equal addresses. The memory comes from the
 * first shared-memory domain that can allocate at an address (shm: same-node peers map the file), else
 * from a private anonymous mapping (registered with the other domains by the caller).
 *
 * @param transport the transport whose domain allocated, or null for {@link #mapping}
 * @param handle    that domain's handle, or null
 * @param mapping   the anonymous mapping when no domain allocated, or null
 */
record FixedAllocation(Transport transport, MemoryHandle handle, FixedMapping mapping) {
    static final ConfigVar<Long> FIXED_BASE = ConfigRegistry.register("MEM_FIXED_BASE", ConfigType.SIZE, "32t",
        "Start of the virtual address range from which MemoryMap.FIXED maps without an address are placed "
            + "(each takes the next 2 MiB-aligned slot; every PE of a job must use the same value).");
    static final long STEP = 2L << 20;

    /** Maps {@code length} bytes at {@code address} (0: the context's next fixed address). */
    static FixedAllocation allocate(final Context context, final long address, final long length) {
        if (length <= 0) {
            throw new WeftException(Status.INVALID_PARAM, "memMap: length must be positive, got " + length);
        }
        final long at = address != 0 ? address : context.nextFixedAddress(length);
        for (final Transport t : context.transports()) {
            final MemoryDomainAttributes a = t.memoryDomain().attributes();
            if (a.has(MemoryDomainAttributes.ALLOC | MemoryDomainAttributes.ALLOC_SHARED | MemoryDomainAttributes.FIXED)
                && a.maxAlloc() >= length) {
                return new FixedAllocation(t, t.memoryDomain().allocateFixed(at, length), null);
            }
        }
        return new FixedAllocation(null, null, FixedMapping.map(at, length));
    }

    /** Bytes a map of {@code length} takes in the reserved range (room for a domain's trailer page). */
    static long slot(final long length) {
        return (length + 4096 + STEP - 1) / STEP * STEP;
    }
}
