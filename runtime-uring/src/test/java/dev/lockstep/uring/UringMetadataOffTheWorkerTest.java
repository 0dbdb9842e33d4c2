package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.Handle;
import dev.lockstep.engine.ForwardingRing;
import dev.lockstep.engine.ThreadedRunner;
import dev.lockstep.kernel.CompletionSink;
import dev.lockstep.kernel.Kernel;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;
import dev.lockstep.kernel.SystemCalls;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Storage metadata runs off the worker: on the real io_uring runtime, with the real file system, a directory
 * {@code fsync} that does not complete (a test double around the real ring holds it back until the test lets
 * it go) delays neither a timer nor a read on the same worker, nor metadata of another partition; metadata of
 * the same partition waits for it, in order.
 *
 * <p>On a runtime that made the directory fsync as a system call of the worker, nothing would reach the ring to
 * be held and the test fails saying so; one whose ring blocked the worker would delay the timer and the read,
 * and after {@link #HOLD_LIMIT} the test fails saying what was delayed. Nothing here measures time. The second
 * test shows which ring operations an open and a remove are, and that they make no system call of their own.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // hang guard only
class UringMetadataOffTheWorkerTest {
    /** The longest the double holds a directory fsync before letting it go on its own. */
    static final Duration HOLD_LIMIT = Duration.ofSeconds(10);

    @TempDir
    Path directory;

    /**
     * The real kernel, whose rings hold the {@code fsync} of any directory while {@link #armed}, until
     * {@link #release()} or {@link #HOLD_LIMIT}: the ring keeps the submission back instead of handing it to
     * io_uring, as a device that takes that long to flush would. The worker is never blocked by the double; a
     * runtime that made the directory fsync itself, on the worker, would not come through the ring at all, and
     * {@link #held} would stay false.
     */
    static final class HeldDirectorySyncKernel implements Kernel {
        private final UringKernel real = new UringKernel();
        /** Fds that an {@code OPENAT} with {@code O_DIRECTORY} returned, until they are closed. */
        private final Set<Integer> directoryFds = ConcurrentHashMap.newKeySet();
        private final CountDownLatch released = new CountDownLatch(1);
        volatile boolean armed;
        /** A directory fsync is being held right now. */
        volatile boolean holding;
        volatile boolean held;
        volatile boolean gaveUp;
        volatile String heldOn;
        /** Every opcode the rings were given, in order per ring. */
        final List<Opcode> staged = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        /** Every synchronous system call made after the runtime started, as "name on thread". */
        final List<String> calls = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        volatile boolean recordCalls;
        private final SystemCalls system = (SystemCalls) Proxy.newProxyInstance(SystemCalls.class.getClassLoader(),
                new Class<?>[] {SystemCalls.class}, (proxy, method, arguments) -> {
                    if (recordCalls) {
                        calls.add(method.getName() + " on " + Thread.currentThread().getName());
                    }
                    if (method.getName().equals("close")) {
                        directoryFds.remove((Integer) arguments[0]);
                    }
                    try {
                        return method.invoke(real.system(), arguments);
                    } catch (InvocationTargetException thrown) {
                        throw thrown.getCause();
                    }
                });

        void release() {
            released.countDown();
        }

        @Override
        public Ring openRing(int entries) {
            return new HoldingRing(real.openRing(entries));
        }

        @Override
        public int maxEntries() {
            return real.maxEntries();
        }

        @Override
        public SystemCalls system() {
            return system;
        }

        /** A real ring that keeps a directory fsync back while the kernel is armed. Owned by one worker. */
        final class HoldingRing extends ForwardingRing {
            /** User data of directory opens in flight. */
            private final Set<Long> directoryOpens = new java.util.HashSet<>();
            private Submission heldSync;
            private long heldSince;

            HoldingRing(Ring ring) {
                super(ring);
            }

            @Override
            public boolean stage(Submission submission) {
                staged.add(submission.opcode);
                if (submission.opcode == Opcode.FSYNC && armed && heldSync == null
                        && directoryFds.contains(submission.fd)) {
                    heldSync = copy(submission);
                    heldSince = System.nanoTime();
                    heldOn = Thread.currentThread().getName();
                    held = true;
                    holding = true;
                    return true;
                }
                if (submission.opcode == Opcode.OPENAT && (submission.flags & SystemCalls.O_DIRECTORY) != 0) {
                    directoryOpens.add(submission.userData);
                }
                return ring.stage(submission);
            }

            @Override
            public int enter(boolean wait, long timeoutNanos, CompletionSink sink) {
                long timeout = timeoutNanos;
                if (heldSync != null) {
                    boolean letGo = released.getCount() == 0;
                    long left = HOLD_LIMIT.toNanos() - (System.nanoTime() - heldSince);
                    if (!letGo && left <= 0) {
                        gaveUp = true;
                        letGo = true;
                    }
                    if (letGo) {
                        if (!ring.stage(heldSync)) {
                            throw new IllegalStateException("no room for the held fsync");
                        }
                        heldSync = null;
                        holding = false;
                    } else {
                        // Wake up in time to give up holding, and to see a release made by a fiber.
                        timeout = Math.min(timeoutNanos, Math.min(left, 1_000_000L));
                    }
                }
                return ring.enter(wait, timeout, (userData, result, flags) -> {
                    if (directoryOpens.remove(userData) && result >= 0) {
                        directoryFds.add(result);
                    }
                    sink.complete(userData, result, flags);
                });
            }

            private static Submission copy(Submission from) {
                Submission to = new Submission();
                to.opcode = from.opcode;
                to.fd = from.fd;
                to.buffer = from.buffer;
                to.length = from.length;
                to.offset = from.offset;
                to.rwFlags = from.rwFlags;
                to.flags = from.flags;
                to.userData = from.userData;
                to.target = from.target;
                return to;
            }
        }
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aHeldDirectorySyncDelaysNeitherATimerNorAReadNorAnotherPartitionOnTheSameWorker() {
        HeldDirectorySyncKernel kernel = new HeldDirectorySyncKernel();
        Path root = directory.resolve("store");
        List<String> delayed = new ThreadedRunner(kernel, 1, 64, root.toString(), "held-sync").start(ctx -> {
            List<String> late = new java.util.ArrayList<>();
            try (Blob blob = ctx.open("fast", "data").await().blob()) {
                blob.writeAt(0, utf8("still readable")).await();
                kernel.armed = true;
                // Creating partition "slow" syncs the storage root: held.
                Handle<Void> slowOpen = ctx.child("slowOpen").spawn(c -> {
                    c.open("slow", "new").await().blob().close();
                    return null;
                });
                for (int turn = 0; turn < 20_000 && !kernel.held; turn++) {
                    ctx.sleep(Duration.ofMillis(1));
                }
                assertTrue(kernel.held, "the open of a new partition synced its directory");

                ctx.sleep(Duration.ofMillis(1));
                if (!kernel.holding) {
                    late.add("a 1 ms timer");
                }
                assertArrayEquals(utf8("still readable"), blob.readAt(0, 14).await());
                if (!kernel.holding) {
                    late.add("a read of another partition's blob");
                }
                // An existing blob of another partition: its open syncs nothing, and waits for nothing.
                ctx.open("fast", "data").await().blob().close();
                if (!kernel.holding) {
                    late.add("an open in another partition");
                }
                // The same partition keeps its order: this remove of the blob being created waits for that open.
                Handle<Void> remove = ctx.child("slowRemove").spawn(c -> {
                    c.remove("slow", utf8("new")).await();
                    return null;
                });
                ctx.sleep(Duration.ofMillis(5));
                if (kernel.holding) {
                    assertFalse(remove.isDone(), "a remove admitted after the held open waits for it");
                    assertFalse(slowOpen.isDone(), "the held open has not completed");
                }
                kernel.release();
                slowOpen.await();
                remove.await();
                assertEquals(List.of(), ctx.scan("slow").await(), "the remove ran after the open that created it");
            } finally {
                kernel.release();
            }
            return late;
        });
        assertFalse(kernel.gaveUp && delayed.isEmpty(), "the double gave up holding while nothing was delayed");
        assertEquals(List.of(), delayed, "delayed by a directory fsync of another partition on the same worker"
                + " (held on thread " + kernel.heldOn + ")");
        assertFalse(Files.exists(root.resolve("slow").resolve("6e6577")), "the blob was removed");
    }

    @Test
    void anOpenAndARemoveAreRingOperationsAndNoSystemCallOfTheirOwn() {
        HeldDirectorySyncKernel kernel = new HeldDirectorySyncKernel();
        Path root = directory.resolve("store");
        new ThreadedRunner(kernel, 1, 64, root.toString(), "ring-metadata").start(ctx -> {
            kernel.recordCalls = true;
            kernel.staged.clear();
            ctx.open("fresh", "blob").await().blob().close();
            List<Opcode> creating = List.copyOf(kernel.staged);
            kernel.staged.clear();
            ctx.open("fresh", "blob").await().blob().close();
            List<Opcode> reopening = List.copyOf(kernel.staged);
            kernel.staged.clear();
            ctx.rename("fresh", "blob", "moved").await();
            List<Opcode> renaming = List.copyOf(kernel.staged);
            kernel.staged.clear();
            ctx.syncPartition("fresh").await();
            List<Opcode> syncing = List.copyOf(kernel.staged);
            kernel.staged.clear();
            ctx.remove("fresh", utf8("moved")).await();
            List<Opcode> removing = List.copyOf(kernel.staged);
            kernel.recordCalls = false;
            // Open (missing), create the partition, open the root, sync it, create the file, statx it, sync it,
            // open the partition's directory, sync it.
            assertEquals(List.of(Opcode.OPENAT, Opcode.MKDIRAT, Opcode.OPENAT, Opcode.FSYNC, Opcode.OPENAT,
                    Opcode.STATX, Opcode.FSYNC, Opcode.OPENAT, Opcode.FSYNC), creating, "creating a blob");
            assertEquals(List.of(Opcode.OPENAT, Opcode.STATX), reopening, "opening a durable blob");
            assertEquals(List.of(Opcode.RENAMEAT), renaming, "renaming a blob");
            assertEquals(List.of(Opcode.OPENAT, Opcode.FSYNC), syncing, "syncing a partition");
            assertEquals(List.of(Opcode.OPENAT, Opcode.UNLINKAT, Opcode.FSYNC), removing, "removing a blob");
            // The only system calls: closing the directory fds the syncs used, and the blobs' fds.
            for (String call : kernel.calls) {
                assertTrue(call.startsWith("close on "), "a system call of its own: " + call);
            }
            return null;
        });
        assertTrue(UringSetup.usesPathOpcodes(), "this kernel runs OPENAT, MKDIRAT, UNLINKAT, RENAMEAT and STATX");
        assertFalse(Files.exists(root.resolve("fresh").resolve("626c6f62")), "the blob was renamed");
        assertFalse(Files.exists(root.resolve("fresh").resolve("6d6f766564")), "the renamed blob was removed");
        assertTrue(Files.isDirectory(root.resolve("fresh")), "the partition stays");
    }

    @Test
    void withoutThePathOpcodesTheSameCallsRunOffTheWorker() {
        HeldDirectorySyncKernel kernel = new HeldDirectorySyncKernel();
        Path root = directory.resolve("store");
        UringSetup.assumePathOpcodes(false);
        try {
            new ThreadedRunner(kernel, 1, 64, root.toString(), "offloaded-metadata").start(ctx -> {
                try (Blob blob = ctx.open("p", "b", dev.lockstep.OpenOptions.NONE).await().blob()) {
                    blob.writeAt(0, utf8("kept")).await();
                    blob.sync().await();
                }
                dev.lockstep.OpenedBlob reopened = ctx.open("p", "b").await();
                reopened.blob().close();
                assertEquals(4, reopened.length(), "reopened with its length (statx)");
                ctx.rename("p", "b", "c").await();
                assertThrows(dev.lockstep.BlobMissingException.class, () -> ctx.rename("p", "b", "c").await());
                ctx.syncPartition("p").await();
                ctx.rename("p", "c", "b").await();
                ctx.remove("p", utf8("b")).await();
                assertThrows(dev.lockstep.BlobMissingException.class, () -> ctx.remove("p", utf8("b")).await());
                assertThrows(dev.lockstep.PartitionMissingException.class,
                        () -> ctx.remove("missing", utf8("b")).await());
                return null;
            });
        } finally {
            UringSetup.assumePathOpcodes(null);
        }
        assertFalse(Files.exists(root.resolve("p").resolve("62")), "the blob was removed");
    }
}
