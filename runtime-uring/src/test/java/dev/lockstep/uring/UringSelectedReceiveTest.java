package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.lockstep.ClosedException;
import dev.lockstep.Connection;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import dev.lockstep.Operation;
import dev.lockstep.RecvFailedException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code Stream.recv} through receive buffers the kernel selects, on io_uring: what a user relies on is that every
 * byte arrives whatever the buffers' count — receives that find every buffer out go on with a buffer of their own —
 * and that closing streams whose receives the kernel may be filling gives every selected buffer back to the ring, so
 * later receives still find them.
 */
@Timeout(60)
class UringSelectedReceiveTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    /**
     * Eight clients each send a message before the server receives anything; then one fiber registers all eight
     * receives before it awaits one, so they reach the ring in one submission with one selected buffer among
     * them: the kernel fills that one and answers the others {@code ENOBUFS}.
     */
    @Test
    void receivesThatFindEverySelectedBufferOutGoOnWithTheirOwnAndEveryByteArrives() throws Exception {
        int connections = 8;
        List<UringRing> rings = new CopyOnWriteArrayList<>();
        CompletableFuture<InetSocketAddress[]> bound = new CompletableFuture<>();
        CompletableFuture<List<String>> received = new CompletableFuture<>();
        Thread server = Thread.ofPlatform().name("selected-receive-server").start(() -> {
            try {
                received.complete(UringRunner.builder().workers(1).receiveBuffers(1).ringOpened(rings::add).build()
                        .start(ctx -> {
                            try (Listener data = ctx.bind(LOOPBACK).await(); Listener go = ctx.bind(LOOPBACK).await()) {
                                bound.complete(new InetSocketAddress[] {data.localAddress(), go.localAddress()});
                                // The clients dial this one once every message was written.
                                try (Connection ready = go.accept().await()) {
                                    List<Connection> accepted = new ArrayList<>();
                                    for (int i = 0; i < connections; i++) {
                                        accepted.add(data.accept().await());
                                    }
                                    List<Operation<byte[]>> receives = new ArrayList<>();
                                    for (Connection connection : accepted) {
                                        receives.add(connection.stream().recv(message(0).length));
                                    }
                                    List<String> texts = new ArrayList<>();
                                    for (Operation<byte[]> receive : receives) {
                                        texts.add(new String(receive.await(), StandardCharsets.UTF_8));
                                    }
                                    accepted.forEach(Connection::close);
                                    return texts;
                                }
                            }
                        }));
            } catch (Throwable failure) {
                bound.completeExceptionally(failure);
                received.completeExceptionally(failure);
            }
        });
        InetSocketAddress[] addresses = bound.get(30, TimeUnit.SECONDS);
        List<Socket> clients = new ArrayList<>();
        try {
            for (int i = 0; i < connections; i++) {
                Socket client = new Socket();
                client.connect(addresses[0], 10_000);
                client.getOutputStream().write(message(i));
                clients.add(client);
            }
            clients.add(new Socket(addresses[1].getAddress(), addresses[1].getPort()));
            List<String> texts = received.get(30, TimeUnit.SECONDS);
            for (int i = 0; i < connections; i++) {
                assertEquals(new String(message(i), StandardCharsets.UTF_8), texts.get(i), "connection " + i);
            }
        } finally {
            for (Socket client : clients) {
                client.close();
            }
        }
        assertTrue(server.join(Duration.ofSeconds(10)), "the server thread did not end");
        UringRing ring = rings.getFirst();
        assumeFalse(ring.receiveSelection().refused(), "the kernel has no provided buffer rings (Linux 5.19+)");
        assertTrue(ring.receiveSelection().takes() >= 1, "the one buffer served a receive");
        assertTrue(ring.receiveSelection().exhaustions() >= 1, "one buffer for eight receives submitted together ran out "
                + ring.receiveSelection().exhaustions() + " times");
        assertEquals(0, ring.receiveSelection().lent(), "the one buffer was given back");
    }

    /**
     * Streams closed by a plain thread while their clients keep sending, on two workers with two selected buffers
     * each: a close lands while a receive waits, while the kernel fills a buffer for it, or after; whichever, every
     * buffer the kernel filled goes back. Bounded: each client sends at most {@link #MOST_BYTES}.
     */
    @Test
    void streamsClosedFromAPlainThreadWhileBytesArriveGiveEverySelectedBufferBack() throws Exception {
        int connections = 48;
        List<UringRing> rings = new CopyOnWriteArrayList<>();
        LinkedBlockingQueue<Connection> toClose = new LinkedBlockingQueue<>();
        AtomicReference<String> problem = new AtomicReference<>();
        AtomicLong bytesReceived = new AtomicLong();
        CompletableFuture<InetSocketAddress> bound = new CompletableFuture<>();
        CompletableFuture<Void> served = new CompletableFuture<>();
        Thread server = Thread.ofPlatform().name("selected-close-server").start(() -> {
            try {
                UringRunner.builder().workers(2).receiveBuffers(2).ringOpened(rings::add).build().start(ctx -> {
                    try (Listener listener = ctx.bind(LOOPBACK).await()) {
                        bound.complete(listener.localAddress());
                        List<Handle<Void>> sessions = new ArrayList<>();
                        for (int i = 0; i < connections; i++) {
                            Connection connection = listener.accept().await();
                            sessions.add(ctx.child("session" + i).spawn(s -> {
                                toClose.add(connection);
                                try (connection) {
                                    while (true) {
                                        bytesReceived.addAndGet(connection.stream().recv(700).await().length);
                                    }
                                } catch (ClosedException | RecvFailedException ended) {
                                    return null;
                                } catch (RuntimeException other) {
                                    problem.compareAndSet(null, "a session ended with " + other);
                                    return null;
                                }
                            }));
                        }
                        for (Handle<Void> session : sessions) {
                            session.await();
                        }
                    }
                    return null;
                });
                served.complete(null);
            } catch (Throwable failure) {
                bound.completeExceptionally(failure);
                served.completeExceptionally(failure);
            }
        });
        InetSocketAddress address = bound.get(30, TimeUnit.SECONDS);
        Thread closer = Thread.ofPlatform().name("stream-closer").start(() -> {
            SplittableRandom random = new SplittableRandom(7);
            try {
                for (int i = 0; i < connections; i++) {
                    Connection connection = toClose.poll(30, TimeUnit.SECONDS);
                    if (connection == null) {
                        problem.compareAndSet(null, "only " + i + " sessions started");
                        return;
                    }
                    // A varying head start for the clients' bytes; correctness never depends on it.
                    for (int spin = random.nextInt(200_000); spin > 0; spin--) {
                        Thread.onSpinWait();
                    }
                    connection.stream().close();
                }
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
        });
        List<Thread> senders = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            senders.add(Thread.ofPlatform().name("sender-" + i).start(() -> send(address)));
        }
        for (Thread sender : senders) {
            assertTrue(sender.join(Duration.ofSeconds(30)), sender.getName() + " did not finish");
        }
        assertTrue(closer.join(Duration.ofSeconds(30)), "the closer did not finish");
        served.get(30, TimeUnit.SECONDS);
        assertTrue(server.join(Duration.ofSeconds(10)), "the server thread did not end");
        assertNull(problem.get());
        assertTrue(bytesReceived.get() > 0, "the sessions received bytes");
        assertEquals(2, rings.size());
        assumeFalse(rings.getFirst().receiveSelection().refused(), "the kernel has no provided buffer rings (Linux 5.19+)");
        assertTrue(rings.stream().mapToLong(r -> r.receiveSelection().takes()).sum() > 0,
                "the sessions received through selected buffers");
        for (UringRing ring : rings) {
            assertEquals(0, ring.receiveSelection().lent(), "selected receive buffers not given back to " + ring);
        }
    }

    private static final int MOST_BYTES = 256 * 1024;

    /** Sends up to {@link #MOST_BYTES} in 700-byte writes, stopping when the server closes the connection. */
    private static void send(InetSocketAddress address) {
        byte[] chunk = new byte[700];
        try (Socket client = new Socket()) {
            client.connect(address, 10_000);
            client.setSoTimeout(10_000);
            OutputStream out = client.getOutputStream();
            for (int sent = 0; sent < MOST_BYTES; sent += chunk.length) {
                out.write(chunk);
            }
            // Then waits for the server's close, so each session ends by its stream's close.
            client.getInputStream().read();
        } catch (IOException closedByServer) {
            // The server closed the connection (reset or end of stream): this client is done.
        }
    }

    private static byte[] message(int client) {
        return ("message " + (char) ('a' + client)).getBytes(StandardCharsets.UTF_8);
    }
}
