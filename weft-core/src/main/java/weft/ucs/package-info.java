/**
 * Services every layer uses (modelled on UCX's UCS): {@link weft.ucs.Status} and {@link weft.ucs.WeftException}
 * (how every error reaches the caller), {@link weft.ucs.BlockedProgress} (progress while a thread blocks
 * outside Weft's own waits), keepalive pacing, log rate limits and a hash; sub-packages hold configuration,
 * counters, system calls, wakeup descriptors, shared memory and lock-free queues.
 */
package weft.ucs;
