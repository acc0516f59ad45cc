/**
 * The cma transport: zero-copy put and get between processes of one node through
 * {@code process_vm_readv/writev}, probed once at start-up (a kernel that refuses it leaves the
 * transport without a device).
 */
package weft.uct.cma;
