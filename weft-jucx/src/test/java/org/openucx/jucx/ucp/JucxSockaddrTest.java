package org.openucx.jucx.ucp;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.openucx.jucx.UcxCallback;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code UcpWorker.newEndpoint} with a socket address returns at once (as ucp_ep_create): sends posted before
 * the connection exists go out in order once the listener accepts; the listener sees the client id the client
 * worker was given when the endpoint asks to send it.
 */
@Timeout(120)
class JucxSockaddrTest {
    @ParameterizedTest
    @ValueSource(strings = {"tcp", "default"})
    void socketAddressEndpointIsNonBlockingAndCarriesTheClientId(final String tls) throws Exception {
        final UcpParams params = new UcpParams().requestTagFeature();
        if (!tls.equals("default")) {
            params.setConfig("TLS", tls);
        }
        try (UcpContext ctx = new UcpContext(params);
             UcpWorker server = ctx.newWorker(new UcpWorkerParams());
             UcpWorker client = ctx.newWorker(new UcpWorkerParams().setClientId(0xC0FFEEL));
             Arena arena = Arena.ofShared()) {
            final List<Long> clientIds = new ArrayList<>();
            final List<UcpEndpoint> accepted = new ArrayList<>();
            final UcpListener l = server.newListener(new UcpListenerParams()
                .setSockAddr(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .setConnectionHandler(req -> {
                    clientIds.add(req.getClientId());
                    accepted.add(server.newEndpoint(new UcpEndpointParams().setConnectionRequest(req)));
                }));
            final UcpEndpoint withId = client.newEndpoint(new UcpEndpointParams().setSocketAddress(l.getAddress())
                .sendClientId().setPeerErrorHandlingMode());
            final int n = 6;
            final MemorySegment out = arena.allocate(8L * n);
            final AtomicInteger sent = new AtomicInteger();
            final List<UcpRequest> sends = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                out.set(ValueLayout.JAVA_LONG, 8L * i, 500 + i);
                sends.add(withId.sendTaggedNonBlocking(out.address() + 8L * i, 8, 3, new UcxCallback() {
                    @Override
                    public void onSuccess(final UcpRequest r) {
                        sent.incrementAndGet();
                    }
                }));
            }
            for (final UcpRequest r : sends) {
                assertFalse(r.isCompleted(), "nothing progressed: the endpoint is still connecting");
            }
            final MemorySegment in = arena.allocate(8L * n);
            final List<UcpRequest> recvs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                recvs.add(server.recvTaggedNonBlocking(in.address() + 8L * i, 8, 3, -1L, null));
            }
            final long deadline = System.nanoTime() + Pair.WAIT_NS;
            while (sent.get() < n || !recvs.get(n - 1).isCompleted()) {
                server.progress();
                client.progress();
                assertTrue(System.nanoTime() < deadline, "hang guard");
            }
            for (int i = 0; i < n; i++) {
                assertEquals(500 + i, in.get(ValueLayout.JAVA_LONG, 8L * i), "message " + i + " in order");
            }
            assertEquals(List.of(0xC0FFEEL), clientIds, "the id of the client's worker");
            // without sendClientId the listener sees 0 (UCX sends it only when asked)
            final UcpEndpoint noId = client.newEndpoint(new UcpEndpointParams().setSocketAddress(l.getAddress()));
            while (clientIds.size() < 2) {
                server.progress();
                client.progress();
                assertTrue(System.nanoTime() < deadline, "hang guard");
            }
            assertEquals(0L, clientIds.get(1));
            withId.close();
            noId.close();
            for (final UcpEndpoint e : accepted) {
                e.close();
            }
            l.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "default"})
    void aConnectionRequestCanBeAcceptedOnAnotherWorker(final String tls) throws Exception {
        final UcpParams params = new UcpParams().requestTagFeature();
        if (!tls.equals("default")) {
            params.setConfig("TLS", tls);
        }
        try (UcpContext ctx = new UcpContext(params);
             UcpWorker listening = ctx.newWorker(new UcpWorkerParams());
             UcpWorker serving = ctx.newWorker(new UcpWorkerParams());
             UcpWorker client = ctx.newWorker(new UcpWorkerParams());
             Arena arena = Arena.ofShared()) {
            final List<UcpEndpoint> accepted = new ArrayList<>();
            final UcpListener l = listening.newListener(new UcpListenerParams()
                .setSockAddr(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .setConnectionHandler(req -> accepted.add(serving.newEndpoint(
                    new UcpEndpointParams().setConnectionRequest(req)))));
            final UcpEndpoint ep = client.newEndpoint(new UcpEndpointParams().setSocketAddress(l.getAddress()));
            final MemorySegment buf = arena.allocate(16);
            buf.set(ValueLayout.JAVA_LONG, 0, 4242L);
            final UcpRequest s = ep.sendTaggedNonBlocking(buf.address(), 8, 5, null);
            final UcpRequest r = serving.recvTaggedNonBlocking(buf.address() + 8, 8, 5, -1L, null);
            final long deadline = System.nanoTime() + Pair.WAIT_NS;
            while (!r.isCompleted() || !s.isCompleted()) {
                listening.progress();
                serving.progress();
                client.progress();
                assertTrue(System.nanoTime() < deadline, "hang guard");
            }
            assertEquals(4242L, buf.get(ValueLayout.JAVA_LONG, 8), "received on the accepting worker");
            assertEquals(1, accepted.size());
            ep.close();
            accepted.get(0).close();
            l.close();
        }
    }
}
