package weft.uct;

/**
 * What a memory domain can do.
 *
 * @param flags           {@link #ALLOC}, {@link #REG}, {@link #NEED_RKEY}, {@link #RKEY_PTR}, {@link #FIXED},
 *                        {@link #ALLOC_SHARED}, {@link #SYMMETRIC_RKEY}
 * @param maxAlloc        largest allocation
 * @param maxReg          largest registration
 * @param regCostNs       fixed cost of one registration
 * @param regCostNsPerByte per-byte cost of registration
 * @param rkeyPackedSize  size of a packed remote key
 */
public record MemoryDomainAttributes(int flags, long maxAlloc, long maxReg, double regCostNs,
                                     double regCostNsPerByte, int rkeyPackedSize) {
    /** Can allocate memory that peers may access. */
    public static final int ALLOC = 1;
    /** Can register existing memory. */
    public static final int REG = 1 << 1;
    /** Remote access needs a remote key (packed and unpacked). */
    public static final int NEED_RKEY = 1 << 2;
    /** {@link RemoteKey#ptr} works: remote memory can be mapped locally. */
    public static final int RKEY_PTR = 1 << 3;
    /** Can allocate at a fixed address. */
    public static final int FIXED = 1 << 4;
    /** Allocated memory can be mapped by other processes of the node through the remote key. */
    public static final int ALLOC_SHARED = 1 << 5;
    /**
     * Symmetric keys: memory registered identically by every process ({@link MemoryDomain#REG_SYMMETRIC},
     * same address, same length, same order of symmetric registrations) packs to byte-equal keys, and
     * an unpacked key holds no local resource, so one unpacked copy may serve every peer. Absent where
     * a key must name something of one process (a memory file, a pid).
     */
    public static final int SYMMETRIC_RKEY = 1 << 6;

    public boolean has(final int flag) {
        return (flags & flag) == flag;
    }
}
