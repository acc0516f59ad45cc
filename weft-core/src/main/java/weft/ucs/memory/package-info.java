/**
 * Memory services: ownership rules for arenas, bounded pools of off-heap buffers and the
 * registration cache.
 */
package weft.ucs.memory;
