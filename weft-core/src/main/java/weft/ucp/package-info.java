/**
 * The protocol layer (modelled on UCX's UCP): {@link weft.ucp.Context}, {@link weft.ucp.Worker},
 * {@link weft.ucp.Endpoint}, {@link weft.ucp.Request}, {@link weft.ucp.MemoryMap}, {@link weft.ucp.Rkey},
 * {@link weft.ucp.Listener} and their callbacks are the API; everything else here is package-private.
 *
 * <p>Inside, one class per protocol: {@code TagEager} (eager tag send and receive), {@code TagRecv} (a
 * posted tag receive), {@code RndvSend} / {@code RndvRecv} / {@code RndvPut} (rendezvous), {@code EagerGet}
 * (GET-based eager), {@code ActiveMessages}, {@code Streams}, {@code ControlSend} (control and wireup
 * messages), {@code EndpointRma} with {@code Rma} and {@code Rails} (one-sided operations), and
 * {@code Stripes} (bandwidth-weighted striping over lanes). A request's kind names the protocol that
 * drives it ({@code SendProtocol}). The message layouts are in {@link weft.ucp.wire}.
 *
 * <pre>{@code
 * try (Context ctx = Context.builder().features(Feature.TAG).build();
 *      Worker w = ctx.newWorker()) {
 *     Endpoint ep = w.connect(peerAddress);
 *     ep.sendTag(42, buf).await();
 * }
 * }</pre>
 */
package weft.ucp;
