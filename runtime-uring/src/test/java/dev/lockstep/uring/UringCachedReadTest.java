package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.BlobInsufficientLengthException;
import dev.lockstep.ClosedException;
import dev.lockstep.IoBuffer;
import dev.lockstep.Operation;
import dev.lockstep.Poll;
import dev.lockstep.ReadOptions;
import dev.lockstep.Waker;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A read of a buffered blob whose bytes the page cache holds is answered at the call (the kernel's
 * {@code preadv2} with {@code RWF_NOWAIT}, on the worker's thread): its operation is ready before anything
 * awaits it, with the right bytes, through the buffer and the {@code byte[]} calls alike. Whatever the page cache
 * cannot answer whole — here the end of the blob — still goes through the ring and fails as it always did; a
 * ready result is taken once, as any operation's.
 */
class UringCachedReadTest {
    private static final int BLOCK = 4096;
    private static final int BLOCKS = 16;
    private static final int READS = 400;
    private static final Waker NOBODY = () -> { };

    @TempDir
    Path directory;

    @Test
    void cachedReadsAreReadyAtTheCallWithTheirBytes() {
        UringRunner.builder().workers(1).ringEntries(8).storage(directory).build().start(ctx -> {
            byte[] contents = new byte[BLOCK * BLOCKS];
            new SplittableRandom(7).nextBytes(contents);
            try (Blob blob = ctx.open("cached", "blob").await().blob();
                 IoBuffer buffer = ctx.buffers().allocate(BLOCK)) {
                blob.writeAt(0, contents).await(); // completed writes are in the page cache
                SplittableRandom random = new SplittableRandom(11);
                int readyAtTheCall = 0;
                for (int i = 0; i < READS; i++) {
                    int block = random.nextInt(BLOCKS);
                    byte[] expected = java.util.Arrays.copyOfRange(contents, block * BLOCK, (block + 1) * BLOCK);
                    Operation<Void> into = blob.readInto((long) block * BLOCK, buffer, 0, BLOCK);
                    Poll<Void> first = into.poll(NOBODY);
                    if (first.isReady()) {
                        readyAtTheCall++;
                        first.get();
                    } else {
                        into.await();
                    }
                    assertArrayEquals(expected, buffer.segment().asSlice(0, BLOCK).toArray(
                            java.lang.foreign.ValueLayout.JAVA_BYTE), "readInto of block " + block);
                    Operation<byte[]> copy = blob.readAt((long) block * BLOCK, BLOCK);
                    Poll<byte[]> copied = copy.poll(NOBODY);
                    if (copied.isReady()) {
                        readyAtTheCall++;
                    }
                    assertArrayEquals(expected, copied.isReady() ? copied.get() : copy.await(), "readAt " + block);
                }
                // Every one of these pages was written a moment ago; a handful may be evicted on a loaded machine.
                assertTrue(readyAtTheCall >= 2 * READS * 9 / 10, readyAtTheCall + " of " + 2 * READS
                        + " cached reads were ready at the call");

                // A ready result is given once.
                Operation<byte[]> once = blob.readAt(0, 8);
                once.await();
                ClosedException again = assertThrows(ClosedException.class, once::await);
                assertTrue(again.getMessage().contains("already taken"), again.getMessage());
                Operation<byte[]> closed = blob.readAt(0, 8);
                closed.close();
                assertThrows(ClosedException.class, closed::await);

                // What the page cache cannot answer whole goes to the ring and fails there, as before.
                BlobInsufficientLengthException pastTheEnd = assertThrows(BlobInsufficientLengthException.class,
                        () -> blob.readAt((long) BLOCK * BLOCKS - 8, 16).await());
                assertTrue(pastTheEnd.getMessage().contains("goes past its end at " + BLOCK * BLOCKS),
                        pastTheEnd.getMessage());
                assertThrows(BlobInsufficientLengthException.class,
                        () -> blob.readInto((long) BLOCK * BLOCKS - 8, buffer, 0, 16).await());
                // The page-cache hint skips the question and reads through the ring: same bytes.
                assertArrayEquals(java.util.Arrays.copyOfRange(contents, 0, BLOCK),
                        blob.readAt(0, BLOCK, ReadOptions.DONT_CACHE).await());
                blob.close();
                assertThrows(ClosedException.class, () -> blob.readInto(0, buffer, 0, BLOCK));
            }
            return null;
        });
    }

    /**
     * A read answered at the call does not park, so a fiber reading cached bytes in a loop would never let its
     * worker's timers or other fibers run; it gives the worker its turn after a bounded number of them.
     */
    @Test
    void aFiberReadingCachedBytesForeverStillLetsTimersAndOtherFibersRun() {
        int[] reads = new int[2];
        UringRunner.builder().workers(1).ringEntries(8).storage(directory).build().start(ctx -> {
            try (Blob blob = ctx.open("fair", "blob").await().blob();
                 IoBuffer buffer = ctx.buffers().allocate(BLOCK)) {
                blob.writeAt(0, new byte[BLOCK]).await();
                java.util.concurrent.atomic.AtomicBoolean slept = new java.util.concurrent.atomic.AtomicBoolean();
                dev.lockstep.Handle<Void> sleeper = ctx.child("sleeper").spawn(c -> {
                    c.sleep(java.time.Duration.ofMillis(5));
                    slept.set(true);
                    return null;
                });
                dev.lockstep.Handle<Void> other = ctx.child("other").spawn(c -> {
                    while (!slept.get()) {
                        blob.readInto(0, buffer, 0, BLOCK).await();
                        reads[1]++;
                    }
                    return null;
                });
                try (IoBuffer mine = ctx.buffers().allocate(BLOCK)) {
                    while (!slept.get()) {
                        blob.readInto(0, mine, 0, BLOCK).await();
                        reads[0]++;
                    }
                }
                sleeper.await();
                other.await();
            }
            return null;
        });
        assertTrue(reads[0] > 0 && reads[1] > 0, "both readers ran: " + reads[0] + " and " + reads[1]);
    }
}
