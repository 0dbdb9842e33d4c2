package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.Connection;
import dev.lockstep.IoBuffer;
import dev.lockstep.Listener;
import dev.lockstep.engine.request.Completed;
import dev.lockstep.engine.request.Registration;
import dev.lockstep.engine.worker.Worker;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
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
 * <p>What a user relies on: a steady stream of {@code Blob.readInto}, {@code Blob.writeFrom},
 * {@code Sink.sendFrom} and {@code Stream.recvInto} with a buffer of their own makes no garbage per operation
 * beyond the {@code Operation} handle the call returns (32 bytes with compressed oops: a handle is the caller's to
 * keep, so it cannot be reused; a refusal's message lives in a subclass, not in every handle). The request behind each operation is
 * reused once it retires (by the worker's {@code Recycler}, or for a receive by its stream's {@code Spare}), and a
 * receive's place in its stream's set of pending receives is a link inside that request ({@code PendingSet}), not a
 * node per receive. The bound below is the handle plus less than the 8 bytes by which an object grows (the smallest
 * object the JVM makes is 16), averaged over thousands of operations (the fewest of several windows, see
 * {@link #steadyBytesPerOperation}): any object a change adds per operation — a request that is no longer reused, a
 * capturing lambda, a queue node, a boxed result — or a field added to the handle takes the average past it.
 * The forms that wait themselves ({@code readFully}, {@code writeFully}, {@code sendFully}, {@code recvFully})
 * return no handle, so their bound is less than one object per call: nothing. {@code Blob.readAt}, whose contract
 * is a new array per read, makes that array and its handle, nothing more.
 * This is an allocation count, not a timing: it does not depend on how fast the machine is.
 *
 * <p>Nor may it depend on C2's escape analysis: whether that removes an object depends on how the JIT compiled
 * the caller, which differs from JVM to JVM, so a path that leaves an object to it passes in most runs and fails
 * in a few. The paths measured here make nothing per operation even with it off ({@code -XX:-DoEscapeAnalysis}
 * gives the same figures); the call-state slice of a downcall that captures {@code errno} was such an object
 * (63 bytes per {@code readInto} in some runs, see {@code UringRing.readWithoutWaiting}). So the module's build
 * runs this class twice: as every test runs, and in a JVM with escape analysis off (the surefire execution
 * {@code allocation-without-escape-analysis}), where such an object fails every run, not a few.
 */
class UringBufferAllocationTest {
    private static final int BLOCK = 4096;
    private static final int BLOCKS = 64;
    private static final int WARM_UP = 20_000;
    private static final int MEASURED = 5_000;
    /**
     * The most windows measured: one is usually enough, more are for a machine so loaded that the JIT has not
     * compiled the path yet after the warm-up.
     */
    private static final int MAX_WINDOWS = 100;
    private static final int MESSAGE = 64;
    /**
     * The bound of the calls that return a handle: the handle ({@code Registration}, 32 bytes with compressed oops,
     * measured at run time by {@link #handleBytes} since its size depends on the JVM's object layout) plus less than
     * the 8 bytes by which an object grows: a field more in the handle or any object more per operation (16 bytes at
     * least) takes the average past it. Set on the worker by {@link #measure}.
     */
    private volatile double maxBytesPerOperation;
    /** Less than the smallest object: the calls that wait themselves make no handle, hence nothing per call. */
    private static final double MAX_BYTES_PER_CALL = 15;
    /**
     * How many times the objects a {@code readAt} must make are made to measure their size
     * ({@link #contractBytesPerReadAt}).
     */
    private static final int CONTRACT_SAMPLES = 1_000;

    @TempDir
    Path directory;

    @Test
    void bufferReadsAndWritesAllocateOnlyTheirHandle() throws Exception {
        double[] perOperation = measure(false);
        System.out.printf("steady-state heap bytes per operation on the worker thread: readInto %.1f, writeFrom %.1f,"
                + " sendFrom %.1f, recvInto and sendFrom echoing %.1f%n", perOperation[0], perOperation[1],
                perOperation[2], perOperation[3]);
        String[] names = {"Blob.readInto", "Blob.writeFrom", "Sink.sendFrom",
            "an echo through Stream.recvInto and Sink.sendFrom (two operations per message)"};
        for (int i = 0; i < names.length; i++) {
            assertTrue(perOperation[i] <= maxBytesPerOperation, names[i] + " allocated " + perOperation[i]
                    + " heap bytes per operation on the worker's thread in steady state; at most "
                    + maxBytesPerOperation + " expected (its Operation handle)");
        }
    }

    /**
     * The same four paths through the calls that wait themselves ({@code Blob.readFully}, {@code Blob.writeFully},
     * {@code Sink.sendFully}, {@code Stream.recvFully}): no handle, so nothing at all per call in steady state —
     * the request is reused as above, and the operation is the fiber's own reusable one.
     */
    @Test
    void theBufferCallsThatWaitAllocateNothing() throws Exception {
        double[] perCall = measure(true);
        System.out.printf("steady-state heap bytes per call on the worker thread: readFully %.1f, writeFully %.1f,"
                + " sendFully %.1f, recvFully and sendFully echoing %.1f%n", perCall[0], perCall[1], perCall[2],
                perCall[3]);
        String[] names = {"Blob.readFully", "Blob.writeFully", "Sink.sendFully",
            "an echo through Stream.recvFully and Sink.sendFully"};
        for (int i = 0; i < names.length; i++) {
            assertTrue(perCall[i] <= MAX_BYTES_PER_CALL, names[i] + " allocated " + perCall[i] + " heap bytes per"
                    + " call on the worker's thread in steady state; at most " + MAX_BYTES_PER_CALL
                    + " expected (no object per call)");
        }
    }

    /**
     * A steady stream of {@code Blob.readAt} of one cached block makes the array it returns and its handle, nothing
     * more: the value is kept in the handle, and awaiting it in a task takes it without a {@code Poll}. The bound is
     * what those two objects take on this JVM's object layout (header and reference sizes differ with compressed
     * oops and compact object headers), measured on the worker's thread as the reads are
     * ({@link #contractBytesPerReadAt}), plus less than the 8 bytes by which an object grows: any object more per
     * read (16 bytes at least), such as a {@code Poll}, takes the average past it.
     */
    @Test
    void readAtAllocatesItsArrayAndItsHandleOnly() throws Exception {
        double[] perRead = new double[1];
        double[] bound = new double[1];
        UringRunner.builder().workers(1).ringEntries(32).storage(directory).build().start(ctx -> {
            bound[0] = contractBytesPerReadAt(Worker.current()) + 7;
            Blob blob = ctx.open("steady", "blob").await().blob();
            byte[] pattern = new byte[BLOCK * BLOCKS];
            new SplittableRandom(5).nextBytes(pattern);
            blob.writeAt(0, pattern).await();
            SplittableRandom random = new SplittableRandom(13);
            perRead[0] = steadyBytesPerOperation(bound[0], reads -> {
                for (long i = 0; i < reads; i++) {
                    int block = random.nextInt(BLOCKS);
                    byte[] read = blob.readAt((long) block * BLOCK, BLOCK).await();
                    // Every read is checked by its first and last byte: the loop read for real.
                    if (read[0] != pattern[block * BLOCK] || read[BLOCK - 1] != pattern[(block + 1) * BLOCK - 1]) {
                        throw new AssertionError("block " + block + " read wrong");
                    }
                }
                return reads;
            });
            blob.close();
            return null;
        });
        System.out.printf("steady-state heap bytes per Blob.readAt of %d bytes on the worker thread: %.1f (bound"
                + " %.1f)%n", BLOCK, perRead[0], bound[0]);
        assertTrue(perRead[0] <= bound[0], "Blob.readAt allocated " + perRead[0] + " heap bytes per read"
                + " on the worker's thread in steady state; at most " + bound[0] + " expected (its"
                + " array and its Operation handle)");
    }

    /**
     * The heap bytes of an operation handle ({@code new Registration(worker, key)}, what a buffer call returns),
     * counted as {@link #fewestBytesPerSample} counts.
     */
    private static double handleBytes(Worker worker) {
        double fewest = fewestBytesPerSample(1, (kept, i) -> kept[i] = new Registration<Void>(worker, i));
        assertTrue(fewest >= 16, "an operation handle measured " + fewest + " bytes");
        return fewest;
    }

    /**
     * The heap bytes of what a {@code readAt} of one block answered from the page cache must make: the array it
     * returns and its handle ({@code Completed.of}, what {@code EngineBlob.readAt} returns then), counted as
     * {@link #fewestBytesPerSample} counts.
     */
    private static double contractBytesPerReadAt(Worker worker) {
        double fewest = fewestBytesPerSample(2, (kept, i) -> {
            byte[] bytes = new byte[BLOCK];
            kept[2 * i] = bytes;
            kept[2 * i + 1] = Completed.of(worker, bytes);
        });
        // At least the array's bytes and a header of 8 bytes or more each: a count of nothing would void the bound.
        assertTrue(fewest >= BLOCK + 16, "the array and the handle measured " + fewest + " bytes");
        return fewest;
    }

    /** Makes sample {@code i}'s objects and keeps them in {@code kept}, so that none can be left out. */
    private interface SampleMaker {
        void make(Object[] kept, int i);
    }

    /**
     * The heap bytes {@code maker} allocates per sample on this carrier, {@code CONTRACT_SAMPLES} samples a window
     * kept in an array made beforehand (room for {@code perSample} objects each); the fewest of a few windows, as
     * {@link #steadyBytesPerOperation} takes.
     */
    private static double fewestBytesPerSample(int perSample, SampleMaker maker) {
        Object[] kept = new Object[perSample * CONTRACT_SAMPLES];
        long thread = carrier().threadId();
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        double fewest = Double.MAX_VALUE;
        for (int window = 0; window < 5; window++) {
            long before = threads.getThreadAllocatedBytes(thread);
            for (int i = 0; i < CONTRACT_SAMPLES; i++) {
                maker.make(kept, i);
            }
            long after = threads.getThreadAllocatedBytes(thread);
            java.util.Arrays.fill(kept, null);
            fewest = Math.min(fewest, (double) (after - before) / CONTRACT_SAMPLES);
        }
        return fewest;
    }

    /**
     * Heap bytes per operation in steady state of blob reads, blob writes, sends and an echo's receives and sends,
     * through the calls that return an operation or ({@code fully}) the calls that wait themselves; checks on the
     * way that the reads, sends and echoes carried the right bytes.
     */
    private double[] measure(boolean fully) throws Exception {
        double[] perOperation = new double[4];
        Thread[] peers = new Thread[1];
        Thread[] echoPeer = new Thread[1];
        long[] echoed = new long[2];
        long[] drained = new long[1];
        long[] sent = new long[1];
        UringRunner.builder().workers(1).ringEntries(32).storage(directory).build().start(ctx -> {
            maxBytesPerOperation = handleBytes(Worker.current()) + 7;
            double bound = fully ? MAX_BYTES_PER_CALL : maxBytesPerOperation;
            Blob blob = ctx.open("steady", "blob").await().blob();
            byte[] pattern = new byte[BLOCK * BLOCKS];
            new SplittableRandom(3).nextBytes(pattern);
            blob.writeAt(0, pattern).await();
            SplittableRandom random = new SplittableRandom(11);
            try (IoBuffer buffer = ctx.buffers().allocate(BLOCK)) {
                perOperation[0] = steadyBytesPerOperation(bound, reads -> {
                    for (long i = 0; i < reads; i++) {
                        long offset = (long) random.nextInt(BLOCKS) * BLOCK;
                        if (fully) {
                            blob.readFully(offset, buffer, 0, BLOCK);
                        } else {
                            blob.readInto(offset, buffer, 0, BLOCK).await();
                        }
                    }
                    return reads;
                });
                // The last read is the block it named: the loop read for real.
                int last = random.nextInt(BLOCKS);
                blob.readInto((long) last * BLOCK, buffer, 0, BLOCK).await();
                byte[] expected = java.util.Arrays.copyOfRange(pattern, last * BLOCK, (last + 1) * BLOCK);
                assertArrayEquals(expected, buffer.segment().asSlice(0, BLOCK).toArray(
                        java.lang.foreign.ValueLayout.JAVA_BYTE));
                perOperation[1] = steadyBytesPerOperation(bound, writes -> {
                    for (long i = 0; i < writes; i++) {
                        long offset = (long) random.nextInt(BLOCKS) * BLOCK;
                        if (fully) {
                            blob.writeFully(offset, buffer, 0, BLOCK);
                        } else {
                            blob.writeFrom(offset, buffer, 0, BLOCK).await();
                        }
                    }
                    return writes;
                });
            }
            blob.close();
            perOperation[2] = sendFromBytesPerOperation(ctx, peers, drained, sent, fully, bound);
            perOperation[3] = echoBytesPerOperation(ctx, echoPeer, echoed, fully, bound);
            return null;
        });
        echoPeer[0].join(java.time.Duration.ofSeconds(30));
        assertTrue(!echoPeer[0].isAlive(), "the echo peer did not finish");
        assertTrue(echoed[1] == 0, echoed[1] + " of " + echoed[0] + " echoes differed from the message sent");
        // Two operations per message: the warm-up and at least one window, every message echoed.
        assertTrue(echoed[0] >= (WARM_UP + MEASURED) / 2, "the peer saw only " + echoed[0] + " echoes");
        // The peer reads until the server side closed; joined here, off the worker, so no fiber blocks on it.
        peers[0].join();
        assertTrue(drained[0] == sent[0], "the peer received " + drained[0] + " bytes of " + sent[0] + " sent");
        return perOperation;
    }

    /**
     * 64-byte sends from one buffer to a peer that a plain thread drains (its allocation is on its own thread, not
     * counted), after the same warm-up; the peer thread, what it received and what was sent are left in
     * {@code peers}, {@code drained} and {@code sent} for the test to join and check.
     */
    private static double sendFromBytesPerOperation(dev.lockstep.Context ctx, Thread[] peers, long[] drained,
                                                    long[] sent, boolean fully, double bound) {
        try (Listener listener = ctx.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).await()) {
            InetSocketAddress address = listener.localAddress();
            Thread peer = Thread.ofPlatform().daemon(true).name("send-drain").start(() -> {
                try (Socket socket = new Socket(address.getAddress(), address.getPort());
                     InputStream in = socket.getInputStream()) {
                    byte[] sink = new byte[1 << 16];
                    int n;
                    while ((n = in.read(sink)) > 0) {
                        drained[0] += n;
                    }
                } catch (IOException failure) {
                    throw new java.io.UncheckedIOException(failure);
                }
            });
            double perSend;
            try (Connection server = listener.accept().await(); IoBuffer message = ctx.buffers().allocate(MESSAGE)) {
                perSend = steadyBytesPerOperation(bound, sends -> {
                    for (long i = 0; i < sends; i++) {
                        if (fully) {
                            server.sink().sendFully(message, 0, MESSAGE);
                        } else {
                            server.sink().sendFrom(message, 0, MESSAGE).await();
                        }
                    }
                    sent[0] += sends * MESSAGE;
                    return sends;
                });
            }
            peers[0] = peer;
            return perSend;
        }
    }

    /**
     * An echo server's loop on one connection: each 64-byte message is received into a buffer with
     * {@code recvInto} and sent back from it with {@code sendFrom}, two operations per message, after the same
     * warm-up. The peer, a plain thread (its allocation is its own thread's), sends message after message — each
     * numbered in its bytes — and checks each echo against what it sent, until the server closes; it leaves the
     * echoes it saw and how many differed in {@code echoed}.
     */
    private static double echoBytesPerOperation(dev.lockstep.Context ctx, Thread[] peer, long[] echoed,
                                                boolean fully, double bound) {
        try (Listener listener = ctx.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).await()) {
            InetSocketAddress address = listener.localAddress();
            peer[0] = Thread.ofPlatform().daemon(true).name("echo-peer").start(() -> {
                try (Socket socket = new Socket(address.getAddress(), address.getPort());
                     InputStream in = socket.getInputStream();
                     java.io.OutputStream out = socket.getOutputStream()) {
                    socket.setTcpNoDelay(true);
                    byte[] message = new byte[MESSAGE];
                    byte[] echo = new byte[MESSAGE];
                    for (long n = 0; ; n++) {
                        java.util.Arrays.fill(message, (byte) n);
                        message[0] = (byte) (n >>> 8);
                        out.write(message);
                        if (in.readNBytes(echo, 0, MESSAGE) < MESSAGE) {
                            return; // the server closed after its last echo
                        }
                        echoed[0]++;
                        if (!java.util.Arrays.equals(message, echo)) {
                            echoed[1]++;
                        }
                    }
                } catch (IOException closedByServer) {
                    // The write after the server's close may be reset: the echoes are all counted by then.
                }
            });
            try (Connection server = listener.accept().await(); IoBuffer message = ctx.buffers().allocate(MESSAGE)) {
                return steadyBytesPerOperation(bound, operations -> {
                    for (long i = 0; i < operations; i += 2) {
                        if (fully) {
                            server.stream().recvFully(message, 0, MESSAGE);
                            server.sink().sendFully(message, 0, MESSAGE);
                        } else {
                            server.stream().recvInto(message, 0, MESSAGE).await();
                            server.sink().sendFrom(message, 0, MESSAGE).await();
                        }
                    }
                    return operations;
                });
            }
        }
    }

    /**
     * Runs {@code WARM_UP} operations, then counts the heap bytes of windows of {@code MEASURED} operations each on
     * this carrier until one stays within the bound (or {@code MAX_WINDOWS} did not), and returns the fewest per
     * operation of any window. The fewest, because what is allocated for other reasons lands in some windows and
     * not in others — the JIT not having compiled the path yet (the interpreter and C1 allocate every object the
     * code makes, even one that never leaves its method), a fiber's stack chunk made afresh, a queue growing —
     * while an object made per operation is in every window.
     */
    private static double steadyBytesPerOperation(double bound, LongUnaryOperator operations) {
        operations.applyAsLong(WARM_UP);
        long thread = carrier().threadId();
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        double fewest = Double.MAX_VALUE;
        for (int window = 0; window < MAX_WINDOWS && fewest > bound; window++) {
            long before = threads.getThreadAllocatedBytes(thread);
            long done = operations.applyAsLong(MEASURED);
            long after = threads.getThreadAllocatedBytes(thread);
            assertTrue(before >= 0 && after >= before, "allocation counting unavailable: " + before + ", " + after);
            fewest = Math.min(fewest, (double) (after - before) / done);
        }
        return fewest;
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
