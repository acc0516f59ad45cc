/**
 * The runtime a Weft program starts with: its rank in a job, the job's size and layout, and a
 * key-value exchange (the PMI model: put, commit, fence, get) used to swap worker addresses
 * before the data path runs. {@link weft.runtime.Runtime} is the entry point; the
 * {@link weft.runtime.Bootstrap} behind it is the {@code weft run} launcher's key-value service,
 * PMIx (under {@code mpirun} or {@code srun --mpi=pmix}), PMI-2 (under {@code srun --mpi=pmi2}), or a
 * singleton. {@link weft.runtime.KvServer} is the
 * launcher's side of the key-value service; {@link weft.runtime.LaunchEnv} names the environment
 * variables a launcher sets.
 */
package weft.runtime;
