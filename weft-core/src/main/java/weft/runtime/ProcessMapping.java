package weft.runtime;

import weft.ucs.Status;
import weft.ucs.WeftException;

import java.util.ArrayList;
import java.util.List;

/**
 * PMI's {@code PMI_process_mapping} job attribute: which node each rank runs on, written as
 * {@code (vector,(START,NODES,PER_NODE),...)}. Each block puts PER_NODE consecutive ranks on each of
 * the NODES nodes numbered from START; the blocks are dealt in order and the whole vector again from
 * the start until every rank has a node. Slurm writes {@code (vector,(0,2,4))} for 8 tasks on 2 nodes
 * with the block distribution and {@code (vector,(0,2,1))} for the cyclic one.
 */
final class ProcessMapping {
    private ProcessMapping() {
    }

    /**
     * The node of every rank of a job of {@code size} ranks.
     *
     * @throws WeftException IO_ERROR quoting the text when it is not such a vector
     */
    static int[] nodes(final String mapping, final int size) {
        final List<int[]> blocks = parse(mapping);
        final int[] node = new int[size];
        int rank = 0;
        while (rank < size) {
            for (int b = 0; b < blocks.size() && rank < size; b++) {
                final int[] blk = blocks.get(b);
                for (int n = 0; n < blk[1] && rank < size; n++) {
                    for (int p = 0; p < blk[2] && rank < size; p++) {
                        node[rank++] = blk[0] + n;
                    }
                }
            }
        }
        return node;
    }

    /** This rank's place: node index, rank among the ranks of its node, and how many share the node. */
    static JobLayout layout(final int[] nodes, final int rank, final String jobId) {
        int localRank = 0;
        int localSize = 0;
        for (int r = 0; r < nodes.length; r++) {
            if (nodes[r] == nodes[rank]) {
                if (r < rank) {
                    localRank++;
                }
                localSize++;
            }
        }
        return new JobLayout(rank, nodes.length, localRank, localSize, nodes[rank], jobId);
    }

    private static List<int[]> parse(final String mapping) {
        final String s = mapping.replaceAll("\\s+", "");
        if (!s.startsWith("(vector,") || !s.endsWith(")")) {
            throw bad(mapping, "not '(vector,...)'");
        }
        final String body = s.substring("(vector,".length(), s.length() - 1);
        final List<int[]> blocks = new ArrayList<>();
        int i = 0;
        while (i < body.length()) {
            if (body.charAt(i) != '(') {
                throw bad(mapping, "a block that does not start with '('");
            }
            final int end = body.indexOf(')', i);
            if (end < 0) {
                throw bad(mapping, "a block without ')'");
            }
            final String[] parts = body.substring(i + 1, end).split(",", -1);
            if (parts.length != 3) {
                throw bad(mapping, "a block of " + parts.length + " numbers, not 3");
            }
            final int[] blk = new int[3];
            for (int k = 0; k < 3; k++) {
                try {
                    blk[k] = Integer.parseInt(parts[k]);
                } catch (final NumberFormatException e) {
                    throw bad(mapping, "'" + parts[k] + "' is not a number");
                }
            }
            if (blk[0] < 0 || blk[1] < 1 || blk[2] < 1) {
                throw bad(mapping, "a block with a negative start or no nodes or ranks");
            }
            blocks.add(blk);
            i = end + 1;
            if (i < body.length()) {
                if (body.charAt(i) != ',') {
                    throw bad(mapping, "blocks not separated by ','");
                }
                i++;
            }
        }
        if (blocks.isEmpty()) {
            throw bad(mapping, "no blocks");
        }
        return blocks;
    }

    private static WeftException bad(final String mapping, final String why) {
        return new WeftException(Status.IO_ERROR, "PMI-2: the process manager's PMI_process_mapping '"
            + Pmi2Message.quote(mapping) + "' is malformed: " + why);
    }
}
