package weft.runtime;

import weft.ucs.Status;
import weft.ucs.WeftException;

/**
 * Where a PE stands in its job, fixed for the job's life.
 *
 * @param rank      this PE's rank, {@code 0 <= rank < size}
 * @param size      number of PEs in the job
 * @param localRank rank among the PEs on this node, {@code 0 <= localRank < localSize}
 * @param localSize number of PEs on this node
 * @param nodeId    index of this node in the job, the same for all PEs of a node
 * @param jobId     identifier of the job, the same for all its PEs (names per-job resources)
 */
public record JobLayout(int rank, int size, int localRank, int localSize, int nodeId, String jobId) {
    public JobLayout {
        if (size < 1 || rank < 0 || rank >= size || localSize < 1 || localSize > size || localRank < 0
            || localRank >= localSize || nodeId < 0 || jobId == null || jobId.isEmpty()) {
            throw new WeftException(Status.INVALID_PARAM, "inconsistent job layout: rank " + rank + "/" + size
                + ", local " + localRank + "/" + localSize + ", node " + nodeId + ", job '" + jobId + "'");
        }
    }
}
