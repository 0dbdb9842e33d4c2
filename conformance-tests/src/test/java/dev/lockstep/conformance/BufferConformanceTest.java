package dev.lockstep.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.BlobInsufficientLengthException;
import dev.lockstep.BlobMisalignedException;
import dev.lockstep.BufferPool;
import dev.lockstep.ClosedException;
import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.IoBuffer;
import dev.lockstep.Listener;
import dev.lockstep.OpenOptions;
import dev.lockstep.Operation;
import dev.lockstep.RecvFailedException;
import dev.lockstep.WriteOptions;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The buffer calls on every runtime: {@link Blob#readInto}, {@link Blob#writeFrom}, {@link dev.lockstep.Stream#recvInto}
 * and {@link dev.lockstep.Sink#sendFrom} over {@link IoBuffer}s of the worker's {@link BufferPool}; their
 * ownership rules (in flight, back after success, failure and cancellation, released), bad input typed and
 * named, direct I/O alignment, and the pool's outstanding count back to zero. These are also the checks 29–31
 * of commonware's storage tests ({@code read_at_buf} into caller buffers).
 */
@Group(ReadmeGroup.BUFFERS)
class BufferConformanceTest {
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    static void fill(IoBuffer buffer, int seed) {
        MemorySegment memory = buffer.segment();
        for (int i = 0; i < buffer.capacity(); i++) {
            memory.set(ValueLayout.JAVA_BYTE, i, (byte) (seed + i * 31));
        }
    }

    static byte[] bytes(IoBuffer buffer, int at, int length) {
        return buffer.segment().asSlice(at, length).toArray(ValueLayout.JAVA_BYTE);
    }

    private static void assertNames(RuntimeException failure, String... parts) {
        for (String part : parts) {
            assertTrue(failure.getMessage().contains(part), "'" + failure.getMessage() + "' should name " + part);
        }
    }

    /** Waits, in the runtime's time, until the kernel has let go of every buffer closed while in flight. */
    private static void awaitOutstanding(Context ctx, BufferPool pool, int expected) {
        for (int turn = 0; turn < 10_000 && pool.outstanding() != expected; turn++) {
            ctx.sleep(Duration.ofMillis(1));
        }
        assertEquals(expected, pool.outstanding());
    }

    /** Bytes written from a buffer read back through both read calls; sizes round up to page-aligned classes. */
    @Conformance
    void testWriteFromReadInto(Runtimes rt) {
        rt.runner().start(ctx -> {
            BufferPool pool = ctx.buffers();
            assertEquals(0, pool.outstanding());
            try (IoBuffer out = pool.allocate(5000); IoBuffer in = pool.allocate(1)) {
                assertEquals(8192, out.capacity());
                assertEquals(BufferPool.PAGE_BYTES, in.capacity());
                assertEquals(0, out.segment().address() % BufferPool.PAGE_BYTES);
                assertEquals(0, in.segment().address() % BufferPool.PAGE_BYTES);
                assertEquals(2, pool.outstanding());
                fill(out, 7);
                byte[] expected = bytes(out, 100, 5000);
                try (Blob blob = ctx.open("buffers", "blob").await().blob()) {
                    blob.writeFrom(10, out, 100, 5000).await();
                    assertEquals(5010, blob.length());
                    assertArrayEquals(expected, blob.readAt(10, 5000).await());
                    blob.readInto(1010, in, 96, 4000).await();
                    assertArrayEquals(java.util.Arrays.copyOfRange(expected, 1000, 5000), bytes(in, 96, 4000));
                    // byte[] writes land where buffer reads find them, and the reverse.
                    blob.writeAt(0, new byte[] {1, 2, 3}).await();
                    blob.readInto(0, in, 0, 3).await();
                    assertArrayEquals(new byte[] {1, 2, 3}, bytes(in, 0, 3));
                    blob.writeFrom(5010, out, 0, 8192, WriteOptions.SYNC).await();
                    assertArrayEquals(bytes(out, 0, 8192), blob.readAt(5010, 8192).await());
                    // Zero-length calls change nothing.
                    blob.readInto(0, in, in.capacity(), 0).await();
                    blob.writeFrom(99_999, out, 0, 0).await();
                    assertEquals(5010 + 8192, blob.length());
                }
            }
            assertEquals(0, pool.outstanding());
            return null;
        });
    }

    /** A buffer larger than the largest size class is its own allocation, freed when released. */
    @Conformance
    void testLargeBuffer(Runtimes rt) {
        rt.runner().start(ctx -> {
            BufferPool pool = ctx.buffers();
            IoBuffer large = pool.allocate(BufferPool.LARGEST_CLASS_BYTES + 1);
            assertEquals(BufferPool.LARGEST_CLASS_BYTES + BufferPool.PAGE_BYTES, large.capacity());
            fill(large, 3);
            try (Blob blob = ctx.open("buffers", "large").await().blob()) {
                blob.writeFrom(0, large, 0, large.capacity()).await();
                assertArrayEquals(bytes(large, 0, large.capacity()), blob.readAt(0, large.capacity()).await());
            }
            MemorySegment kept = large.segment();
            large.close();
            assertEquals(0, pool.outstanding());
            // Its memory is gone: a segment kept past close() throws instead of reading freed memory.
            assertThrows(IllegalStateException.class, () -> kept.get(ValueLayout.JAVA_BYTE, 0));
            return null;
        });
    }

    /**
     * Bad input is refused at the call, typed and named: sizes, ranges, a released buffer, a buffer in flight;
     * nothing reaches the blob.
     */
    @Conformance
    void testBadInput(Runtimes rt) {
        rt.runner().start(ctx -> {
            BufferPool pool = ctx.buffers();
            assertNames(assertThrows(IllegalArgumentException.class, () -> pool.allocate(0)), "was 0");
            assertNames(assertThrows(IllegalArgumentException.class,
                    () -> pool.allocate(BufferPool.MAX_BUFFER_BYTES + 1)), "was " + (BufferPool.MAX_BUFFER_BYTES + 1));
            try (Blob blob = ctx.open("buffers", "bad").await().blob()) {
                IoBuffer buffer = pool.allocate(4096);
                assertNames(assertThrows(IllegalArgumentException.class, () -> blob.readInto(0, buffer, 1, 4096)),
                        "[1, 1 + 4096)", "capacity 4096");
                assertNames(assertThrows(IllegalArgumentException.class, () -> blob.writeFrom(0, buffer, -1, 8)),
                        "[-1");
                assertNames(assertThrows(IllegalArgumentException.class, () -> blob.readInto(0, buffer, 0, -1)),
                        "-1");
                assertNames(assertThrows(IllegalArgumentException.class, () -> blob.readInto(-5, buffer, 0, 1)),
                        "-5");
                assertThrows(NullPointerException.class, () -> blob.readInto(0, null, 0, 1));
                // In flight from the call until it completes: a second call and segment() are refused.
                Operation<Void> read = blob.readInto(0, buffer, 0, 0 + 1);
                assertNames(assertThrows(IllegalStateException.class, () -> blob.writeFrom(0, buffer, 0, 1)),
                        "in flight");
                assertThrows(IllegalStateException.class, buffer::segment);
                assertThrows(BlobInsufficientLengthException.class, read::await);
                buffer.segment(); // back with its holder after a failure
                buffer.close();
                buffer.close(); // idempotent
                assertNames(assertThrows(ClosedException.class, () -> blob.readInto(0, buffer, 0, 1)), "released");
                assertThrows(ClosedException.class, () -> blob.writeFrom(0, buffer, 0, 1));
                assertThrows(ClosedException.class, buffer::segment);
                assertEquals(0, blob.length());
            }
            assertEquals(0, pool.outstanding());
            return null;
        });
    }

    /**
     * A buffer serves only the worker (and runner) whose pool allocated it; released when its runner ends, so
     * the count is back to zero even for buffers the task never closed.
     */
    @Conformance
    void testOwnershipAcrossWorkersAndRunners(Runtimes rt) {
        AtomicReference<IoBuffer> leaked = new AtomicReference<>();
        AtomicReference<BufferPool> firstPool = new AtomicReference<>();
        rt.runner().start(ctx -> {
            firstPool.set(ctx.buffers());
            leaked.set(ctx.buffers().allocate(4096));
            if (ctx.workers() > 1) {
                IoBuffer foreign = ctx.child("allocate").spawnOn(1, inner -> inner.buffers().allocate(4096)).await();
                try (Blob blob = ctx.open("buffers", "foreign").await().blob()) {
                    assertNames(assertThrows(IllegalArgumentException.class, () -> blob.writeFrom(0, foreign, 0, 1)),
                            "worker 1", "worker 0");
                }
                assertNames(assertThrows(IllegalStateException.class, foreign::close), "worker 1");
                assertThrows(IllegalStateException.class, foreign::segment);
                ctx.child("release").spawnOn(1, inner -> {
                    foreign.close();
                    return null;
                }).await();
            }
            assertEquals(1, ctx.buffers().outstanding());
            return null;
        });
        // The runner ended: its pools released every buffer and freed their memory.
        assertEquals(0, firstPool.get().outstanding());
        assertThrows(ClosedException.class, leaked.get()::segment);
        leaked.get().close(); // a no-op now
        rt.runner().start(ctx -> {
            try (Blob blob = ctx.open("buffers", "other").await().blob()) {
                assertNames(assertThrows(IllegalArgumentException.class,
                        () -> blob.readInto(0, leaked.get(), 0, 1)), "another runner");
            }
            assertNames(assertThrows(IllegalStateException.class, () -> firstPool.get().allocate(1)),
                    "another runner");
            return null;
        });
    }

    /**
     * Closing an operation never frees its buffer: the buffer stays in flight until the kernel lets go, and a
     * buffer released meanwhile returns to the pool only then. Retained writes finish with the buffer's bytes.
     */
    @Conformance
    void testClosedOperations(Runtimes rt) {
        rt.runner().start(ctx -> {
            BufferPool pool = ctx.buffers();
            try (Blob blob = ctx.open("buffers", "closed").await().blob()) {
                IoBuffer source = pool.allocate(4096);
                fill(source, 11);
                byte[] expected = bytes(source, 0, 4096);
                blob.writeFrom(0, source, 0, 4096).close(); // retained: it still writes
                source.close(); // in flight: back to the pool when the kernel lets go
                awaitOutstanding(ctx, pool, 0);
                blob.sync().await();
                assertArrayEquals(expected, blob.readAt(0, 4096).await());

                IoBuffer target = pool.allocate(4096);
                Operation<Void> read = blob.readInto(0, target, 0, 4096);
                read.close();
                target.close();
                awaitOutstanding(ctx, pool, 0);
                assertThrows(ClosedException.class, target::segment);
            }
            return null;
        });
    }

    /** Receives into and sends from buffers, mixed with the byte[] calls on one connection; failures hand back. */
    @Conformance
    void testRecvIntoSendFrom(Runtimes rt) {
        rt.runner().start(ctx -> {
            BufferPool pool = ctx.buffers();
            Listener listener = ctx.bind(ANY_PORT).await();
            Operation<Connection> accepted = listener.accept();
            Connection client = ctx.dial(listener.localAddress()).await();
            Connection server = accepted.await();
            try (IoBuffer out = pool.allocate(4096); IoBuffer in = pool.allocate(8192)) {
                fill(out, 5);
                client.sink().sendFrom(out, 10, 3000).await();
                server.stream().recvInto(in, 4000, 3000).await();
                assertArrayEquals(bytes(out, 10, 3000), bytes(in, 4000, 3000));
                // A byte[] receive may take more than it asks; a buffer receive gets the surplus first.
                client.sink().send(new byte[] {1, 2, 3, 4, 5, 6}).await();
                assertArrayEquals(new byte[] {1, 2}, server.stream().recv(2).await());
                server.stream().recvInto(in, 0, 4).await();
                assertArrayEquals(new byte[] {3, 4, 5, 6}, bytes(in, 0, 4));
                assertNames(assertThrows(IllegalArgumentException.class, () -> client.sink().sendFrom(out, 1, 4096)),
                        "capacity 4096");
                assertNames(assertThrows(IllegalArgumentException.class, () -> server.stream().recvInto(in, 0, -3)),
                        "-3");
                // The peer shuts its side: the receive fails, and the buffer is back with its holder.
                client.sink().close();
                assertThrows(RecvFailedException.class, () -> server.stream().recvInto(in, 0, 10).await());
                in.segment();
            }
            assertEquals(0, pool.outstanding());
            client.close();
            server.close();
            listener.close();
            return null;
        });
    }

    /**
     * A buffer closed while a receive holds it is released at once for its holder: {@link IoBuffer#segment()} and
     * a second I/O call throw {@link ClosedException} naming it, as for any released buffer, while the memory
     * stays with the kernel until the receive ends. Before, both said IllegalStateException "in flight".
     */
    @Conformance
    void testABufferClosedWhileAReceiveHoldsItIsReleased(Runtimes rt) {
        rt.runner().start(ctx -> {
            BufferPool pool = ctx.buffers();
            try (Listener listener = ctx.bind(ANY_PORT).await();
                    Connection client = ctx.dial(listener.localAddress()).await();
                    Connection server = listener.accept().await()) {
                IoBuffer in = pool.allocate(4096);
                Operation<Void> receive = server.stream().recvInto(in, 0, 16);
                in.close();
                assertNames(assertThrows(ClosedException.class, in::segment), in.toString(), "released");
                assertNames(assertThrows(ClosedException.class, () -> client.sink().sendFrom(in, 0, 16)),
                        in.toString(), "released");
                assertEquals(1, pool.outstanding(), "the receive still holds the memory");
                client.sink().send(new byte[16]).await();
                receive.await();
                assertEquals(0, pool.outstanding(), "the memory went back to the pool when the receive ended");
                assertThrows(ClosedException.class, in::segment);
            }
            return null;
        });
    }

    /**
     * Direct I/O: aligned transfers through buffers and byte[] calls; a misaligned offset, length or buffer
     * position is refused at the call with {@link BlobMisalignedException} naming it; a plain open has no
     * alignment. What a direct open writes, a plain open reads.
     */
    @Conformance
    void testDirectIo(Runtimes rt) {
        rt.runner().start(ctx -> {
            BufferPool pool = ctx.buffers();
            try (Blob plain = ctx.open("buffers", "direct").await().blob();
                 Blob direct = ctx.open("buffers", "direct", OpenOptions.DIRECT).await().blob();
                 IoBuffer buffer = pool.allocate(8192)) {
                assertEquals(0, plain.directAlignment());
                int alignment = direct.directAlignment();
                assertTrue(alignment >= 512 && alignment <= BufferPool.PAGE_BYTES
                        && Integer.bitCount(alignment) == 1, "alignment " + alignment);
                fill(buffer, 9);
                direct.writeFrom(0, buffer, 0, 8192).await();
                assertEquals(8192, direct.length());
                direct.sync().await();
                assertArrayEquals(bytes(buffer, 0, 8192), plain.readAt(0, 8192).await());
                byte[] block = direct.readAt(alignment, alignment).await();
                assertArrayEquals(bytes(buffer, alignment, alignment), block);
                direct.writeAt(2L * alignment, new byte[alignment]).await();
                direct.readInto(0, buffer, alignment, 4096).await();
                assertArrayEquals(plain.readAt(0, 4096).await(), bytes(buffer, alignment, 4096));

                assertNames(assertThrows(BlobMisalignedException.class, () -> direct.readInto(1, buffer, 0, 4096)),
                        "offset 1 ", "alignment " + alignment);
                assertNames(assertThrows(BlobMisalignedException.class, () -> direct.writeFrom(0, buffer, 0, 100)),
                        "length 100 ");
                assertNames(assertThrows(BlobMisalignedException.class,
                        () -> direct.readInto(0, buffer, alignment / 2, alignment)), "position " + alignment / 2);
                assertNames(assertThrows(BlobMisalignedException.class, () -> direct.readAt(0, 3)), "length 3 ");
                assertNames(assertThrows(BlobMisalignedException.class, () -> direct.writeAt(7, new byte[alignment])),
                        "offset 7 ");
                // A direct read past the end fails as any read does.
                assertThrows(BlobInsufficientLengthException.class, () -> direct.readInto(8192, buffer, 0, 4096).await());
                assertThrows(BlobInsufficientLengthException.class,
                        () -> direct.readInto(4096, buffer, 0, 8192).await());
                assertEquals(8192, plain.readAt(0, 8192).await().length);
            }
            assertEquals(0, pool.outstanding());
            return null;
        });
    }

}
