package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.IoBuffer;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.function.LongUnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the buffer calls allocate on the Java heap per operation in steady state, counted on the worker's own
 * thread ({@code com.sun.management.ThreadMXBean.getThreadAllocatedBytes} of the carrier that runs the worker,
 * its fibers and its service turns, so it counts the call, the admission, the completion and the wake-up).
 *
 * <p>What a user relies on: a steady stream of {@code Blob.readInto} and {@code Blob.writeFrom} with a buffer
 * of their own makes no garbage per operation beyond the {@code Operation} handle the call returns (40 bytes:
 * a handle is the caller's to keep, so it cannot be reused). The request behind each operation is reused by the
 * worker once it retires ({@code Recycler}). The bound below is the handle plus less than the smallest object
 * the JVM makes (16 bytes), averaged over thousands of operations: any object a change adds per operation — a
 * request that is no longer reused, a capturing lambda, a queue node, a boxed result — takes the average past it.
 * This is an allocation count, not a timing: it does not depend on how fast the machine is.
 */
class UringBufferAllocationTest {
    private static final int BLOCK = 4096;
    private static final int BLOCKS = 64;
    private static final int WARM_UP = 20_000;
    private static final int MEASURED = 20_000;
    /** The operation handle (40 bytes) plus less than one more object of the smallest size (16 bytes). */
    private static final double MAX_BYTES_PER_OPERATION = 40 + 15;

    @TempDir
    Path directory;

    @Test
    void bufferReadsAndWritesAllocateOnlyTheirHandle() throws Exception {
        double[] perOperation = new double[2];
        UringRunner.builder().workers(1).ringEntries(32).storage(directory).build().start(ctx -> {
            Blob blob = ctx.open("steady", "blob").await().blob();
            byte[] pattern = new byte[BLOCK * BLOCKS];
            new SplittableRandom(3).nextBytes(pattern);
            blob.writeAt(0, pattern).await();
            SplittableRandom random = new SplittableRandom(11);
            try (IoBuffer buffer = ctx.buffers().allocate(BLOCK)) {
                perOperation[0] = steadyBytesPerOperation(reads -> {
                    for (long i = 0; i < reads; i++) {
                        blob.readInto((long) random.nextInt(BLOCKS) * BLOCK, buffer, 0, BLOCK).await();
                    }
                    return reads;
                });
                // The last read is the block it named: the loop read for real.
                int last = random.nextInt(BLOCKS);
                blob.readInto((long) last * BLOCK, buffer, 0, BLOCK).await();
                byte[] expected = java.util.Arrays.copyOfRange(pattern, last * BLOCK, (last + 1) * BLOCK);
                assertArrayEquals(expected, buffer.segment().asSlice(0, BLOCK).toArray(
                        java.lang.foreign.ValueLayout.JAVA_BYTE));
                perOperation[1] = steadyBytesPerOperation(writes -> {
                    for (long i = 0; i < writes; i++) {
                        blob.writeFrom((long) random.nextInt(BLOCKS) * BLOCK, buffer, 0, BLOCK).await();
                    }
                    return writes;
                });
            }
            blob.close();
            return null;
        });
        System.out.printf("steady-state heap bytes per operation on the worker thread: readInto %.1f, writeFrom %.1f%n",
                perOperation[0], perOperation[1]);
        assertTrue(perOperation[0] <= MAX_BYTES_PER_OPERATION, "Blob.readInto allocated " + perOperation[0]
                + " heap bytes per read on the worker's thread in steady state; at most "
                + MAX_BYTES_PER_OPERATION + " expected (its Operation handle)");
        assertTrue(perOperation[1] <= MAX_BYTES_PER_OPERATION, "Blob.writeFrom allocated " + perOperation[1]
                + " heap bytes per write on the worker's thread in steady state; at most "
                + MAX_BYTES_PER_OPERATION + " expected (its Operation handle)");
    }

    /** Runs {@code WARM_UP} operations, then counts the heap bytes of {@code MEASURED} more on this carrier. */
    private static double steadyBytesPerOperation(LongUnaryOperator operations) {
        operations.applyAsLong(WARM_UP);
        long thread = carrier().threadId();
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getThreadAllocatedBytes(thread);
        long done = operations.applyAsLong(MEASURED);
        long after = threads.getThreadAllocatedBytes(thread);
        assertTrue(before >= 0 && after >= before, "allocation counting unavailable: " + before + ", " + after);
        return (double) (after - before) / done;
    }

    /**
     * The platform thread carrying the calling fiber: the worker's thread. {@code Thread.currentCarrierThread}
     * is not public; fibers already need {@code java.lang} opened to this code.
     */
    private static Thread carrier() {
        try {
            Method method = Thread.class.getDeclaredMethod("currentCarrierThread");
            method.setAccessible(true);
            return (Thread) method.invoke(null);
        } catch (ReflectiveOperationException failure) {
            throw new IllegalStateException("cannot find the carrier thread: " + failure, failure);
        }
    }
}
