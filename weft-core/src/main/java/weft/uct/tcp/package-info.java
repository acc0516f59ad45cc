/**
 * The tcp transport: active messages, put, get and atomics over non-blocking TCP sockets driven
 * through FFM system calls and one epoll set per interface. A connection between live processes
 * rides through a broken socket: it reconnects and resumes its byte streams from what each side
 * consumed, so nothing is lost or repeated ({@code WEFT_FAULT_TIMEOUT}; see {@code TcpConnection}).
 *
 * <ul>
 *   <li>{@link weft.uct.tcp.TcpTransport}: devices (IPv4 interfaces), configuration, the entry point.</li>
 *   <li>{@code TcpInterface}: listening socket, epoll set (also the wakeup fd), accept, progress.</li>
 *   <li>{@code TcpEndpoint}: the requester; checks and sends requests and AMs.</li>
 *   <li>{@code TcpOpRing}, {@code TcpWaiters}: the requester's operations waiting for replies and its
 *   completions waiting for the stream; {@code TcpReplyReader}: the replies, matched and completed;
 *   {@code TcpSocketSwitch}: the requester's ordered move onto the socket the peer opened.</li>
 *   <li>{@code TcpServerConnection}: the server role; delivers AMs and serves requests.</li>
 *   <li>{@code TcpConnection}: one connection (its socket, or the next one after a fault) and the roles on it;
 *   {@code TcpHandshake}: its hello and ACCEPT (mutual authentication).</li>
 *   <li>{@code TcpChannel}: one socket with its tx buffer, write queue ({@code TcpWriteQueue}: the iovec ring
 *   writev sends from) and rx buffer.</li>
 *   <li>{@code TcpReplayLog}: the bytes the peer has not acknowledged, sent again after a resume.</li>
 *   <li>{@code TcpResume}: a broken connection's attempts to come back (reconnect, probe, limit).</li>
 *   <li>{@code TcpFrame}: the wire format; {@code TcpAddress}: device and interface addresses;
 *   {@code RingArrays}: growing the rings' arrays.</li>
 *   <li>{@code TcpMemoryDomain}: process-wide registered regions and remote keys.</li>
 * </ul>
 */
package weft.uct.tcp;
