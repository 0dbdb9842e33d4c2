package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.lockstep.ClosedException;
import dev.lockstep.Connection;
import dev.lockstep.ConnectionFailedException;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import dev.lockstep.Operation;
import dev.lockstep.RecvFailedException;
import dev.lockstep.TimeoutException;
import dev.lockstep.Waker;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every {@code Network}, {@code Listener}, {@code Sink} and {@code Stream} call of the production runner over
 * real loopback TCP: exact-length receives over arbitrary segmenting, {@code peek}, zero-length calls,
 * cancellation and timeouts poisoning one side only, half-close, refused dials, cancelled accepts, IPv6.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // hang guard only
class UringNetworkCallsTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static byte[] random(int length, long seed) {
        byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    @Test
    void aListenerReportsItsPortAndBothEndsSeeTheirPeer() {
        UringRunner.builder().workers(1).ringEntries(4).build().start(ctx -> {
            try (Listener listener = ctx.bind(LOOPBACK).await()) {
                InetSocketAddress bound = listener.localAddress();
                assertNotEquals(0, bound.getPort(), "port 0 picks a real port");
                assertEquals(InetAddress.getLoopbackAddress(), bound.getAddress());
                Operation<Connection> accepting = listener.accept();
                try (Connection client = ctx.dial(bound).await(); Connection server = accepting.await()) {
                    assertEquals(bound, client.peer());
                    assertEquals(InetAddress.getLoopbackAddress(), server.peer().getAddress());
                    assertNotEquals(bound.getPort(), server.peer().getPort());
                }
            }
            return null;
        });
    }

    @Test
    void receivesReturnExactlyTheAskedBytesWhateverTheSegmentsAndZeroIsAlwaysReady() {
        UringRunner.builder().workers(2).ringEntries(4).build().start(ctx -> {
            try (Listener listener = ctx.bind(LOOPBACK).await()) {
                Operation<Connection> accepting = listener.accept();
                try (Connection client = ctx.dial(listener.localAddress()).await();
                     Connection server = accepting.await()) {
                    assertArrayEquals(new byte[0], server.stream().recv(0).await());
                    client.sink().send().await();
                    client.sink().send(new byte[0], new byte[0]).await();
                    client.sink().send(utf8("ab"), utf8("cde")).await();
                    client.sink().send(utf8("fghij")).await();
                    assertEquals("a", text(server.stream().recv(1).await()));
                    assertEquals("bcdefg", text(server.stream().recv(6).await()));
                    assertArrayEquals(new byte[0], server.stream().recv(0).await());
                    // A receive waiting for bytes that arrive later, sent from another worker.
                    Operation<byte[]> waiting = server.stream().recv(8);
                    ctx.child("sender").spawnOn(1, c -> {
                        client.sink().send(utf8("klm")).await();
                        client.sink().send(utf8("no")).await();
                        return null;
                    }).await();
                    assertEquals("hijklmno", text(waiting.await()));
                }
            }
            return null;
        });
    }

    @Test
    void peekShowsBufferedBytesWithoutConsumingThem() {
        UringRunner.builder().workers(1).ringEntries(4).build().start(ctx -> {
            try (Listener listener = ctx.bind(LOOPBACK).await()) {
                Operation<Connection> accepting = listener.accept();
                try (Connection client = ctx.dial(listener.localAddress()).await();
                     Connection server = accepting.await()) {
                    assertArrayEquals(new byte[0], server.stream().peek(16), "nothing buffered yet");
                    // One small send is one segment, and a receive takes all of a segment it finds: the
                    // receive of 4 buffers the other 6 bytes.
                    client.sink().send(utf8("0123456789")).await();
                    assertEquals("0123", text(server.stream().recv(4).await()));
                    assertEquals("456789", text(server.stream().peek(100)));
                    assertEquals("456", text(server.stream().peek(3)));
                    assertEquals("", text(server.stream().peek(0)));
                    assertEquals("456789", text(server.stream().peek(6)), "peeking does not consume");
                    assertEquals("45", text(server.stream().recv(2).await()));
                    assertEquals("6789", text(server.stream().peek(100)));
                    assertEquals("6789", text(server.stream().recv(4).await()));
                    assertArrayEquals(new byte[0], server.stream().peek(100));
                    assertThrows(IllegalArgumentException.class, () -> server.stream().peek(-1));
                }
            }
            return null;
        });
    }

    @Test
    void megabytesCrossInBothDirectionsAtOnceBetweenWorkers() {
        byte[] up = random(4 << 20, 1);
        byte[] down = random(3 << 20, 2);
        UringRunner.builder().workers(2).ringEntries(4).build().start(ctx -> {
            try (Listener listener = ctx.bind(LOOPBACK).await()) {
                Operation<Connection> accepting = listener.accept();
                Connection client = ctx.dial(listener.localAddress()).await();
                Connection server = accepting.await();
                try (client; server) {
                    // Each direction needs the other to be drained concurrently, or both senders stall.
                    Handle<byte[]> serverSide = ctx.child("server").spawnOn(1, c -> {
                        Operation<Void> sending = server.sink().send(down);
                        byte[] received = server.stream().recv(up.length).await();
                        sending.await();
                        return received;
                    });
                    Operation<Void> sending = client.sink().send(up);
                    byte[] received = client.stream().recv(down.length).await();
                    sending.await();
                    assertArrayEquals(down, received);
                    assertArrayEquals(up, serverSide.await());
                }
            }
            return null;
        });
    }

    @Test
    void aCancelledReceivePoisonsTheStreamOnlyAndTheSinkStillSends() {
        UringRunner.builder().workers(1).ringEntries(4).build().start(ctx -> {
            try (Listener listener = ctx.bind(LOOPBACK).await()) {
                Operation<Connection> accepting = listener.accept();
                try (Connection client = ctx.dial(listener.localAddress()).await();
                     Connection server = accepting.await()) {
                    Operation<byte[]> abandoned = server.stream().recv(10);
                    assertFalse(abandoned.poll(Waker.noop()).isReady(), "nothing was sent yet");
                    abandoned.close();
                    ClosedException poisoned = assertThrows(ClosedException.class,
                            () -> server.stream().recv(1).await());
                    assertTrue(poisoned.getMessage().contains("cancelled receive"), poisoned.getMessage());
                    // The other side of the same connection keeps working.
                    server.sink().send(utf8("still here")).await();
                    assertEquals("still here", text(client.stream().recv(10).await()));
                    client.sink().send(utf8("x")).await();
                    assertThrows(ClosedException.class, () -> server.stream().recv(1).await());
                }
            }
            return null;
        });
    }

    @Test
    void aTimedOutReceiveFailsWithTimeoutAndPoisonsTheStreamOnly() {
        UringRunner.builder().workers(1).ringEntries(4).build().start(ctx -> {
            try (Listener listener = ctx.bind(LOOPBACK).await()) {
                Operation<Connection> accepting = listener.accept();
                try (Connection client = ctx.dial(listener.localAddress()).await();
                     Connection server = accepting.await()) {
                    assertThrows(TimeoutException.class,
                            () -> ctx.timeout(Duration.ofMillis(20), () -> server.stream().recv(4).await()));
                    client.sink().send(utf8("late")).await();
                    assertThrows(ClosedException.class, () -> server.stream().recv(4).await());
                    server.sink().send(utf8("ok")).await();
                    assertEquals("ok", text(client.stream().recv(2).await()));
                }
            }
            return null;
        });
    }

    @Test
    void closingTheSinkHalfClosesThePeerReadsTheRestAndThenFailsWhileTheStreamStillReceives() {
        UringRunner.builder().workers(1).ringEntries(4).build().start(ctx -> {
            try (Listener listener = ctx.bind(LOOPBACK).await()) {
                Operation<Connection> accepting = listener.accept();
                try (Connection client = ctx.dial(listener.localAddress()).await();
                     Connection server = accepting.await()) {
                    client.sink().send(utf8("last words")).await();
                    client.sink().close();
                    client.sink().close();
                    assertThrows(ClosedException.class, () -> client.sink().send(utf8("more")));
                    assertEquals("last words", text(server.stream().recv(10).await()), "bytes before the close arrive");
                    RecvFailedException ended = assertThrows(RecvFailedException.class,
                            () -> server.stream().recv(1).await());
                    assertTrue(ended.getMessage().contains("closed"), ended.getMessage());
                    assertThrows(ClosedException.class, () -> server.stream().recv(1).await());
                    // The half-closed client still receives what the server sends.
                    server.sink().send(utf8("reply")).await();
                    assertEquals("reply", text(client.stream().recv(5).await()));
                }
            }
            return null;
        });
    }

    @Test
    void aDialToAPortNobodyListensOnFailsNamingTheAddress() {
        UringRunner.builder().workers(1).ringEntries(2).build().start(ctx -> {
            InetSocketAddress vacated;
            try (Listener listener = ctx.bind(LOOPBACK).await()) {
                vacated = listener.localAddress();
            }
            ConnectionFailedException refused = assertThrows(ConnectionFailedException.class,
                    () -> ctx.dial(vacated).await());
            assertTrue(refused.getMessage().contains(Integer.toString(vacated.getPort())), refused.getMessage());
            assertTrue(refused.getMessage().contains("ECONNREFUSED"), refused.getMessage());
            assertThrows(IllegalArgumentException.class,
                    () -> ctx.dial(InetSocketAddress.createUnresolved("nowhere.invalid", 1)));
            return null;
        });
    }

    @Test
    void aCancelledAcceptLeavesTheListenerAcceptingAndAClosedListenerLeavesItsConnectionsAlive() {
        UringRunner.builder().workers(1).ringEntries(4).build().start(ctx -> {
            Listener listener = ctx.bind(LOOPBACK).await();
            Operation<Connection> abandoned = listener.accept();
            assertFalse(abandoned.poll(Waker.noop()).isReady());
            abandoned.close();
            Operation<Connection> accepting = listener.accept();
            try (Connection client = ctx.dial(listener.localAddress()).await();
                 Connection server = accepting.await()) {
                listener.close();
                listener.close();
                assertThrows(ClosedException.class, listener::accept);
                client.sink().send(utf8("after the listener")).await();
                assertEquals("after the listener", text(server.stream().recv(18).await()));
            }
            // The port is free again: a new listener binds it.
            try (Listener again = ctx.bind(listener.localAddress()).await()) {
                assertEquals(listener.localAddress(), again.localAddress());
            }
            return null;
        });
    }

    @Test
    void ipv6LoopbackWorksLikeIpv4() throws Exception {
        assumeTrue(NetworkInterface.getByInetAddress(InetAddress.getByName("::1")) != null,
                "this host has no IPv6 loopback");
        InetSocketAddress any6 = new InetSocketAddress(InetAddress.getByName("::1"), 0);
        String reply = UringRunner.builder().workers(1).ringEntries(4).build().start(ctx -> {
            try (Listener listener = ctx.bind(any6).await()) {
                assertTrue(listener.localAddress().getAddress() instanceof Inet6Address);
                Operation<Connection> accepting = listener.accept();
                try (Connection client = ctx.dial(listener.localAddress()).await();
                     Connection server = accepting.await()) {
                    assertTrue(server.peer().getAddress() instanceof Inet6Address);
                    client.sink().send(utf8("v6")).await();
                    return text(server.stream().recv(2).await());
                }
            }
        });
        assertEquals("v6", reply);
    }
}
