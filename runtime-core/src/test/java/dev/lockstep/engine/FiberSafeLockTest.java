package dev.lockstep.engine;

import dev.lockstep.engine.request.Immediate;
import dev.lockstep.engine.worker.Worker;
import dev.lockstep.sync.FiberSafeLock;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The three-party hand-off {@link FiberSafeLock} exists for, on the real threaded runner: a plain thread holds
 * the lock, a fiber contends it, then the fiber's own carrier contends it in its service turn, then the plain
 * thread lets go. With a monitor the fiber queues first and is handed the monitor while its only carrier is
 * blocked in the queue behind it, and the worker wedges for good; here the run completes.
 */
class FiberSafeLockTest {
    private final ScriptedKernel kernel = new ScriptedKernel();

    @Test
    void aFiberAndItsCarrierContendingALockAPlainThreadHoldsBothGetIt() throws InterruptedException {
        FiberSafeLock shared = new FiberSafeLock();
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread holder = Thread.ofPlatform().start(() -> {
            shared.lock();
            try {
                held.countDown();
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                shared.unlock();
            }
        });
        assertTrue(held.await(10, TimeUnit.SECONDS));
        AtomicInteger entered = new AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean contending = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicReference<AssertionError> releaserFailure =
                new java.util.concurrent.atomic.AtomicReference<>();
        try {
            new ThreadedRunner(kernel, 1, 4, null, "handoff").start(ctx -> {
                dev.lockstep.Handle<Void> contender = ctx.spawn(child -> {
                    contending.set(true);
                    takeOnce(shared, entered); // tries, finds the lock held and yields, on one carrier
                    return null;
                });
                // The contender runs on this fiber's carrier: it is seen contending only once it yielded, and it
                // yields only in lock(), after a failed try.
                Support.serviceUntil("the contender tried the lock", contending::get);
                // Let go of the lock once the carrier queues for it in runImmediate below.
                Thread.ofPlatform().start(() -> {
                    try {
                        awaitQueuedBehind(holder);
                    } catch (AssertionError failure) {
                        releaserFailure.set(failure);
                    } finally {
                        release.countDown();
                    }
                });
                // runImmediate runs on the carrier, in its service turn, never in a fiber.
                Worker.current().<Object>register(new Immediate("the carrier takes the shared lock", () -> {
                    takeOnce(shared, entered);
                    return null;
                })).await();
                contender.await();
                return null;
            });
        } finally {
            release.countDown();
            holder.join();
        }
        if (releaserFailure.get() != null) {
            throw releaserFailure.get();
        }
        assertEquals(2, entered.get(), "the fiber and the carrier each took the lock once");
    }

    /**
     * Waits (bounded) until some thread queues for a lock {@code owner} holds; a fiber never queues for a
     * FiberSafeLock, so here that thread is the worker's carrier.
     */
    private static void awaitQueuedBehind(Thread owner) {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        BoundedWait.parking("a thread queued for the lock " + owner + " holds",
                () -> java.util.Arrays.stream(threads.getThreadInfo(threads.getAllThreadIds()))
                        .anyMatch(info -> info != null && info.getLockOwnerId() == owner.threadId()));
    }

    private static void takeOnce(FiberSafeLock lock, AtomicInteger entered) {
        lock.lock();
        try {
            entered.incrementAndGet();
        } finally {
            lock.unlock();
        }
    }
}
