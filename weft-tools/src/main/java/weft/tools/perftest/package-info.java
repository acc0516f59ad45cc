/**
 * {@code weft perftest}: transport-level benchmarks that take ucx_perftest's test names, options
 * and roles and print its output, so that one script drives both.
 *
 * <ul>
 *   <li>{@link weft.tools.perftest.PerftestCommand}: the command line (picocli).</li>
 *   <li>{@code PerfRun}: the roles: server (responder), client (initiator), loopback (both).</li>
 *   <li>{@code ControlChannel}: the bootstrap TCP connection: parameters, addresses, remote key,
 *       end of test; its EOF tells either side that the other died.</li>
 *   <li>{@code PerfSide}: one side's interface, memory, endpoint and the test operations.</li>
 *   <li>{@code Initiator} / {@code Responder}: the timed loops and the polling responder.</li>
 *   <li>{@code PerfMeter}, {@link weft.tools.perftest.PerfResult}, {@link weft.tools.perftest.PerfReport}:
 *       timing, figures and formatting.</li>
 *   <li>{@link weft.tools.perftest.Affinity}: {@code sched_setaffinity} for {@code -c}.</li>
 * </ul>
 */
package weft.tools.perftest;
