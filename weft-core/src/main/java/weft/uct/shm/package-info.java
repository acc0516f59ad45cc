/**
 * The shm transport: a receive FIFO per interface in a memory file that same-node peers map,
 * receive descriptors for medium messages, and peer-mapped memory for put, get and atomics.
 */
package weft.uct.shm;
