package dev.lockstep.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Connection;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import dev.lockstep.Operation;
import dev.lockstep.RecvFailedException;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Half-close on every runtime: {@code Sink.close()} shuts the write side down, the peer's receive (a pending one
 * included) sees end of stream after every byte sent before it, and the peer can still answer on its own sink.
 * That is a request/response protocol that ends its request by half-closing (HTTP/1.0 bodies, {@code nc}).
 */
@Group(ReadmeGroup.HALF_CLOSE)
class HalfCloseConformanceTest {
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    /** Every byte until end of stream, one receive at a time. */
    static byte[] readToEnd(Connection connection) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        while (true) {
            try {
                all.writeBytes(connection.stream().recv(1).await());
            } catch (RecvFailedException end) {
                assertTrue(end.getMessage().contains("the peer closed the connection"), end.getMessage());
                return all.toByteArray();
            }
        }
    }

    /** The request ends with the client's half-close; the server answers, then half-closes in turn. */
    @Conformance
    void testAHalfClosedRequestGetsItsResponse(Runtimes rt) {
        rt.runner().start(ctx -> {
            try (Listener listener = ctx.bind(ANY_PORT).await()) {
                Handle<String> server = ctx.child("server").spawnOn(ctx.workers() - 1, c -> {
                    try (Connection connection = listener.accept().await()) {
                        String request = new String(readToEnd(connection), StandardCharsets.UTF_8);
                        connection.sink().send(("echo: " + request).getBytes(StandardCharsets.UTF_8)).await();
                        connection.sink().close();
                        return request;
                    }
                });
                try (Connection client = ctx.dial(listener.localAddress()).await()) {
                    client.sink().send("GET /".getBytes(StandardCharsets.UTF_8), " HTTP/1.0".getBytes(
                            StandardCharsets.UTF_8)).await();
                    client.sink().close();
                    assertEquals("echo: GET / HTTP/1.0", new String(readToEnd(client), StandardCharsets.UTF_8));
                }
                assertEquals("GET / HTTP/1.0", server.await());
            }
            return null;
        });
    }

    /**
     * A receive already waiting when the peer half-closes: it gets the bytes sent before, then the next one ends
     * the stream; the waiting side still sends and the half-closed side still receives.
     */
    @Conformance
    void testAPendingReceiveSeesTheDataThenEndOfStream(Runtimes rt) {
        rt.runner().start(ctx -> {
            try (Listener listener = ctx.bind(ANY_PORT).await()) {
                Operation<Connection> accepted = listener.accept();
                try (Connection client = ctx.dial(listener.localAddress()).await();
                     Connection server = accepted.await()) {
                    Handle<byte[]> waiting = ctx.child("waiting").spawnOn(ctx.workers() - 1,
                            c -> server.stream().recv(3).await());
                    ctx.sleep(Duration.ofMillis(5));
                    assertFalse(waiting.poll(dev.lockstep.Waker.noop()).isReady(), "nothing was sent yet");
                    client.sink().send("abc".getBytes(StandardCharsets.UTF_8)).await();
                    client.sink().close();
                    assertArrayEquals("abc".getBytes(StandardCharsets.UTF_8), waiting.await());
                    Handle<byte[]> atEnd = ctx.child("atEnd").spawnOn(ctx.workers() - 1, c -> readToEnd(server));
                    assertEquals(0, atEnd.await().length, "nothing after the half-close");
                    server.sink().send("still open".getBytes(StandardCharsets.UTF_8)).await();
                    assertEquals("still open", new String(client.stream().recv(10).await(), StandardCharsets.UTF_8));
                }
            }
            return null;
        });
    }
}
