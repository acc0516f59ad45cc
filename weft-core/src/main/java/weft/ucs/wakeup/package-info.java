/**
 * Descriptors a waiting thread sleeps on: {@link weft.ucs.wakeup.EventFd} (a signal any thread can raise) and
 * {@link weft.ucs.wakeup.EventSet} (an epoll set over the interfaces' descriptors), used by
 * {@code Worker.waitForEvents} and {@code Worker.eventFd()}.
 */
package weft.ucs.wakeup;
