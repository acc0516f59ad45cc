/**
 * The transport conformance suite: one set of tests, run on every transport that
 * {@link weft.uct.Transports#all()} finds, in two modes, deciding only from the SPI.
 *
 * <h2>Adding a transport</h2>
 * Nothing to do: register it with {@link java.util.ServiceLoader} (module-info and
 * {@code META-INF/services/weft.uct.Transport}); {@link weft.uct.conformance.Case#all()} picks it
 * up with its first device. Cases that need an operation are skipped by capability
 * ({@code Assumptions} on {@link weft.uct.Capability} bits, op bits and max sizes, always with the
 * reason), never by transport name. Run with
 * {@code mvn -o -pl weft-core test -Dtest='*ConformanceTest'}; add
 * {@code -Dweft.conformance.tls=shm,tcp} to narrow it.
 *
 * <h2>Modes and peers</h2>
 * A {@link weft.uct.conformance.Fixture} is the test side of one case: a worker, an interface,
 * an endpoint to a {@link weft.uct.conformance.Peer}, the unpacked key of the peer's region and
 * an inbox for active messages. The peer echoes every AM back on the same id and lets the test
 * read and write its region by itself (never through the transport under test), so data is
 * checked where it landed.
 * <ul>
 *   <li>{@code IN_JVM}: {@link weft.uct.conformance.InJvmPeer}, a second worker and interface in
 *   this JVM, progressed by the test thread whenever it waits (UCT objects are single threaded).
 *   If the test interface cannot reach it ({@link weft.uct.Interface#isReachable} is false, e.g.
 *   self), the peer is the test interface itself (loopback) and messages arrive directly.</li>
 *   <li>{@code CROSS_PROCESS}: {@link weft.uct.conformance.ProcessPeer} drives a child JVM running
 *   {@link weft.uct.conformance.ConformancePeer} over stdin/stdout (one line per command and
 *   reply). The child allocates (ALLOC) or registers its region, prints a READY line with its
 *   addresses and packed key, progresses on its main thread, sleeps on the interface's event fd
 *   (or parks) when idle and exits when its stdin closes. One child per device is cached for the
 *   whole test JVM ({@link weft.uct.conformance.PeerCache}); cases that kill or break their peer
 *   get a fresh one. If the test interface cannot reach the child, every cross-process case of
 *   that device is skipped with that reason.</li>
 * </ul>
 *
 * <h2>Rules every case follows</h2>
 * Every wait progresses the test worker (and an in-JVM peer) and has a deadline with a message
 * ({@link weft.uct.conformance.Waits}); every case has a {@code @Timeout}. Closing a fixture
 * checks resource hygiene ({@link weft.uct.conformance.Resources}): open fds, live threads and
 * /dev/shm files named "weft" are back to their level before the case (a cached peer's pipes and
 * reader thread are not counted). {@link weft.uct.conformance.ConformanceHarnessTest} tests the
 * harness itself.
 */
package weft.uct.conformance;
