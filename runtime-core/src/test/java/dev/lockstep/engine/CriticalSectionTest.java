package dev.lockstep.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.engine.worker.Worker;
import dev.lockstep.kernel.Ring;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Nothing inside a worker's critical section may park ({@link Worker#borrow()}); a fiber that does anyway fails
 * the run, loudly and with its stack, instead of wedging it.
 */
class CriticalSectionTest {
    private final ScriptedKernel kernel = new ScriptedKernel();

    @Test
    void aFiberThatParksInsideTheCriticalSectionFailsTheRunWithItsStack() {
        ParkingRequest.assertAParkInsideTheCriticalSectionFailsTheRun(new ThreadedRunner(kernel, 2, 4, null, "guard"));
    }

    /** The scripted ring's wake is lock-free like a real ring's: a fiber calls it inside a critical section. */
    @Test
    void scriptedRingWakeNeverWaitsForTheKernelsLock() throws InterruptedException {
        Ring ring = kernel.openRing(4);
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch woke = new CountDownLatch(1);
        Thread holder = Thread.ofPlatform().start(() -> {
            kernel.lock.lock();
            try {
                held.countDown();
                try {
                    woke.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            } finally {
                kernel.lock.unlock();
            }
        });
        held.await();
        Thread waker = Thread.ofVirtual().start(ring::wake);
        boolean returned = waker.join(Duration.ofSeconds(5));
        woke.countDown();
        holder.join();
        waker.join();
        assertTrue(returned, "wake returned while another thread held the kernel's lock");
        // And the wake is not lost: the next enter returns at once instead of waiting.
        assertEquals(0, ring.enter(true, Long.MAX_VALUE, (userData, result, flags) -> { }));
        assertEquals(0, ((ScriptedKernel.ScriptedRing) ring).cappedWaits.get(), "the enter was ended by the wake");
    }
}
