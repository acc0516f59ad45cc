/**
 * The tcp transport: active messages, put, get and atomics over non-blocking TCP sockets driven
 * through FFM system calls and one epoll set per interface.
 *
 * <ul>
 *   <li>{@link weft.uct.tcp.TcpTransport}: devices (IPv4 interfaces), configuration, the entry point.</li>
 *   <li>{@code TcpInterface}: listening socket, epoll set (also the wakeup fd), accept, progress.</li>
 *   <li>{@code TcpEndpoint}: the connecting side; sends requests and AMs, matches replies.</li>
 *   <li>{@code TcpServerConnection}: the accepting side; authenticates and serves requests.</li>
 *   <li>{@code TcpChannel}: one socket with its tx buffer, iovec ring and rx buffer.</li>
 *   <li>{@code TcpFrame}: the wire format; {@code TcpAddress}: device and interface addresses.</li>
 *   <li>{@code TcpMemoryDomain}: process-wide registered regions and remote keys.</li>
 * </ul>
 */
package weft.uct.tcp;
