package dev.lockstep.conformance;

import static dev.lockstep.Turns.until;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.BindFailedException;
import dev.lockstep.BufferPool;
import dev.lockstep.ClosedException;
import dev.lockstep.Connection;
import dev.lockstep.ConnectionFailedException;
import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.IoBuffer;
import dev.lockstep.Listener;
import dev.lockstep.Operation;
import dev.lockstep.RecvFailedException;
import dev.lockstep.SendFailedException;
import dev.lockstep.TimeoutException;
import dev.lockstep.Turns;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Edge cases of the network API, side by side on both runtimes: addresses (wildcards, IPv6 loopback, other
 * loopback addresses, null, port 0), end of stream and half-close, use after close, closes racing waits from
 * fibers and plain threads, large transfers from buffers, the accept queue and timeouts on accept.
 */
@Group(ReadmeGroup.NETWORK_EDGES)
class NetworkEdgeConformanceTest {
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static InetAddress ip(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private static void report(Runtimes rt, String probe, Object what) {
        System.out.println("PROBE " + rt.config().displayName() + " " + probe + ": " + what);
    }

    /** Connects a client to a fresh listener on {@code bindTo}, returns {client, server}. */
    private static Connection[] pair(Context ctx, Listener listener) {
        Operation<Connection> accepted = listener.accept();
        Connection client = ctx.dial(listener.localAddress()).await();
        return new Connection[] {client, accepted.await()};
    }

    /** Null addresses are refused at the call with NullPointerException naming the parameter; nothing opens. */
    @Conformance
    void testNullAddresses(Runtimes rt) {
        rt.runner().start(ctx -> {
            Set<Integer> before = rt.probe().openFds(ctx);
            NullPointerException bind = assertThrows(NullPointerException.class, () -> ctx.bind(null));
            NullPointerException dial = assertThrows(NullPointerException.class, () -> ctx.dial(null));
            report(rt, "null", bind.getMessage() + " | " + dial.getMessage());
            assertEquals("address", bind.getMessage());
            assertEquals("address", dial.getMessage());
            assertEquals(before, rt.probe().openFds(ctx));
            return null;
        });
    }

    /** Port 0 on 127.0.0.1, the IPv4 wildcard, ::1 and the IPv6 wildcard: the bound address reads back. */
    @Conformance
    void testEphemeralPortsReadBack(Runtimes rt) {
        rt.runner().start(ctx -> {
            for (String literal : List.of("127.0.0.1", "0.0.0.0", "::1", "::", "127.0.0.3")) {
                try (Listener listener = ctx.bind(new InetSocketAddress(ip(literal), 0)).await()) {
                    InetSocketAddress local = listener.localAddress();
                    report(rt, "ephemeral " + literal, local);
                    assertEquals(ip(literal), local.getAddress(), literal);
                    assertTrue(local.getPort() > 0 && local.getPort() <= 65535, literal + " " + local);
                    // The address read back can be dialled, and the connection works.
                    Connection[] ends = pair(ctx, listener);
                    ends[0].sink().send(bytes("hi")).await();
                    assertArrayEquals(bytes("hi"), ends[1].stream().recv(2).await());
                    ends[0].close();
                    ends[1].close();
                }
            }
            return null;
        });
    }

    /** Port ranges: the JDK refuses out-of-range ports before any runtime sees them; 65535 is an ordinary port. */
    @Conformance
    void testPortOutOfRange(Runtimes rt) {
        IllegalArgumentException tooLarge = assertThrows(IllegalArgumentException.class,
                () -> new InetSocketAddress(InetAddress.getLoopbackAddress(), 65536));
        assertTrue(tooLarge.getMessage().contains("65536"), tooLarge.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new InetSocketAddress(InetAddress.getLoopbackAddress(), -1));
        rt.runner().start(ctx -> {
            // Dialling port 0 is refused by the kernel (Linux: ECONNREFUSED), typed, naming the address.
            InetSocketAddress portZero = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
            ConnectionFailedException zero = assertThrows(ConnectionFailedException.class,
                    () -> ctx.dial(portZero).await());
            report(rt, "dial port 0", zero.getMessage());
            assertTrue(zero.getMessage().contains("127.0.0.1:0"), zero.getMessage());
            return null;
        });
    }

    /**
     * Bind conflicts across addresses, as Linux decides them with SO_REUSEADDR and IPV6_V6ONLY off: the same port
     * on 127.0.0.1 and 127.0.0.2 (or ::1) coexists; the wildcard takes the port from every address of its family
     * (and the IPv6 wildcard from IPv4 too), in either order.
     */
    @Conformance
    void testBindConflictsAcrossAddresses(Runtimes rt) {
        rt.runner().start(ctx -> {
            List<String> outcomes = new ArrayList<>();
            String[][] cases = {
                {"127.0.0.1", "127.0.0.2"}, {"127.0.0.1", "::1"}, {"0.0.0.0", "127.0.0.1"}, {"127.0.0.1", "0.0.0.0"},
                {"::", "127.0.0.1"}, {"::", "::1"}, {"0.0.0.0", "::"}, {"::1", "0.0.0.0"}, {"127.0.0.1", "::"},
                {"0.0.0.0", "::1"}, {"::1", "::"},
            };
            for (String[] pairOfBinds : cases) {
                Listener first = ctx.bind(new InetSocketAddress(ip(pairOfBinds[0]), 0)).await();
                int port = first.localAddress().getPort();
                InetSocketAddress second = new InetSocketAddress(ip(pairOfBinds[1]), port);
                String outcome;
                try {
                    ctx.bind(second).await().close();
                    outcome = "bound";
                } catch (BindFailedException e) {
                    assertTrue(e.getMessage().contains(String.valueOf(port)), e.getMessage());
                    // The address as both runtimes name it: 127.0.0.1:p or [::1]:p (the simulator said /127.0.0.1:p).
                    String named = second.getAddress() instanceof java.net.Inet6Address
                            ? "bind([" + second.getAddress().getHostAddress() + "]:" + port + ")"
                            : "bind(" + second.getAddress().getHostAddress() + ":" + port + ")";
                    assertTrue(e.getMessage().contains(named), named + " in " + e.getMessage());
                    outcome = "in use";
                    report(rt, "conflict message", e.getMessage());
                }
                first.close();
                outcomes.add(pairOfBinds[0] + " then " + pairOfBinds[1] + ": " + outcome);
            }
            report(rt, "bind conflicts", outcomes);
            assertEquals(List.of(
                    "127.0.0.1 then 127.0.0.2: bound",
                    "127.0.0.1 then ::1: bound",
                    "0.0.0.0 then 127.0.0.1: in use",
                    "127.0.0.1 then 0.0.0.0: in use",
                    ":: then 127.0.0.1: in use",
                    ":: then ::1: in use",
                    "0.0.0.0 then ::: in use",
                    "::1 then 0.0.0.0: bound",
                    "127.0.0.1 then ::: in use",
                    "0.0.0.0 then ::1: bound",
                    "::1 then ::: in use"), outcomes);
            return null;
        });
    }

    /**
     * Which listener a dial reaches across address families: the IPv6 wildcard (dual stack) takes IPv4 dials, an
     * IPv4 listener never takes an IPv6 dial (Linux refuses it), and a dial to another loopback address than
     * the listener's is refused.
     */
    @Conformance
    void testDialsAcrossAddressFamilies(Runtimes rt) {
        rt.runner().start(ctx -> {
            List<String> outcomes = new ArrayList<>();
            Set<Integer> before = rt.probe().openFds(ctx);
            String[][] cases = {
                {"::", "127.0.0.1"}, {"::", "::1"}, {"0.0.0.0", "127.0.0.1"}, {"0.0.0.0", "127.0.0.2"},
                {"0.0.0.0", "::1"}, {"127.0.0.1", "::1"}, {"::1", "127.0.0.1"}, {"127.0.0.1", "127.0.0.2"},
                {"127.0.0.1", "0.0.0.0"}, {"::1", "::"},
            };
            for (String[] bindAndDial : cases) {
                Listener listener = ctx.bind(new InetSocketAddress(ip(bindAndDial[0]), 0)).await();
                int port = listener.localAddress().getPort();
                Operation<Connection> accepting = listener.accept();
                String outcome;
                try (Connection client = ctx.dial(new InetSocketAddress(ip(bindAndDial[1]), port)).await()) {
                    try (Connection server = ctx.timeout(Duration.ofSeconds(2), accepting::await)) {
                        client.sink().send(bytes("x")).await();
                        assertArrayEquals(bytes("x"), server.stream().recv(1).await());
                        outcome = "connected";
                        if (server.peer().getAddress().getClass() != ip(bindAndDial[1]).getClass()
                                && !ip(bindAndDial[1]).isAnyLocalAddress()) {
                            outcome += ", but the accepted end's peer is " + server.peer();
                        }
                    } catch (TimeoutException e) {
                        outcome = "dial connected to " + client.peer() + " but the listener on " + listener.localAddress()
                                + " accepted nothing";
                    }
                } catch (ConnectionFailedException e) {
                    assertTrue(e.getMessage().contains(String.valueOf(port)), e.getMessage());
                    outcome = "refused";
                }
                accepting.close();
                listener.close();
                // Closed once the kernel let go of its accept: wait for that, so the next case's dial cannot reach it.
                until(ctx, "the listener is closed", () -> rt.probe().openFds(ctx).equals(before));
                outcomes.add(bindAndDial[0] + " dialled at " + bindAndDial[1] + ": " + outcome);
                report(rt, "dial outcome", outcomes.getLast());
            }
            report(rt, "dials", outcomes);
            assertEquals(List.of(
                    ":: dialled at 127.0.0.1: connected",
                    ":: dialled at ::1: connected",
                    "0.0.0.0 dialled at 127.0.0.1: connected",
                    "0.0.0.0 dialled at 127.0.0.2: connected",
                    "0.0.0.0 dialled at ::1: refused",
                    "127.0.0.1 dialled at ::1: refused",
                    "::1 dialled at 127.0.0.1: refused",
                    "127.0.0.1 dialled at 127.0.0.2: refused",
                    "127.0.0.1 dialled at 0.0.0.0: connected",
                    "::1 dialled at ::: connected"), outcomes);
            return null;
        });
    }

    /**
     * End of stream: buffered bytes first, then RecvFailedException (once), then ClosedException on every later
     * receive, recv(0) included; peek shows nothing; the sink still works (half-close).
     */
    @Conformance
    void testEndOfStreamRepeatedly(Runtimes rt) {
        rt.runner().start(ctx -> {
            try (Listener listener = ctx.bind(ANY_PORT).await()) {
                Connection[] ends = pair(ctx, listener);
                Connection client = ends[0];
                Connection server = ends[1];
                client.sink().send(bytes("0123456789")).await();
                client.sink().close();
                client.sink().close();
                assertThrows(ClosedException.class, () -> client.sink().send(bytes("x")));
                assertArrayEquals(bytes("0123"), server.stream().recv(4).await());
                assertArrayEquals(bytes("456789"), server.stream().recv(6).await());
                assertEquals(0, server.stream().recv(0).await().length);
                RecvFailedException eof = assertThrows(RecvFailedException.class,
                        () -> server.stream().recv(1).await());
                report(rt, "eof", eof.getMessage());
                for (int i = 0; i < 3; i++) {
                    ClosedException again = assertThrows(ClosedException.class, () -> server.stream().recv(1).await());
                    if (i == 0) {
                        report(rt, "after eof", again.getMessage());
                    }
                }
                assertThrows(ClosedException.class, () -> server.stream().recv(0).await());
                assertEquals(0, server.stream().peek(10).length);
                // Half-close: the server still sends, the client still receives.
                server.sink().send(bytes("back")).await();
                assertArrayEquals(bytes("back"), client.stream().recv(4).await());
                server.sink().close();
                assertThrows(RecvFailedException.class, () -> client.stream().recv(1).await());
                client.close();
                server.close();
            }
            return null;
        });
    }

    /** Using a connection after close: every call is refused with ClosedException naming the peer. */
    @Conformance
    void testUseAfterClose(Runtimes rt) {
        rt.runner().start(ctx -> {
            try (Listener listener = ctx.bind(ANY_PORT).await()) {
                Connection[] ends = pair(ctx, listener);
                Connection client = ends[0];
                IoBuffer buffer = ctx.buffers().allocate(4096);
                client.close();
                client.close();
                client.sink().close();
                client.stream().close();
                String peer = String.valueOf(client.peer().getPort());
                List<Runnable> calls = List.of(
                        () -> client.sink().send(bytes("x")),
                        () -> client.sink().send(),
                        () -> client.stream().recv(1),
                        () -> client.stream().recv(0),
                        () -> client.sink().sendFrom(buffer, 0, 1),
                        () -> client.stream().recvInto(buffer, 0, 1),
                        () -> client.sink().sendFully(buffer, 0, 1),
                        () -> client.stream().recvFully(buffer, 0, 1));
                for (Runnable call : calls) {
                    ClosedException closed = assertThrows(ClosedException.class, call::run);
                    assertTrue(closed.getMessage().contains(peer), closed.getMessage());
                }
                buffer.segment(); // never left in flight by a refused call
                buffer.close();
                assertEquals(0, client.stream().peek(10).length);
                assertThrows(RecvFailedException.class, () -> ends[1].stream().recv(1).await());
                ends[1].close();
            }
            return null;
        });
    }

    /** Closing a connection while a receive waits wakes the awaiter with ClosedException: from a fiber. */
    @Conformance
    void testCloseDuringReceiveFromAFiber(Runtimes rt) {
        int workers = rt.workers();
        rt.runner().start(ctx -> {
            Set<Integer> before = rt.probe().openFds(ctx);
            Listener listener = ctx.bind(ANY_PORT).await();
            Connection[] ends = pair(ctx, listener);
            Operation<byte[]> receive = ends[0].stream().recv(4);
            Handle<String> waiting = ctx.child("awaiter").spawn(c -> {
                try {
                    receive.await();
                    return "completed";
                } catch (ClosedException closed) {
                    return "closed: " + closed.getMessage();
                }
            });
            ctx.sleep(Duration.ofMillis(5));
            assertFalse(waiting.isDone());
            ctx.child("closer").spawnOn(workers - 1, c -> {
                ends[0].close();
                return null;
            }).await();
            String outcome = waiting.await();
            report(rt, "close during receive (fiber)", outcome);
            assertTrue(outcome.startsWith("closed"), outcome);
            assertThrows(RecvFailedException.class, () -> ends[1].stream().recv(1).await());
            ends[1].close();
            listener.close();
            until(ctx, "every fd is released", () -> rt.probe().openFds(ctx).equals(before));
            return null;
        });
    }

    /** Closing a connection while a receive waits, from a plain thread; and a listener while an accept waits. */
    @Conformance
    void testCloseDuringWaitsFromAPlainThread(Runtimes rt) {
        rt.runner().start(ctx -> {
            Set<Integer> before = rt.probe().openFds(ctx);
            Listener listener = ctx.bind(ANY_PORT).await();
            Connection[] ends = pair(ctx, listener);
            Handle<String> receiving = ctx.child("receiver").spawn(c -> {
                try {
                    ends[0].stream().recv(4).await();
                    return "completed";
                } catch (ClosedException closed) {
                    return "closed";
                }
            });
            Handle<String> accepting = ctx.child("acceptor").spawn(c -> {
                try {
                    listener.accept().await().close();
                    return "completed";
                } catch (ClosedException closed) {
                    return "closed";
                }
            });
            ctx.sleep(Duration.ofMillis(5));
            assertFalse(receiving.isDone());
            assertFalse(accepting.isDone());
            Turns.onPlainThread(ctx, () -> {
                ends[0].close();
                listener.close();
                listener.close();
                return null;
            });
            assertEquals("closed", receiving.await());
            assertEquals("closed", accepting.await());
            ClosedException refused = assertThrows(ClosedException.class, listener::accept);
            assertTrue(refused.getMessage().contains(String.valueOf(listener.localAddress().getPort())),
                    refused.getMessage());
            ends[1].close();
            until(ctx, "every fd is released", () -> rt.probe().openFds(ctx).equals(before));
            return null;
        });
    }

    /** Several MiB from an IoBuffer, received into another in odd pieces, arrive complete and in order. */
    @Conformance
    void testLargeBufferTransfer(Runtimes rt) {
        int size = 6 * 1024 * 1024 + 123;
        rt.runner().start(ctx -> {
            BufferPool pool = ctx.buffers();
            try (Listener listener = ctx.bind(ANY_PORT).await()) {
                Connection[] ends = pair(ctx, listener);
                IoBuffer out = pool.allocate(size);
                for (int i = 0; i < size; i++) {
                    out.segment().set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + (i >>> 11)));
                }
                Handle<Void> sender = ctx.child("sender").spawnOn(0, c -> {
                    ends[0].sink().sendFully(out, 0, size);
                    return null;
                });
                IoBuffer in = pool.allocate(size);
                int piece = 1_000_003;
                for (int at = 0; at < size; at += piece) {
                    ends[1].stream().recvFully(in, at, Math.min(piece, size - at));
                }
                sender.await();
                assertEquals(-1, out.segment().asSlice(0, size).mismatch(in.segment().asSlice(0, size)));
                out.close();
                in.close();
                ends[0].close();
                ends[1].close();
            }
            return null;
        });
    }

    /**
     * The accept queue: 64 dials complete with nobody accepting (the backlog holds them), and the accepts then
     * hand them out in the order they were dialled.
     */
    @Conformance
    void testAcceptBacklogInDialOrder(Runtimes rt) {
        rt.runner().start(ctx -> {
            try (Listener listener = ctx.bind(ANY_PORT).await()) {
                List<Connection> clients = new ArrayList<>();
                for (int i = 0; i < 64; i++) {
                    clients.add(ctx.dial(listener.localAddress()).await());
                    clients.get(i).sink().send(new byte[] {(byte) i}).await();
                }
                for (int i = 0; i < 64; i++) {
                    try (Connection server = listener.accept().await()) {
                        assertEquals(i, server.stream().recv(1).await()[0], "accepted in dial order");
                    }
                }
                for (Connection client : clients) {
                    client.close();
                }
            }
            return null;
        });
    }

    /**
     * Two accepts wait on one listener; the first is closed and a connection is dialed at once: the second gets
     * it. (On runtime-uring the closed accept's kernel request stayed first among the listener's exclusive waiters
     * until the worker's next wait for completions, and took the connection's wake-up for nobody.)
     */
    @Conformance
    void testAnAcceptWaitingBesideAClosedOneGetsTheNextConnection(Runtimes rt) {
        rt.runner().start(ctx -> {
            Set<Integer> before = rt.probe().openFds(ctx);
            try (Listener listener = ctx.bind(ANY_PORT).await()) {
                Operation<Connection> first = listener.accept();
                Operation<Connection> second = listener.accept();
                assertFalse(first.poll(dev.lockstep.Waker.noop()).isReady());
                assertFalse(second.poll(dev.lockstep.Waker.noop()).isReady());
                ctx.sleep(Duration.ofMillis(5));
                first.close();
                try (Connection client = ctx.dial(listener.localAddress()).await();
                     Connection server = ctx.timeout(Duration.ofSeconds(5), second::await)) {
                    client.sink().send(bytes("y")).await();
                    assertArrayEquals(bytes("y"), server.stream().recv(1).await());
                }
            }
            until(ctx, "every fd is released", () -> rt.probe().openFds(ctx).equals(before));
            return null;
        });
    }

    /**
     * An accept posted right after another accept on the same listener was closed (explicitly, or by an
     * enclosing timeout) gets the next connection. The dial completes either way (the kernel's backlog takes
     * it); the accept must hand it out. Each variant runs on a fresh listener.
     */
    @Conformance
    void testAcceptRightAfterAClosedAcceptGetsTheNextConnection(Runtimes rt) {
        rt.runner().start(ctx -> {
            Set<Integer> before = rt.probe().openFds(ctx);
            List<String> outcomes = new ArrayList<>();
            for (String variant : List.of("closed", "timed out")) {
                Listener listener = ctx.bind(ANY_PORT).await();
                if (variant.equals("closed")) {
                    Operation<Connection> first = listener.accept();
                    assertFalse(first.poll(dev.lockstep.Waker.noop()).isReady());
                    ctx.sleep(Duration.ofMillis(5));
                    first.close();
                } else {
                    assertThrows(TimeoutException.class,
                            () -> ctx.timeout(Duration.ofMillis(5), () -> listener.accept().await()));
                }
                Operation<Connection> accepting = listener.accept();
                Connection client = ctx.dial(listener.localAddress()).await();
                String outcome;
                try (Connection server = ctx.timeout(Duration.ofSeconds(2), accepting::await)) {
                    client.sink().send(bytes("x")).await();
                    assertArrayEquals(bytes("x"), server.stream().recv(1).await());
                    outcome = "accepted";
                } catch (TimeoutException stuck) {
                    // Diagnosis: does a second connection wake the accept, and with which connection?
                    accepting = listener.accept();
                    Operation<Connection> again = accepting;
                    try (Connection second = ctx.dial(listener.localAddress()).await();
                         Connection server = ctx.timeout(Duration.ofSeconds(2), again::await)) {
                        second.sink().send(bytes("2")).await();
                        client.sink().send(bytes("1")).await();
                        outcome = "no accept within 2 s; after a second dial an accept got the connection that sent '"
                                + new String(server.stream().recv(1).await(), StandardCharsets.UTF_8) + "'";
                    } catch (TimeoutException stillStuck) {
                        outcome = "no accept within 2 s, nor after a second dial";
                    }
                }
                client.close();
                accepting.close();
                listener.close();
                report(rt, "accept after a " + variant + " accept", outcome);
                outcomes.add(variant + ": " + outcome);
            }
            until(ctx, "every fd is released", () -> rt.probe().openFds(ctx).equals(before));
            assertEquals(List.of("closed: accepted", "timed out: accepted"), outcomes);
            return null;
        });
    }

    /** A timed-out accept or receive ends typed; the listener still accepts afterwards. */
    @Conformance
    void testTimeoutsOnAcceptAndReceive(Runtimes rt) {
        rt.runner().start(ctx -> {
            Set<Integer> before = rt.probe().openFds(ctx);
            Listener listener = ctx.bind(ANY_PORT).await();
            TimeoutException timedOut = assertThrows(TimeoutException.class,
                    () -> ctx.timeout(Duration.ofMillis(5), () -> listener.accept().await()));
            report(rt, "accept timeout", timedOut.getMessage());
            // Bounded: on runtime-uring this accept hung (see testAcceptRightAfterAClosedAcceptGetsTheNextConnection).
            Connection[] ends = ctx.timeout(Duration.ofSeconds(5), () -> pair(ctx, listener));
            assertThrows(TimeoutException.class,
                    () -> ctx.timeout(Duration.ofMillis(5), () -> ends[1].stream().recv(1).await()));
            ends[0].sink().send(bytes("x")).await();
            assertThrows(ClosedException.class, () -> ends[1].stream().recv(1).await());
            ends[0].close();
            ends[1].close();
            listener.close();
            until(ctx, "every fd is released", () -> rt.probe().openFds(ctx).equals(before));
            return null;
        });
    }

    /**
     * Sending to a peer that closed: a SendFailedException naming the peer, then ClosedException; receiving from
     * a peer that closed with our data unread (a reset) fails RecvFailedException.
     */
    @Conformance
    void testSendToAClosedPeer(Runtimes rt) {
        rt.runner().start(ctx -> {
            try (Listener listener = ctx.bind(ANY_PORT).await()) {
                Connection[] ends = pair(ctx, listener);
                ends[0].sink().send(bytes("unread")).await();
                ctx.sleep(Duration.ofMillis(20)); // the data arrived, unread
                ends[1].close(); // with unread data: the client is reset
                SendFailedException failed = null;
                for (int i = 0; i < 10_000 && failed == null; i++) {
                    try {
                        ends[0].sink().send(new byte[100]).await();
                        ctx.sleep(Duration.ofMillis(1));
                    } catch (SendFailedException e) {
                        failed = e;
                    }
                }
                assertTrue(failed != null, "never failed");
                report(rt, "send to closed peer", failed.getMessage());
                assertTrue(failed.getMessage().contains(String.valueOf(listener.localAddress().getPort())),
                        failed.getMessage());
                assertThrows(ClosedException.class, () -> ends[0].sink().send(bytes("x")).await());
                RecvFailedException reset = assertThrows(RecvFailedException.class,
                        () -> ends[0].stream().recv(1).await());
                report(rt, "recv after reset", reset.getMessage());
                ends[0].close();
            }
            return null;
        });
    }

    /** Bad ranges and nulls on the buffer and array paths: refused at the call, typed, naming the value. */
    @Conformance
    void testBadRangesAndNulls(Runtimes rt) {
        rt.runner().start(ctx -> {
            try (Listener listener = ctx.bind(ANY_PORT).await()) {
                Connection[] ends = pair(ctx, listener);
                IoBuffer buffer = ctx.buffers().allocate(4096);
                List<String> messages = new ArrayList<>();
                messages.add(assertThrows(IllegalArgumentException.class,
                        () -> ends[0].sink().sendFrom(buffer, Integer.MAX_VALUE, 1)).getMessage());
                messages.add(assertThrows(IllegalArgumentException.class,
                        () -> ends[1].stream().recvInto(buffer, 4096, 1)).getMessage());
                messages.add(assertThrows(IllegalArgumentException.class,
                        () -> ends[1].stream().recvInto(buffer, -1, 0)).getMessage());
                messages.add(assertThrows(IllegalArgumentException.class,
                        () -> ends[1].stream().recvInto(buffer, 0, -7)).getMessage());
                messages.add(String.valueOf(assertThrows(NullPointerException.class,
                        () -> ends[0].sink().send((byte[]) null)).getMessage()));
                messages.add(String.valueOf(assertThrows(NullPointerException.class,
                        () -> ends[0].sink().send((byte[][]) null)).getMessage()));
                messages.add(String.valueOf(assertThrows(NullPointerException.class,
                        () -> ends[1].stream().recvInto(null, 0, 1)).getMessage()));
                report(rt, "bad ranges", messages);
                assertTrue(messages.get(0).contains(String.valueOf(Integer.MAX_VALUE)), messages.get(0));
                assertTrue(messages.get(1).contains("4096"), messages.get(1));
                assertTrue(messages.get(2).contains("-1"), messages.get(2));
                assertTrue(messages.get(3).contains("-7"), messages.get(3));
                assertEquals(List.of("chunk", "chunks", "buffer"), messages.subList(4, 7),
                        "a null names the parameter, not an internal local");
                // Zero-length transfers at the very end of the buffer complete at once; nothing was poisoned.
                ends[0].sink().sendFrom(buffer, 4096, 0).await();
                ends[1].stream().recvInto(buffer, 4096, 0).await();
                buffer.segment().set(ValueLayout.JAVA_BYTE, 0, (byte) 9);
                ends[0].sink().sendFrom(buffer, 0, 1).await();
                ends[1].stream().recvInto(buffer, 4095, 1).await();
                assertEquals(9, buffer.segment().get(ValueLayout.JAVA_BYTE, 4095));
                buffer.close();
                ends[0].close();
                ends[1].close();
            }
            return null;
        });
    }
}
