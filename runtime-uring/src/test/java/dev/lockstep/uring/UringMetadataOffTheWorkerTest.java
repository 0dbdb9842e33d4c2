package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.Handle;
import dev.lockstep.engine.ThreadedRunner;
import dev.lockstep.kernel.Kernel;
import dev.lockstep.kernel.Ring;
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
 * {@code fsync} that does not return (a test double around the real system calls holds it until the test lets
 * it go) delays neither a timer nor a read on the same worker, nor metadata of another partition; metadata of
 * the same partition waits for it, in order.
 *
 * <p>On a runtime that runs metadata on the worker thread, the held {@code fsync} blocks the one worker, so the
 * timer and the read cannot complete while it is held: the double gives up holding after {@link #HOLD_LIMIT}
 * and the test fails saying what was delayed. Nothing here measures time.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // hang guard only
class UringMetadataOffTheWorkerTest {
    /** The longest the double holds a directory fsync before letting it go on its own. */
    static final Duration HOLD_LIMIT = Duration.ofSeconds(10);

    @TempDir
    Path directory;

    /**
     * The real kernel, whose system calls hold the {@code fsync} of any directory while {@link #armed}, until
     * {@link #release()} or {@link #HOLD_LIMIT}.
     */
    static final class HeldDirectorySyncKernel implements Kernel {
        private final UringKernel real = new UringKernel();
        private final Set<Integer> directoryFds = ConcurrentHashMap.newKeySet();
        private final CountDownLatch released = new CountDownLatch(1);
        volatile boolean armed;
        /** A directory fsync is being held right now. */
        volatile boolean holding;
        volatile boolean held;
        volatile boolean gaveUp;
        volatile String heldOn;
        private final SystemCalls system = (SystemCalls) Proxy.newProxyInstance(SystemCalls.class.getClassLoader(),
                new Class<?>[] {SystemCalls.class}, (proxy, method, arguments) -> {
                    if (method.getName().equals("fsync") && armed && directoryFds.contains((Integer) arguments[0])) {
                        hold();
                    }
                    Object result;
                    try {
                        result = method.invoke(real.system(), arguments);
                    } catch (InvocationTargetException thrown) {
                        throw thrown.getCause();
                    }
                    if (method.getName().equals("open")
                            && ((Integer) arguments[1] & SystemCalls.O_DIRECTORY) != 0) {
                        directoryFds.add((Integer) result);
                    } else if (method.getName().equals("close")) {
                        directoryFds.remove((Integer) arguments[0]);
                    }
                    return result;
                });

        private void hold() throws InterruptedException {
            heldOn = Thread.currentThread().getName();
            held = true;
            holding = true;
            try {
                gaveUp = !released.await(HOLD_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
            } finally {
                holding = false;
            }
        }

        void release() {
            released.countDown();
        }

        @Override
        public Ring openRing(int entries) {
            return real.openRing(entries);
        }

        @Override
        public int maxEntries() {
            return real.maxEntries();
        }

        @Override
        public SystemCalls system() {
            return system;
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
}
