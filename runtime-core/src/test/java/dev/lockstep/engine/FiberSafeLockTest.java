package dev.lockstep.engine;

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
        try {
            new ThreadedRunner(kernel, 1, 4, null, "handoff").start(ctx -> {
                dev.lockstep.Handle<Void> contender = ctx.spawn(child -> {
                    takeOnce(shared, entered);
                    return null;
                });
                // Let the contender start and find the lock held.
                Support.turns(5);
                // Let go of the lock once the carrier is (almost certainly) waiting for it in runImmediate below.
                Thread.ofPlatform().start(() -> {
                    try {
                        Thread.sleep(200);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    release.countDown();
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
        assertEquals(2, entered.get(), "the fiber and the carrier each took the lock once");
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
