/**
 * The operating system through FFM: {@link weft.ucs.sys.LibC} (the system calls, returning the result or
 * {@code -errno}, never throwing on the data path), {@code Downcalls} (how those handles are linked and how a
 * failed call reports errno), node identity and process liveness (for peer-failure detection).
 */
package weft.ucs.sys;
