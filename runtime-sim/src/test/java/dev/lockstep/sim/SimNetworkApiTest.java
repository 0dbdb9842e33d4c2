package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.BindFailedException;
import dev.lockstep.Connection;
import dev.lockstep.ConnectionFailedException;
import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import dev.lockstep.RecvFailedException;
import dev.lockstep.TimeoutException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The network through the public API: bind, dial, accept, send, receive over the simulated hosts. */
class SimNetworkApiTest {

    private static final Duration LATENCY = Duration.ofMillis(2);

    private static SimRunner runner(long seed, int workers) {
        return SimRunner.of(SimConfig.builder().seed(seed).workers(workers)
                .network(NetworkConfig.DEFAULT.withDefaultLink(new LinkProfile(LATENCY.toNanos(), 0))
                        .withConnectTimeoutNanos(Duration.ofSeconds(3).toNanos()))
                .build());
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** Accepts one connection and echoes {@code messages} messages of {@code size} bytes back. */
    private static Handle<String> echoServer(Context ctx, Listener listener, int messages, int size) {
        return ctx.child("server").spawnOn(1, c -> {
            try (listener; Connection connection = listener.accept().await()) {
                for (int i = 0; i < messages; i++) {
                    byte[] message = connection.stream().recv(size).await();
                    connection.sink().send(message).await();
                }
                return connection.peer().getAddress().getHostAddress();
            }
        });
    }

    @Test
    void echoBetweenTwoWorkersThatAreTwoHosts() {
        String[] seen = new String[3];
        runner(1, 2).start(ctx -> {
            SimControl sim = SimRunner.control(ctx);
            InetSocketAddress address = new InetSocketAddress(sim.host(1), 7000);
            Handle<Listener> bound = ctx.child("bind").spawnOn(1, c -> c.bind(address).await());
            Listener listener = bound.await();
            assertEquals(address, listener.localAddress());
            Handle<String> server = echoServer(ctx, listener, 2, 4);
            try (Connection connection = ctx.dial(address).await()) {
                Instant sent = ctx.now();
                connection.sink().send(bytes("ping")).await();
                seen[0] = text(connection.stream().recv(4).await());
                assertTrue(Duration.between(sent, ctx.now()).compareTo(LATENCY.multipliedBy(2)) >= 0,
                        "a round trip takes two link delays");
                connection.sink().send(bytes("pong")).await();
                seen[1] = text(connection.stream().recv(4).await());
            }
            seen[2] = server.await();
            return null;
        });
        assertEquals("ping", seen[0]);
        assertEquals("pong", seen[1]);
        assertEquals("127.0.0.1", seen[2], "the client is on worker 0's host");
    }

    @Test
    void anyLoopbackAddressAndTheWildcardMayBeBoundFromAnyWorker() {
        String[] seen = new String[2];
        runner(2, 3).start(ctx -> {
            // A wildcard listener on worker 2 accepts connections to 127.0.0.1, as on Linux.
            Listener wildcard = ctx.child("bind").spawnOn(2, c -> c.bind(new InetSocketAddress("0.0.0.0", 0))
                    .await()).await();
            int port = wildcard.localAddress().getPort();
            assertTrue(wildcard.localAddress().getAddress().isAnyLocalAddress(), wildcard.localAddress().toString());
            Handle<String> server = echoServer(ctx, wildcard, 1, 2);
            try (Connection connection = ctx.dial(new InetSocketAddress("127.0.0.1", port)).await()) {
                connection.sink().send(bytes("hi")).await();
                seen[0] = text(connection.stream().recv(2).await());
            }
            server.await();
            // Worker 0 binds 127.0.0.9 (another loopback address); a client on worker 1 (127.0.0.2) reaches it.
            Listener other = ctx.bind(new InetSocketAddress("127.0.0.9", 9000)).await();
            Handle<String> second = echoServer(ctx, other, 1, 3);
            Connection connection = ctx.child("client").spawnOn(1,
                    c -> c.dial(new InetSocketAddress("127.0.0.9", 9000)).await()).await();
            try (connection) {
                connection.sink().send(bytes("abc")).await();
                seen[1] = text(connection.stream().recv(3).await());
            }
            assertEquals("127.0.0.2", second.await(), "the dial ran on worker 1's host");
            return null;
        });
        assertEquals("hi", seen[0]);
        assertEquals("abc", seen[1]);
    }

    /**
     * On the loopback machine, port 0 takes the lowest ephemeral port free on every address that collides with the
     * one bound (the address itself and the wildcard), whichever of them holds each lower port; a port in use on
     * another loopback address does not count.
     */
    @Test
    void anEphemeralLoopbackPortIsFreeOnEveryCollidingAddress() {
        int first = dev.lockstep.sim.os.SimNetwork.FIRST_EPHEMERAL_PORT;
        int chosen = runner(5, 1).start(ctx -> {
            try (Listener own = ctx.bind(new InetSocketAddress("127.0.0.1", first)).await();
                 Listener wildcard = ctx.bind(new InetSocketAddress("0.0.0.0", first + 1)).await();
                 Listener ownAgain = ctx.bind(new InetSocketAddress("127.0.0.1", first + 2)).await();
                 Listener elsewhere = ctx.bind(new InetSocketAddress("127.0.0.9", first + 3)).await();
                 Listener ephemeral = ctx.bind(new InetSocketAddress("127.0.0.1", 0)).await()) {
                return ephemeral.localAddress().getPort();
            }
        });
        assertEquals(first + 3, chosen);
    }

    @Test
    void bindFailuresAreTyped() {
        runner(3, 1).start(ctx -> {
            Listener listener = ctx.bind(new InetSocketAddress("127.0.0.1", 8080)).await();
            BindFailedException inUse = assertThrows(BindFailedException.class,
                    () -> ctx.bind(new InetSocketAddress("127.0.0.1", 8080)).await());
            assertTrue(inUse.getMessage().contains("EADDRINUSE"), inUse.getMessage());
            BindFailedException notLocal = assertThrows(BindFailedException.class,
                    () -> ctx.bind(new InetSocketAddress("10.1.2.3", 80)).await());
            assertTrue(notLocal.getMessage().contains("EADDRNOTAVAIL"), notLocal.getMessage());
            ConnectionFailedException refused = assertThrows(ConnectionFailedException.class,
                    () -> ctx.dial(new InetSocketAddress("127.0.0.1", 8081)).await());
            assertTrue(refused.getMessage().contains("ECONNREFUSED"), refused.getMessage());
            listener.close();
            ctx.bind(new InetSocketAddress("127.0.0.1", 8080)).await().close();
            return null;
        });
    }

    @Test
    void partitionsHoldDataAndTimeOutConnectsUntilHealed() {
        runner(4, 2).start(ctx -> {
            SimControl sim = SimRunner.control(ctx);
            InetAddress client = sim.host(0);
            InetAddress server = sim.host(1);
            InetSocketAddress address = new InetSocketAddress(server, 7000);
            Listener listener = ctx.child("bind").spawnOn(1, c -> c.bind(address).await()).await();
            Handle<String> echo = echoServer(ctx, listener, 1, 5);

            sim.partition(client, server);
            assertTrue(sim.isPartitioned(client, server) && sim.isPartitioned(server, client));
            Instant before = ctx.now();
            ConnectionFailedException timedOut = assertThrows(ConnectionFailedException.class,
                    () -> ctx.dial(address).await());
            assertTrue(timedOut.getMessage().contains("ETIMEDOUT"), timedOut.getMessage());
            assertTrue(Duration.between(before, ctx.now()).compareTo(Duration.ofSeconds(3)) >= 0);
            sim.heal(client, server);

            try (Connection connection = ctx.dial(address).await()) {
                sim.partitionOneWay(client, server);
                connection.sink().send(bytes("hello")).await();
                // Held by the partition: no echo within a second of simulated time.
                assertThrows(TimeoutException.class,
                        () -> ctx.timeout(Duration.ofSeconds(1), () -> connection.stream().recv(5).await()));
                sim.healAll();
                assertFalse(sim.isPartitioned(client, server));
                // The cancelled receive poisoned the stream; the echo still arrives, which the server proves.
            }
            assertEquals("127.0.0.1", echo.await());
            return null;
        });
    }

    @Test
    void brokenConnectionsFailTheirReceivesWithRecvFailed() {
        runner(5, 2).start(ctx -> {
            SimControl sim = SimRunner.control(ctx);
            InetSocketAddress address = new InetSocketAddress(sim.host(1), 7001);
            Listener listener = ctx.child("bind").spawnOn(1, c -> c.bind(address).await()).await();
            Handle<Connection> accepted = ctx.child("accept").spawnOn(1, c -> listener.accept().await());
            try (Connection connection = ctx.dial(address).await(); Connection serverSide = accepted.await()) {
                assertEquals(1, sim.breakConnections(sim.host(1)));
                RecvFailedException reset = assertThrows(RecvFailedException.class,
                        () -> connection.stream().recv(1).await());
                assertTrue(reset.getMessage().contains("ECONNRESET"), reset.getMessage());
                assertThrows(RecvFailedException.class, () -> serverSide.stream().recv(1).await());
            }
            listener.close();
            return null;
        });
    }

    @Test
    void randomBreaksAreSeededAndReplay() {
        String first = breakyRun(6);
        assertEquals(first, breakyRun(6));
        assertTrue(first.contains("failed"), "a break rate of 0.3 breaks some of 20 sends: " + first);
    }

    private static String breakyRun(long seed) {
        SimConfig config = SimConfig.builder().seed(seed).workers(2)
                .network(NetworkConfig.DEFAULT.withBreakRate(0.3)).build();
        SimRunner runner = SimRunner.of(config);
        return runner.start(ctx -> {
            SimControl sim = SimRunner.control(ctx);
            InetSocketAddress address = new InetSocketAddress(sim.host(1), 7002);
            Listener listener = ctx.child("bind").spawnOn(1, c -> c.bind(address).await()).await();
            StringBuilder log = new StringBuilder();
            for (int i = 0; i < 20; i++) {
                Handle<Connection> accepted = ctx.child("accept" + i).spawnOn(1, c -> listener.accept().await());
                try (Connection connection = ctx.dial(address).await(); Connection serverEnd = accepted.await()) {
                    connection.sink().send(bytes("x")).await();
                    serverEnd.stream().peek(1);
                    log.append("ok ");
                } catch (dev.lockstep.SendFailedException broken) {
                    log.append("failed ");
                }
            }
            listener.close();
            return log + runner.config().toJava().substring(0, 10) + ctx.digest();
        });
    }
}
