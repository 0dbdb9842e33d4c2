package dev.lockstep.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.BlobInsufficientLengthException;
import dev.lockstep.BufferPool;
import dev.lockstep.ClosedException;
import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.IoBuffer;
import dev.lockstep.Listener;
import dev.lockstep.Operation;
import dev.lockstep.RecvFailedException;
import dev.lockstep.TimeoutException;
import dev.lockstep.Turns;
import dev.lockstep.WriteOptions;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The buffer calls that wait themselves — {@link Blob#readFully}, {@link Blob#writeFully},
 * {@link dev.lockstep.Stream#recvFully} and {@link dev.lockstep.Sink#sendFully} — on every runtime: they move the
 * same bytes as {@code readInto(...).await()} and its kin, refuse the same bad input with the same typed and
 * named errors, and end early the same way (a closed stream, an aborted task, an expired timeout), closing what
 * they started. The runtime reuses one operation per fiber for them, so each case also runs many calls in a row,
 * mixed with the calls that return an operation, and checks that a call after an early end works.
 */
@Group(ReadmeGroup.WAITING_BUFFER_CALLS)
class WaitingBufferCallsConformanceTest {
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    private static void fill(IoBuffer buffer, int seed) {
        BufferConformanceTest.fill(buffer, seed);
    }

    private static byte[] bytes(IoBuffer buffer, int at, int length) {
        return BufferConformanceTest.bytes(buffer, at, length);
    }

    /** Lets a task spawned just now reach its wait. */
    private static void letItWait(Context ctx) {
        for (int i = 0; i < 16; i++) {
            Turns.reschedule();
        }
        ctx.sleep(Duration.ofMillis(1));
    }

    /** Blob reads and writes: the bytes land and come back, mixed with the operation calls, on many blocks. */
    @Conformance
    void testBlobReadFullyWriteFully(Runtimes rt) {
        rt.runner().start(ctx -> {
            BufferPool pool = ctx.buffers();
            try (IoBuffer out = pool.allocate(8192); IoBuffer in = pool.allocate(8192);
                 Blob blob = ctx.open("fully", "blob").await().blob()) {
                for (int block = 0; block < 64; block++) {
                    fill(out, block);
                    if (block % 3 == 0) {
                        blob.writeFrom(block * 100L, out, block, 100).await();
                    } else {
                        blob.writeFully(block * 100L, out, block, 100, block % 3 == 1 ? WriteOptions.NONE
                                : WriteOptions.SYNC);
                    }
                }
                assertEquals(6400, blob.length());
                for (int block = 63; block >= 0; block--) {
                    fill(out, block);
                    if (block % 2 == 0) {
                        blob.readFully(block * 100L, in, 4000, 100);
                    } else {
                        blob.readInto(block * 100L, in, 4000, 100).await();
                    }
                    assertArrayEquals(bytes(out, block, 100), bytes(in, 4000, 100), "block " + block);
                }
                // A whole range read back in one call, and the byte[] calls see what the buffer calls wrote.
                fill(out, 99);
                blob.writeFully(6400, out, 0, 8192);
                blob.readFully(6400, in, 0, 8192);
                assertArrayEquals(bytes(out, 0, 8192), bytes(in, 0, 8192));
                assertArrayEquals(bytes(out, 0, 8192), blob.readAt(6400, 8192).await());
                // Zero-length calls change nothing and need no range in the buffer.
                blob.readFully(1 << 20, in, in.capacity(), 0);
                blob.writeFully(1 << 20, out, 0, 0);
                assertEquals(6400 + 8192, blob.length());
                // Past the end: typed, the buffer back with its holder, and the next call works.
                BlobInsufficientLengthException past = assertThrows(BlobInsufficientLengthException.class,
                        () -> blob.readFully(6400 + 8000, in, 0, 500));
                assertTrue(past.getMessage().contains(String.valueOf(6400 + 8000)), past.getMessage());
                in.segment();
                blob.readFully(0, in, 0, 100);
                fill(out, 0);
                assertArrayEquals(bytes(out, 0, 100), bytes(in, 0, 100));
            }
            assertEquals(0, ctx.buffers().outstanding());
            return null;
        });
    }

    /** Bad input: the waiting call throws what the operation call throws, with the same message. */
    @Conformance
    void testBadInputIsRefusedAsByTheOperationCalls(Runtimes rt) {
        rt.runner().start(ctx -> {
            BufferPool pool = ctx.buffers();
            Listener listener = ctx.bind(ANY_PORT).await();
            Operation<Connection> accepted = listener.accept();
            Connection client = ctx.dial(listener.localAddress()).await();
            Connection server = accepted.await();
            try (Blob blob = ctx.open("fully", "bad").await().blob()) {
                IoBuffer buffer = pool.allocate(4096);
                sameRefusal(IllegalArgumentException.class, () -> blob.readInto(0, buffer, 1, 4096),
                        () -> blob.readFully(0, buffer, 1, 4096));
                sameRefusal(IllegalArgumentException.class, () -> blob.writeFrom(0, buffer, -1, 8),
                        () -> blob.writeFully(0, buffer, -1, 8));
                sameRefusal(IllegalArgumentException.class, () -> blob.readInto(-5, buffer, 0, 1),
                        () -> blob.readFully(-5, buffer, 0, 1));
                sameRefusal(IllegalArgumentException.class,
                        () -> blob.readInto(0, buffer, 0, Blob.MAX_TRANSFER_BYTES + 1),
                        () -> blob.readFully(0, buffer, 0, Blob.MAX_TRANSFER_BYTES + 1));
                sameRefusal(IllegalArgumentException.class, () -> client.sink().sendFrom(buffer, 1, 4096),
                        () -> client.sink().sendFully(buffer, 1, 4096));
                sameRefusal(IllegalArgumentException.class, () -> server.stream().recvInto(buffer, 0, -3),
                        () -> server.stream().recvFully(buffer, 0, -3));
                assertThrows(NullPointerException.class, () -> blob.readFully(0, null, 0, 1));
                assertThrows(NullPointerException.class, () -> blob.writeFully(0, buffer, 0, 1, null));
                // A buffer in flight in another operation is refused, and nothing is written.
                Operation<Void> receive = server.stream().recvInto(buffer, 0, 1);
                sameRefusal(IllegalStateException.class, () -> blob.writeFrom(0, buffer, 0, 1),
                        () -> blob.writeFully(0, buffer, 0, 1));
                client.sink().send(new byte[] {7}).await();
                receive.await();
                buffer.close();
                sameRefusal(ClosedException.class, () -> blob.readInto(0, buffer, 0, 1),
                        () -> blob.readFully(0, buffer, 0, 1));
                sameRefusal(ClosedException.class, () -> client.sink().sendFrom(buffer, 0, 1),
                        () -> client.sink().sendFully(buffer, 0, 1));
                assertEquals(0, blob.length());
            }
            client.close();
            server.close();
            listener.close();
            assertEquals(0, pool.outstanding());
            return null;
        });
    }

    private static void sameRefusal(Class<? extends RuntimeException> type, Supplier<Operation<Void>> operationCall,
                                    Runnable waitingCall) {
        RuntimeException byOperation = assertThrows(type, operationCall::get);
        RuntimeException byWaiting = assertThrows(type, waitingCall::run);
        assertEquals(byOperation.getMessage(), byWaiting.getMessage());
    }

    /**
     * Receives and sends on one connection, message after message in both directions, mixed with the byte[]
     * and operation calls (a byte[] receive's surplus comes first); the peer's close fails the receive with
     * {@link RecvFailedException} and hands the buffer back.
     */
    @Conformance
    void testRecvFullySendFully(Runtimes rt) {
        rt.runner().start(ctx -> {
            Listener listener = ctx.bind(ANY_PORT).await();
            Operation<Connection> accepted = listener.accept();
            Connection client = ctx.dial(listener.localAddress()).await();
            Connection server = accepted.await();
            try (IoBuffer out = ctx.buffers().allocate(4096); IoBuffer in = ctx.buffers().allocate(4096)) {
                for (int n = 0; n < 200; n++) {
                    fill(out, n);
                    int length = 1 + n * 17 % 4000;
                    if (n % 4 == 3) {
                        client.sink().sendFrom(out, 0, length).await();
                    } else {
                        client.sink().sendFully(out, 0, length);
                    }
                    if (n % 5 == 4) {
                        server.stream().recvInto(in, 96, length).await();
                    } else {
                        server.stream().recvFully(in, 96, length);
                    }
                    assertArrayEquals(bytes(out, 0, length), bytes(in, 96, length), "message " + n);
                }
                client.sink().send(new byte[] {1, 2, 3, 4, 5, 6}).await();
                assertArrayEquals(new byte[] {1, 2}, server.stream().recv(2).await());
                server.stream().recvFully(in, 0, 4);
                assertArrayEquals(new byte[] {3, 4, 5, 6}, bytes(in, 0, 4));
                client.sink().close();
                assertThrows(RecvFailedException.class, () -> server.stream().recvFully(in, 0, 10));
                in.segment();
            }
            assertEquals(0, ctx.buffers().outstanding());
            client.close();
            server.close();
            listener.close();
            return null;
        });
    }

    /**
     * A stream closed by another task while a fiber waits in {@code recvFully}: the wait ends with
     * {@link ClosedException}, the stream stays closed, and the same fiber's next waiting calls — on another
     * connection — work: the close reached that one receive and nothing the fiber did after it.
     */
    @Conformance
    void testAStreamClosedDuringTheWaitEndsItAndNothingAfter(Runtimes rt) {
        rt.runner().start(ctx -> {
            try (Listener listener = ctx.bind(ANY_PORT).await()) {
                Operation<Connection> firstAccepted = listener.accept();
                try (Connection firstClient = ctx.dial(listener.localAddress()).await();
                     Connection first = firstAccepted.await()) {
                    Operation<Connection> secondAccepted = listener.accept();
                    try (Connection secondClient = ctx.dial(listener.localAddress()).await();
                         Connection second = secondAccepted.await()) {
                        closeDuringTheWait(ctx, first, second, secondClient);
                    }
                }
            }
            return null;
        });
    }

    private static void closeDuringTheWait(Context ctx, Connection first, Connection second,
                                           Connection secondClient) {
        Handle<String> receiver = ctx.child("receiver").spawn(c -> {
            try (IoBuffer waited = c.buffers().allocate(64); IoBuffer in = c.buffers().allocate(64)) {
                assertThrows(ClosedException.class, () -> first.stream().recvFully(waited, 0, 64));
                // The closed receive keeps its buffer until the kernel lets go; the stream stays closed.
                assertThrows(ClosedException.class, () -> first.stream().recvFully(in, 0, 1));
                for (int n = 0; n < 20; n++) {
                    second.stream().recvFully(in, 0, 8);
                    second.sink().sendFully(in, 0, 8);
                }
                return new String(bytes(in, 0, 8), java.nio.charset.StandardCharsets.US_ASCII);
            }
        });
        letItWait(ctx);
        first.stream().close();
        try {
            ctx.timeout(Duration.ofSeconds(30), () -> {
                for (int n = 0; n < 20; n++) {
                    byte[] message = String.format("message%d", n % 10)
                            .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                    secondClient.sink().send(message).await();
                    assertArrayEquals(message, secondClient.stream().recv(8).await());
                }
                return null;
            });
        } catch (TimeoutException noEcho) {
            receiver.await(); // the receiver's own failure, if it ended early
            throw noEcho;
        }
        assertEquals("message9", receiver.await());
    }

    /**
     * An expired {@code Clock.timeout} ends a waiting receive with {@link TimeoutException} and poisons the
     * stream as a timed-out {@code recvInto} does; the sink still works. An aborted task's waiting receive ends
     * with {@link ClosedException}, and its buffer comes back to the pool once the kernel let go.
     */
    @Conformance
    void testTimeoutAndAbortEndTheWait(Runtimes rt) {
        rt.runner().start(ctx -> {
            Listener listener = ctx.bind(ANY_PORT).await();
            Operation<Connection> accepted = listener.accept();
            Connection client = ctx.dial(listener.localAddress()).await();
            Connection peer = accepted.await();
            try (IoBuffer in = ctx.buffers().allocate(64)) {
                assertThrows(TimeoutException.class, () -> ctx.timeout(Duration.ofMillis(5), () -> {
                    client.stream().recvFully(in, 0, 1);
                    return null;
                }));
                // The cancelled receive keeps its buffer until the kernel lets go, as a closed recvInto does.
                try (IoBuffer other = ctx.buffers().allocate(64)) {
                    assertThrows(ClosedException.class, () -> client.stream().recvFully(other, 0, 1));
                    fill(other, 3);
                    client.sink().sendFully(other, 0, 2);
                    assertArrayEquals(bytes(other, 0, 2), peer.stream().recv(2).await());
                }
            }
            Handle<Void> holder = ctx.child("holder").spawn(c -> {
                try (IoBuffer in = c.buffers().allocate(64)) {
                    peer.stream().recvFully(in, 0, 64);
                }
                return null;
            });
            letItWait(ctx);
            holder.abort();
            assertThrows(ClosedException.class, holder::await);
            for (int turn = 0; turn < 10_000 && ctx.buffers().outstanding() != 0; turn++) {
                ctx.sleep(Duration.ofMillis(1));
            }
            assertEquals(0, ctx.buffers().outstanding());
            client.close();
            peer.close();
            listener.close();
            return null;
        });
    }
}
