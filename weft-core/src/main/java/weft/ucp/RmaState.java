package weft.ucp;

import weft.uct.AtomicOp;

/** A one-sided operation ({@link Rma}): what it does and to which key; one per pooled request. */
final class RmaState {
    /** {@link Rma#PUT}, {@link Rma#GET}, an atomic or {@link Rma#FENCE}; 0 when the request is no RMA. */
    byte op;
    Rkey rkey;
    /** Atomics: the operation, its operand and (compare-and-swap) the expected value. */
    AtomicOp atomicOp;
    long operand;
    long compare;
    /** A flush waiting for emulated atomics ({@link SoftAtomics}): the answered count that completes it. */
    long softAmoWanted;
    /** A piece of a larger operation (a flush of all endpoints): the request that completes when all do. */
    Request parent;

    void reset() {
        op = 0;
        rkey = null;
        atomicOp = null;
        operand = compare = softAmoWanted = 0;
        parent = null;
    }

    boolean isPristine() {
        return op == 0 && rkey == null && atomicOp == null && operand == 0 && compare == 0 && softAmoWanted == 0
            && parent == null;
    }
}
