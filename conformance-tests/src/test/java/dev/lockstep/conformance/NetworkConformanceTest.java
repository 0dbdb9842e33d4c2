package dev.lockstep.conformance;

import static dev.lockstep.Turns.until;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.lockstep.BindFailedException;
import dev.lockstep.ClosedException;
import dev.lockstep.Connection;
import dev.lockstep.ConnectionFailedException;
import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import dev.lockstep.Operation;
import dev.lockstep.RecvFailedException;
import dev.lockstep.SendFailedException;
import dev.lockstep.TimeoutException;
import dev.lockstep.Turns;
import dev.lockstep.Waker;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The network on every runtime: commonware's {@code network::tests::test_network_trait} (reference §5) — bind
 * and dial echo, vectored send, several clients, large data, connection errors, peek, and the poisoning rules
 * (a cancelled or failed receive poisons the stream but not the sink, and vice versa) — plus the timeout and
 * closing rules of Lockstep's {@code Sink}, {@code Stream} and {@code Listener}.
 *
 * <p>Servers bind on {@code 127.0.0.1} from the root task (worker 0): in the simulator worker {@code i} is the
 * host {@code 127.0.0.(i+1)}, so clients on other workers dial across simulated hosts. Not ported: the Linux
 * connect-timeout case (the API has no connect timeout) and the stress case (its load is the differential
 * and property tests' job).
 */
@Group(ReadmeGroup.NETWORK)
class NetworkConformanceTest {
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** An echo server on worker 0: each accepted connection echoes {@code length}-byte messages until EOF. */
    private static Handle<Integer> echoServer(Context ctx, Listener listener, int connections, int length) {
        return ctx.child("echo").spawn(server -> {
            List<Handle<Integer>> sessions = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                Connection connection = listener.accept().await();
                sessions.add(server.child("session" + i).spawn(s -> {
                    int echoed = 0;
                    try (connection) {
                        while (true) {
                            byte[] message;
                            try {
                                message = connection.stream().recv(length).await();
                            } catch (RecvFailedException endOfStream) {
                                return echoed;
                            }
                            connection.sink().send(message).await();
                            echoed++;
                        }
                    }
                }));
            }
            int total = 0;
            for (Handle<Integer> session : sessions) {
                total += session.await();
            }
            return total;
        });
    }

    /** Bind and dial, then echo. */
    @Conformance
    void testBindDialEcho(Runtimes rt) {
        rt.runner().start(ctx -> {
            Listener listener = ctx.bind(ANY_PORT).await();
            assertTrue(listener.localAddress().getPort() > 0);
            Handle<Integer> server = echoServer(ctx, listener, 1, 5);
            Connection client = ctx.dial(listener.localAddress()).await();
            assertEquals(listener.localAddress(), client.peer());
            for (String message : List.of("hello", "world", "again")) {
                client.sink().send(bytes(message)).await();
                assertArrayEquals(bytes(message), client.stream().recv(5).await());
            }
            // Empty sends and receives complete at once and change nothing.
            client.sink().send().await();
            client.sink().send(new byte[0], new byte[0]).await();
            assertEquals(0, client.stream().recv(0).await().length);
            assertThrows(IllegalArgumentException.class, () -> client.stream().recv(-1));
            client.sink().close();
            assertEquals(3, server.await());
            client.close();
            listener.close();
            return null;
        });
    }

    /** A vectored send arrives as the concatenation of its chunks, in order. */
    @Conformance
    void testVectoredSend(Runtimes rt) {
        rt.runner().start(ctx -> {
            Listener listener = ctx.bind(ANY_PORT).await();
            Operation<Connection> accepted = listener.accept();
            Connection client = ctx.dial(listener.localAddress()).await();
            Connection peer = accepted.await();
            byte[][] chunks = new byte[300][];
            byte[] expected = new byte[300 * 2];
            for (int i = 0; i < chunks.length; i++) {
                chunks[i] = i % 7 == 0 ? new byte[0] : new byte[] {(byte) i, (byte) ~i};
            }
            int at = 0;
            for (byte[] chunk : chunks) {
                System.arraycopy(chunk, 0, expected, at, chunk.length);
                at += chunk.length;
            }
            byte[] concatenated = Arrays.copyOf(expected, at);
            client.sink().send(chunks).await();
            assertArrayEquals(concatenated, peer.stream().recv(concatenated.length).await());
            client.close();
            peer.close();
            listener.close();
            return null;
        });
    }

    /** Several clients, spread over every worker, each echo their own messages. */
    @Conformance
    void testMultipleClients(Runtimes rt) {
        int clients = 6;
        rt.runner().start(ctx -> {
            Listener listener = ctx.bind(ANY_PORT).await();
            Handle<Integer> server = echoServer(ctx, listener, clients, 8);
            List<Handle<Integer>> handles = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                int id = i;
                handles.add(ctx.child("client" + i).spawnOn(i % ctx.workers(), c -> {
                    try (Connection connection = c.dial(listener.localAddress()).await()) {
                        for (int round = 0; round < 5; round++) {
                            byte[] message = bytes(String.format("c%02dr%04d", id, round));
                            connection.sink().send(message).await();
                            assertArrayEquals(message, connection.stream().recv(8).await());
                        }
                        connection.sink().close();
                    }
                    return id;
                }));
            }
            for (int i = 0; i < clients; i++) {
                assertEquals(i, handles.get(i).await());
            }
            assertEquals(clients * 5, server.await());
            listener.close();
            return null;
        });
    }

    /** Large data: 8 MiB each way, received in pieces of other sizes than it was sent in. */
    @Conformance
    void testLargeData(Runtimes rt) {
        byte[] data = StorageConformanceTest.random(8, 8 * 1024 * 1024);
        rt.runner().start(ctx -> {
            Listener listener = ctx.bind(ANY_PORT).await();
            Handle<byte[]> server = ctx.child("server").spawn(s -> {
                try (Connection connection = listener.accept().await()) {
                    byte[] received = connection.stream().recv(data.length).await();
                    for (int at = 0; at < received.length; at += 1 << 20) {
                        connection.sink().send(Arrays.copyOfRange(received, at, at + (1 << 20))).await();
                    }
                    return received;
                }
            });
            try (Connection client = ctx.dial(listener.localAddress()).await()) {
                Handle<Void> sender = ctx.child("sender").spawn(c -> {
                    client.sink().send(data).await();
                    return null;
                });
                byte[] echoed = new byte[data.length];
                int piece = 777_777;
                for (int at = 0; at < data.length; at += piece) {
                    int length = Math.min(piece, data.length - at);
                    System.arraycopy(client.stream().recv(length).await(), 0, echoed, at, length);
                }
                sender.await();
                assertArrayEquals(data, server.await());
                assertArrayEquals(data, echoed);
            }
            listener.close();
            return null;
        });
    }

    /**
     * Connection errors: dialling a port nobody listens on fails with ConnectionFailedException (commonware
     * dials {@code 127.0.0.1:1}; a port just released is tried as well), binding an address in use fails with
     * BindFailedException, and both name the address.
     */
    @Conformance
    void testConnectionErrors(Runtimes rt) {
        rt.runner().start(ctx -> {
            InetSocketAddress portOne = new InetSocketAddress(InetAddress.getLoopbackAddress(), 1);
            ConnectionFailedException refused = assertThrows(ConnectionFailedException.class,
                    () -> ctx.dial(portOne).await());
            assertTrue(refused.getMessage().contains("127.0.0.1:1"), refused.getMessage());

            Listener released = ctx.bind(ANY_PORT).await();
            InetSocketAddress nobody = released.localAddress();
            released.close();
            assertThrows(ConnectionFailedException.class, () -> ctx.dial(nobody).await());

            Listener listener = ctx.bind(ANY_PORT).await();
            BindFailedException inUse = assertThrows(BindFailedException.class,
                    () -> ctx.bind(listener.localAddress()).await());
            assertTrue(inUse.getMessage().contains(String.valueOf(listener.localAddress().getPort())),
                    inUse.getMessage());
            listener.close();
            assertThrows(ClosedException.class, listener::accept);
            // Once closed, the address can be bound again.
            ctx.bind(listener.localAddress()).await().close();
            assertThrows(IllegalArgumentException.class,
                    () -> ctx.dial(InetSocketAddress.createUnresolved("localhost", 80)));
            return null;
        });
    }

    /**
     * An unresolved address is refused at the call, by bind as by dial, with the same message on every runtime;
     * nothing is opened for it.
     */
    @Conformance
    void testUnresolvedAddressesAreRefusedAtTheCall(Runtimes rt) {
        InetSocketAddress unresolved = InetSocketAddress.createUnresolved("lockstep.invalid", 7000);
        List<String> messages = rt.runner().start(ctx -> {
            java.util.Set<Integer> before = rt.probe().openFds(ctx);
            IllegalArgumentException bind = assertThrows(IllegalArgumentException.class, () -> ctx.bind(unresolved));
            IllegalArgumentException dial = assertThrows(IllegalArgumentException.class, () -> ctx.dial(unresolved));
            assertEquals(before, rt.probe().openFds(ctx), "a refused call opens no socket");
            return List.of(bind.getMessage(), dial.getMessage());
        });
        assertEquals(List.of("address must be resolved, was lockstep.invalid/<unresolved>:7000",
                "address must be resolved, was lockstep.invalid/<unresolved>:7000"), messages);
    }

    /** Peek shows buffered bytes without consuming or waiting. */
    @Conformance
    void testPeek(Runtimes rt) {
        rt.runner().start(ctx -> {
            Listener listener = ctx.bind(ANY_PORT).await();
            Operation<Connection> accepted = listener.accept();
            Connection client = ctx.dial(listener.localAddress()).await();
            Connection peer = accepted.await();
            assertEquals(0, client.stream().peek(100).length, "nothing buffered yet");
            peer.sink().send(bytes("0123456789")).await();
            assertArrayEquals(bytes("012"), client.stream().recv(3).await());
            byte[] buffered = client.stream().peek(100);
            assertTrue(buffered.length <= 7 && Arrays.equals(buffered, Arrays.copyOf(bytes("3456789"), buffered.length)),
                    "peek returns a prefix of the unread bytes: " + new String(buffered, StandardCharsets.UTF_8));
            assertArrayEquals(Arrays.copyOf(buffered, Math.min(2, buffered.length)), client.stream().peek(2));
            assertArrayEquals(buffered, client.stream().peek(100), "peek does not consume");
            assertArrayEquals(bytes("3456789"), client.stream().recv(7).await());
            assertEquals(0, client.stream().peek(100).length);
            assertThrows(IllegalArgumentException.class, () -> client.stream().peek(-1));
            client.close();
            peer.close();
            listener.close();
            return null;
        });
    }

    /**
     * Lengths are checked at the call on every runtime: a receive longer than {@link dev.lockstep.Stream#MAX_RECV_BYTES}
     * (a length read from a peer, say) and a send longer than {@link dev.lockstep.Sink#MAX_SEND_BYTES} are refused
     * with {@code IllegalArgumentException} naming the length, and the connection is unharmed; a receive of
     * exactly the maximum is an ordinary receive. Before, {@code recv(Integer.MAX_VALUE)} ran out of memory
     * inside the worker and hung the runner.
     */
    @Conformance
    void testTransferLengthsAreCheckedAtTheCall(Runtimes rt) {
        rt.runner().start(ctx -> {
            Listener listener = ctx.bind(ANY_PORT).await();
            Operation<Connection> accepted = listener.accept();
            Connection client = ctx.dial(listener.localAddress()).await();
            Connection peer = accepted.await();
            IllegalArgumentException huge = assertThrows(IllegalArgumentException.class,
                    () -> client.stream().recv(Integer.MAX_VALUE));
            assertTrue(huge.getMessage().contains(Integer.toString(Integer.MAX_VALUE)), huge.getMessage());
            assertThrows(IllegalArgumentException.class,
                    () -> client.stream().recv(dev.lockstep.Stream.MAX_RECV_BYTES + 1));
            byte[] half = new byte[dev.lockstep.Sink.MAX_SEND_BYTES / 2 + 1];
            IllegalArgumentException send = assertThrows(IllegalArgumentException.class,
                    () -> client.sink().send(half, half));
            assertTrue(send.getMessage().contains(Long.toString(2L * half.length)), send.getMessage());
            // Neither side was poisoned by the refused calls.
            client.sink().send(bytes("ping")).await();
            assertArrayEquals(bytes("ping"), peer.stream().recv(4).await());
            // A receive of exactly the maximum waits like any other and fails typed when the peer leaves.
            Operation<byte[]> atMaximum = client.stream().recv(dev.lockstep.Stream.MAX_RECV_BYTES);
            peer.sink().send(bytes("pong")).await();
            peer.close();
            assertThrows(RecvFailedException.class, atMaximum::await);
            client.close();
            listener.close();
            return null;
        });
    }

    /**
     * Idle receives cannot starve storage or sends on their worker (the liveness model in {@code UringRunner}):
     * with a ring of 8 and 8 receives waiting for peers that send nothing, a 1-byte blob write and a send both
     * complete. Before, the receives held every ring entry and the write waited for ever (2 s and more on
     * io_uring; a stall in the simulator).
     */
    @Conformance(ring = 8)
    void testIdleReceivesLeaveRoomForStorageAndSends(Runtimes rt) {
        rt.runner().start(ctx -> {
            Listener listener = ctx.bind(ANY_PORT).await();
            List<Connection> clients = new ArrayList<>();
            List<Connection> servers = new ArrayList<>();
            List<Operation<byte[]>> idle = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                Operation<Connection> accepted = listener.accept();
                clients.add(ctx.dial(listener.localAddress()).await());
                servers.add(accepted.await());
            }
            // Accepts share the receives' budget (both wait for a peer): connect everything first.
            for (Connection server : servers) {
                idle.add(server.stream().recv(1));
            }
            for (Operation<byte[]> receive : idle) {
                assertFalse(receive.poll(Waker.noop()).isReady());
            }
            Turns.reschedule();
            dev.lockstep.OpenedBlob opened = ctx.open("budgets", "blob").await();
            try (dev.lockstep.Blob blob = opened.blob()) {
                blob.writeAt(0, new byte[] {42}).await();
                assertArrayEquals(new byte[] {42}, blob.readAt(0, 1).await());
            }
            servers.get(0).sink().send(bytes("pong")).await();
            clients.get(0).sink().send(bytes("x")).await();
            assertArrayEquals(bytes("x"), idle.get(0).await(), "the first receive was in flight all along");
            for (Operation<byte[]> receive : idle) {
                receive.close();
            }
            assertArrayEquals(bytes("pong"), clients.get(0).stream().recv(4).await());
            for (int i = 0; i < 8; i++) {
                clients.get(i).close();
                servers.get(i).close();
            }
            listener.close();
            return null;
        });
    }

    /** A cancelled receive poisons the stream; the sink still works. */
    @Conformance
    void testCancelledRecvPoisonsStreamNotSink(Runtimes rt) {
        rt.runner().start(ctx -> {
            Listener listener = ctx.bind(ANY_PORT).await();
            Operation<Connection> accepted = listener.accept();
            Connection client = ctx.dial(listener.localAddress()).await();
            Connection peer = accepted.await();
            Operation<byte[]> recv = client.stream().recv(10);
            assertFalse(recv.poll(Waker.noop()).isReady());
            Turns.reschedule();
            recv.close();
            peer.sink().send(bytes("late data!")).await();
            ClosedException poisoned = assertThrows(ClosedException.class, () -> client.stream().recv(10).await());
            assertNotNull(poisoned.getMessage());
            client.sink().send(bytes("ping")).await();
            assertArrayEquals(bytes("ping"), peer.stream().recv(4).await());
            client.close();
            peer.close();
            listener.close();
            return null;
        });
    }

    /** A receive that times out (its operation closed by {@code Clock.timeout}) poisons the stream, not the sink. */
    @Conformance
    void testTimedOutRecvPoisonsStreamNotSink(Runtimes rt) {
        rt.runner().start(ctx -> {
            Listener listener = ctx.bind(ANY_PORT).await();
            Operation<Connection> accepted = listener.accept();
            Connection client = ctx.dial(listener.localAddress()).await();
            Connection peer = accepted.await();
            assertThrows(TimeoutException.class,
                    () -> ctx.timeout(Duration.ofMillis(5), () -> client.stream().recv(1).await()));
            assertThrows(ClosedException.class, () -> client.stream().recv(1).await());
            client.sink().send(bytes("ok")).await();
            assertArrayEquals(bytes("ok"), peer.stream().recv(2).await());
            client.close();
            peer.close();
            listener.close();
            return null;
        });
    }

    /**
     * A cancelled send poisons the sink; the stream still works. The send is made pending without relying on
     * flow control (the simulator has none): with a ring of one entry held by an accept, the send is queued,
     * and closed before it could run.
     */
    @Conformance(ring = 1)
    void testCancelledSendPoisonsSinkNotStream(Runtimes rt) {
        rt.runner().start(ctx -> {
            Listener listener = ctx.bind(ANY_PORT).await();
            Connection client = ctx.dial(listener.localAddress()).await();
            Connection peer = listener.accept().await();
            Listener idle = ctx.bind(ANY_PORT).await();
            Operation<Connection> blocker = idle.accept();
            assertFalse(blocker.poll(Waker.noop()).isReady());
            Turns.reschedule();
            Operation<Void> send = client.sink().send(bytes("never"));
            assertFalse(send.poll(Waker.noop()).isReady(), "the send waits for the ring's only slot");
            send.close();
            blocker.close();
            assertThrows(ClosedException.class, () -> client.sink().send(bytes("more")).await());
            peer.sink().send(bytes("pong")).await();
            assertArrayEquals(bytes("pong"), client.stream().recv(4).await());
            client.close();
            peer.close();
            idle.close();
            listener.close();
            return null;
        });
    }

    /** A failed receive (the peer shut its side) poisons the stream; the sink still works. */
    @Conformance
    void testRecvErrorPoisonsStreamNotSink(Runtimes rt) {
        rt.runner().start(ctx -> {
            Listener listener = ctx.bind(ANY_PORT).await();
            Operation<Connection> accepted = listener.accept();
            Connection client = ctx.dial(listener.localAddress()).await();
            Connection peer = accepted.await();
            peer.sink().send(bytes("ab")).await();
            peer.sink().close();
            RecvFailedException failed = assertThrows(RecvFailedException.class,
                    () -> client.stream().recv(3).await());
            assertNotNull(failed.getMessage());
            assertThrows(ClosedException.class, () -> client.stream().recv(1).await());
            client.sink().send(bytes("still")).await();
            assertArrayEquals(bytes("still"), peer.stream().recv(5).await());
            client.close();
            peer.close();
            listener.close();
            return null;
        });
    }

    /**
     * A failed send (the peer closed and reset the connection) poisons the sink; the stream is not poisoned by
     * it: its next receive is a real receive, whose own outcome — the reset, here — is a RecvFailedException,
     * never the poisoned stream's ClosedException.
     */
    @Conformance
    void testSendErrorPoisonsSinkNotStream(Runtimes rt) {
        rt.runner().start(ctx -> {
            Listener listener = ctx.bind(ANY_PORT).await();
            Operation<Connection> accepted = listener.accept();
            Connection client = ctx.dial(listener.localAddress()).await();
            Connection peer = accepted.await();
            peer.close();
            SendFailedException failed = null;
            for (int attempt = 0; attempt < 10_000 && failed == null; attempt++) {
                try {
                    client.sink().send(new byte[1024]).await();
                    ctx.sleep(Duration.ofMillis(1));
                } catch (SendFailedException e) {
                    failed = e;
                }
            }
            assertNotNull(failed, "sending to a closed peer never failed");
            assertThrows(ClosedException.class, () -> client.sink().send(bytes("x")).await());
            try {
                client.stream().recv(1).await();
                fail("the peer closed: nothing to receive");
            } catch (RecvFailedException expected) {
                assertInstanceOf(RecvFailedException.class, expected);
            }
            client.close();
            listener.close();
            return null;
        });
    }

    /** Accepted connections outlive their listener; closing a connection twice is harmless. */
    @Conformance
    void testConnectionsOutliveTheirListener(Runtimes rt) {
        rt.runner().start(ctx -> {
            Listener listener = ctx.bind(ANY_PORT).await();
            Operation<Connection> accepted = listener.accept();
            Connection client = ctx.dial(listener.localAddress()).await();
            Connection peer = accepted.await();
            listener.close();
            listener.close();
            client.sink().send(bytes("after")).await();
            assertArrayEquals(bytes("after"), peer.stream().recv(5).await());
            client.close();
            client.close();
            assertThrows(ClosedException.class, () -> client.sink().send(bytes("x")));
            assertThrows(ClosedException.class, () -> client.stream().recv(1));
            until(ctx, "the peer sees end of stream", () -> {
                try {
                    peer.stream().recv(1).await();
                    return false;
                } catch (RecvFailedException | ClosedException done) {
                    return true;
                }
            });
            peer.close();
            return null;
        });
    }

    /**
     * Connections that wait for a peer never hold up others: with twice as many idle connections on one worker as
     * its ring has entries — each with a receive waiting in the kernel for data that never comes — the same
     * worker's server still accepts a new connection and echoes on it, and every idle connection that then sends
     * is answered. Receives and accepts wait on peers, so none of them may queue behind another.
     */
    @Conformance(ring = 8)
    void testIdleConnectionsBeyondTheRingHoldUpNoOther(Runtimes rt) {
        int idle = 16;
        rt.runner().start(ctx -> {
            Listener listener = ctx.bind(ANY_PORT).await();
            Handle<Void> server = ctx.child("server").spawnOn(0, s -> {
                for (int i = 0; ; i++) {
                    Connection connection;
                    try {
                        connection = listener.accept().await();
                    } catch (ClosedException listenerClosed) {
                        return null;
                    }
                    s.child("session" + i).spawnOn(0, session -> {
                        try (connection) {
                            while (true) {
                                connection.sink().send(connection.stream().recv(4).await()).await();
                            }
                        } catch (RecvFailedException | SendFailedException | ClosedException ended) {
                            return null;
                        }
                    });
                }
            });
            List<Connection> idleClients = new ArrayList<>();
            for (int i = 0; i < idle; i++) {
                idleClients.add(ctx.dial(listener.localAddress()).await());
            }
            // Let the server accept every idle client and post its receive: each now waits in the kernel.
            ctx.sleep(Duration.ofMillis(50));
            byte[] answer = ctx.timeout(Duration.ofSeconds(10), () -> {
                try (Connection late = ctx.dial(listener.localAddress()).await()) {
                    late.sink().send(bytes("late")).await();
                    return late.stream().recv(4).await();
                }
            });
            assertArrayEquals(bytes("late"), answer);
            // Then every idle client speaks at once: more receives complete together than the completion queue
            // of a ring of 8 holds (16), and each is answered.
            ctx.timeout(Duration.ofSeconds(10), () -> {
                for (int i = 0; i < idle; i++) {
                    idleClients.get(i).sink().send(bytes(String.format("c%03d", i))).await();
                }
                for (int i = 0; i < idle; i++) {
                    assertArrayEquals(bytes(String.format("c%03d", i)), idleClients.get(i).stream().recv(4).await());
                }
                return null;
            });
            for (Connection client : idleClients) {
                client.close();
            }
            listener.close();
            server.await();
            return null;
        });
    }
}
