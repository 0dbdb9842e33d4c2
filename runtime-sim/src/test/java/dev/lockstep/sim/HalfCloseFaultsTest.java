package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import dev.lockstep.RecvFailedException;
import dev.lockstep.Waker;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Half-close under the simulator's network faults: a partition holds the end of stream behind the data, in order,
 * until it heals; a reset or a crash of the peer is never mistaken for an end of stream.
 */
class HalfCloseFaultsTest {
    private static final int PORT = 7000;

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Every byte until end of stream; a failure other than the end of stream propagates. */
    private static String readToEnd(Connection connection) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        while (true) {
            try {
                all.writeBytes(connection.stream().recv(1).await());
            } catch (RecvFailedException failed) {
                if (!failed.getMessage().contains("the peer closed the connection")) {
                    throw failed;
                }
                return all.toString(StandardCharsets.UTF_8);
            }
        }
    }

    /** A server on worker 1 (host 127.0.0.2) that reads a request to its end and echoes it, then half-closes. */
    private static Handle<String> echoServer(Context ctx, Listener listener) {
        return ctx.child("server").spawnOn(1, c -> {
            try (Connection connection = listener.accept().await()) {
                String request = readToEnd(connection);
                connection.sink().send(utf8("echo: " + request)).await();
                connection.sink().close();
                return request;
            }
        });
    }

    @Test
    void aPartitionHoldsTheEndOfStreamBehindTheDataUntilItHeals() {
        String[] seen = new String[2];
        SimRunner.of(SimConfig.builder().seed(4).workers(2).build()).start(ctx -> {
            SimControl control = SimRunner.control(ctx);
            Listener listener = ctx.child("bind").spawnOn(1, c -> c.bind(new InetSocketAddress(control.host(1), PORT))
                    .await()).await();
            Handle<String> server = echoServer(ctx, listener);
            try (Connection client = ctx.dial(listener.localAddress()).await()) {
                control.partition(control.host(0), control.host(1));
                client.sink().send(utf8("request")).await();
                client.sink().close();
                ctx.sleep(Duration.ofSeconds(5));
                assertFalse(server.poll(Waker.noop()).isReady(), "nothing crossed the partition");
                control.heal(control.host(0), control.host(1));
                seen[0] = server.await();
                seen[1] = readToEnd(client);
            }
            listener.close();
            return null;
        });
        assertEquals("request", seen[0], "the data, then the end of stream, in order");
        assertEquals("echo: request", seen[1]);
    }

    @Test
    void aResetAfterTheHalfCloseIsNoEndOfStream() {
        RecvFailedException[] failure = new RecvFailedException[1];
        SimRunner.of(SimConfig.builder().seed(5).workers(2).build()).start(ctx -> {
            SimControl control = SimRunner.control(ctx);
            Listener listener = ctx.child("bind").spawnOn(1, c -> c.bind(new InetSocketAddress(control.host(1), PORT))
                    .await()).await();
            Handle<String> server = ctx.child("server").spawnOn(1, c -> {
                try (Connection connection = listener.accept().await()) {
                    String request = readToEnd(connection);
                    c.sleep(Duration.ofSeconds(1));           // the reset comes before the answer
                    return request;
                }
            });
            try (Connection client = ctx.dial(listener.localAddress()).await()) {
                client.sink().send(utf8("request")).await();
                client.sink().close();
                ctx.sleep(Duration.ofMillis(100));
                assertEquals(1, control.breakConnections(control.host(0)));
                failure[0] = assertThrows(RecvFailedException.class, () -> client.stream().recv(1).await());
            }
            assertEquals("request", server.await(), "the server had the whole request");
            listener.close();
            return null;
        });
        assertTrue(failure[0].getMessage().contains("ECONNRESET"), failure[0].getMessage());
    }

    @Test
    void aCrashOfTheNodeThatOwesTheAnswerIsNoEndOfStream() {
        RecvFailedException[] failure = new RecvFailedException[1];
        SimRunner.of(SimConfig.builder().seed(6).workers(1).build()).start(ctx -> {
            SimCluster cluster = SimCluster.of(ctx);
            InetSocketAddress address = new InetSocketAddress(SimCluster.address(1), PORT);
            SimNode node = cluster.start(c -> {
                try (Listener listener = c.bind(address).await(); Connection connection = listener.accept().await()) {
                    readToEnd(connection);
                    c.sleep(Duration.ofSeconds(10));          // crashed before it answers
                    return null;
                }
            });
            ctx.sleep(Duration.ofMillis(10));
            try (Connection client = ctx.dial(address).await()) {
                client.sink().send(utf8("request")).await();
                client.sink().close();
                ctx.sleep(Duration.ofMillis(100));
                node.crash();
                failure[0] = assertThrows(RecvFailedException.class, () -> client.stream().recv(1).await());
            }
            return null;
        });
        assertTrue(failure[0].getMessage().contains("ECONNRESET"), failure[0].getMessage());
    }
}
