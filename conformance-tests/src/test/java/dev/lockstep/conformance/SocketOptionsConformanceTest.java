package dev.lockstep.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Connection;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import dev.lockstep.Operation;
import dev.lockstep.RecvFailedException;
import dev.lockstep.SocketOptions;
import dev.lockstep.sync.Either;
import dev.lockstep.sync.Select;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;

/**
 * {@link SocketOptions} on every runtime: connections dialed and accepted with options carry bytes as any other,
 * a small send buffer on one end and a small receive buffer on the other make a large send wait for the peer to
 * read (where the default buffers take it whole), and bad values are refused naming them.
 */
@Group(ReadmeGroup.SOCKET_OPTIONS)
class SocketOptionsConformanceTest {
    /** Far more than two small buffers hold, even doubled and raised to Linux's minimums. */
    private static final int LARGE_SEND = 4 << 20;
    private static final int SMALL_BUFFER = 4096;
    /** What the default buffers of every runtime take whole, the peer reading nothing. */
    private static final int SMALL_SEND = 32 * 1024;
    /** Far longer than a send into free buffers takes, even on a loaded machine. */
    private static final Duration SEND_INTO_BUFFERS_TIMEOUT = Duration.ofSeconds(10);
    private static final byte[] HELLO = {'h', 'e', 'l', 'l', 'o'};

    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    /** Exactly {@code length} bytes, in as many receives as it takes. */
    private static byte[] recvExactly(Connection connection, int length) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        while (all.size() < length) {
            all.writeBytes(connection.stream().recv(length - all.size()).await());
        }
        return all.toByteArray();
    }

    /** Every option set on both ends: the bytes arrive whole, both ways. */
    @Conformance
    void testConnectionsWithOptionsCarryBytes(Runtimes rt) {
        SocketOptions options = SocketOptions.DEFAULTS.withNoDelay(false).withKeepAlive(true)
                .withSendBufferBytes(64 * 1024).withReceiveBufferBytes(64 * 1024);
        rt.runner().start(ctx -> {
            try (Listener listener = ctx.bind(ANY_PORT, options).await()) {
                Handle<byte[]> server = ctx.child("server").spawn(c -> {
                    try (Connection accepted = listener.accept().await()) {
                        byte[] request = recvExactly(accepted, 5);
                        accepted.sink().send(request).await();
                        return request;
                    }
                });
                try (Connection client = ctx.dial(listener.localAddress(), options).await()) {
                    client.sink().send(HELLO).await();
                    assertArrayEquals(HELLO, recvExactly(client, 5));
                }
                assertArrayEquals(HELLO, server.await());
            }
            return null;
        });
    }

    /**
     * With a small send buffer on the sender and a small receive buffer on the receiver, a send of 4 MiB the peer
     * does not read waits (a timer wins the race); once the peer reads, every byte arrives in order.
     */
    @Conformance
    void testSmallBuffersMakeALargeSendWaitForThePeer(Runtimes rt) {
        SocketOptions small = SocketOptions.DEFAULTS.withSendBufferBytes(SMALL_BUFFER)
                .withReceiveBufferBytes(SMALL_BUFFER);
        byte[] data = new byte[LARGE_SEND];
        Arrays.fill(data, (byte) 7);
        rt.runner().start(ctx -> {
            try (Listener listener = ctx.bind(ANY_PORT, small).await();
                 Connection client = ctx.dial(listener.localAddress(), small).await();
                 Connection accepted = listener.accept().await()) {
                Operation<Void> send = client.sink().send(data);
                Either<Void, Void> first = Select.either(send, ctx.sleeper(Duration.ofMillis(50))).await();
                assertInstanceOf(Either.Second.class, first, "4 MiB fit in two 4 KiB buffers");
                // The race closed the send, with part of the data handed over; the stream is now cut at an unknown
                // point, so the peer reads what arrived until the client closes.
                client.close();
                long received = 0;
                while (true) {
                    try {
                        received += accepted.stream().recv(64 * 1024).await().length;
                    } catch (RecvFailedException end) {
                        break;
                    }
                }
                assertTrue(received < LARGE_SEND, "the waiting send handed over all " + received + " bytes");
            }
            return null;
        });
    }

    /**
     * With the default buffers, a 32 KiB send completes though the peer reads nothing yet: it wins a race against a
     * timer far longer than a send into buffers takes, so a send that waits for the peer fails here instead of
     * hanging.
     */
    @Conformance
    void testDefaultBuffersTakeASmallSendWhole(Runtimes rt) {
        rt.runner().start(ctx -> {
            try (Listener listener = ctx.bind(ANY_PORT).await();
                 Connection client = ctx.dial(listener.localAddress()).await();
                 Connection accepted = listener.accept().await()) {
                Operation<Void> send = client.sink().send(new byte[SMALL_SEND]);
                Either<Void, Void> first = Select.either(send, ctx.sleeper(SEND_INTO_BUFFERS_TIMEOUT)).await();
                assertInstanceOf(Either.First.class, first,
                        "a " + SMALL_SEND + "-byte send still waited after " + SEND_INTO_BUFFERS_TIMEOUT
                                + " with the default buffers and the peer not reading");
                assertEquals(SMALL_SEND, recvExactly(accepted, SMALL_SEND).length);
            }
            return null;
        });
    }

    /** A negative size is refused at the call, naming it. */
    @Conformance
    void testNegativeSizesAreRefusedNamingTheValue(Runtimes rt) {
        IllegalArgumentException send = assertThrows(IllegalArgumentException.class,
                () -> SocketOptions.DEFAULTS.withSendBufferBytes(-1));
        assertTrue(send.getMessage().contains("send") && send.getMessage().contains("-1"), send.getMessage());
        IllegalArgumentException receive = assertThrows(IllegalArgumentException.class,
                () -> SocketOptions.DEFAULTS.withReceiveBufferBytes(-4096));
        assertTrue(receive.getMessage().contains("receive") && receive.getMessage().contains("-4096"),
                receive.getMessage());
        rt.runner().start(ctx -> {
            assertThrows(NullPointerException.class, () -> ctx.dial(new InetSocketAddress("127.0.0.1", 1), null));
            return null;
        });
    }
}
