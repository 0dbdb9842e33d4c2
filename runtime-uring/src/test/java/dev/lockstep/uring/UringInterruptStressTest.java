package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Handle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A plain thread interrupts fibers of three workers at random while they sleep, await tasks on other workers and
 * run: no wait is ended by an interrupt, none spins (every fiber keeps making rounds, so its worker keeps
 * turning), and each fiber ends with its interrupt status set exactly when it was interrupted. Where the threads
 * meet is {@code Fibers.await}: an interrupt landing on a parked fiber unparks it once, it finds nothing ready,
 * clears the status and parks again; one landing while it runs leaves the status for that same clearing.
 * Time-bounded ({@link StressBudget}).
 */
@org.junit.jupiter.api.Tag("adversarial")
class UringInterruptStressTest {
    private static final int WORKERS = 3;
    private static final int FIBERS = 24;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void interruptedFibersKeepWaitingProperlyAndKeepTheirStatus() {
        AtomicReferenceArray<Thread> fiberThreads = new AtomicReferenceArray<>(FIBERS);
        AtomicIntegerArray interrupts = new AtomicIntegerArray(FIBERS);
        AtomicBoolean stop = new AtomicBoolean();
        List<String> outcomes = UringRunner.builder().workers(WORKERS).ringEntries(16).build().start(ctx -> {
            List<Handle<String>> fibers = new ArrayList<>();
            for (int i = 0; i < FIBERS; i++) {
                int index = i;
                int home = i % WORKERS;
                fibers.add(ctx.child("fiber" + i).spawnOn(home, c -> {
                    fiberThreads.set(index, Thread.currentThread());
                    SplittableRandom random = new SplittableRandom(index);
                    int rounds = 0;
                    while (!stop.get()) {
                        c.sleep(Duration.ofNanos(random.nextInt(200_000)));
                        if (rounds % 4 == 3) {
                            c.child("elsewhere").spawnOn((home + 1) % WORKERS, e -> {
                                e.sleep(Duration.ofNanos(20_000));
                                return null;
                            }).await();
                        }
                        rounds++;
                    }
                    // The interrupter has ended: every interrupt it made happened before this line.
                    c.sleep(Duration.ofMillis(1));
                    return rounds + " rounds, status " + Thread.interrupted();
                }));
            }
            Thread interrupter = Thread.ofPlatform().name("interrupter").start(() -> {
                SplittableRandom random = new SplittableRandom(99);
                long start = System.nanoTime();
                while (System.nanoTime() - start < StressBudget.nanos()) {
                    int target = random.nextInt(FIBERS);
                    Thread thread = fiberThreads.get(target);
                    if (thread != null) {
                        interrupts.incrementAndGet(target);
                        thread.interrupt();
                    }
                    // Parks between interrupts rather than spinning: the workers need the machine's cores.
                    java.util.concurrent.locks.LockSupport.parkNanos(1_000 + random.nextInt(50_000));
                }
            });
            while (interrupter.isAlive()) {
                ctx.sleep(Duration.ofMillis(5));
            }
            stop.set(true);
            List<String> results = new ArrayList<>();
            for (Handle<String> fiber : fibers) {
                results.add(fiber.await());
            }
            return results;
        });
        int interrupted = 0;
        for (int i = 0; i < FIBERS; i++) {
            String outcome = outcomes.get(i);
            boolean wasInterrupted = interrupts.get(i) > 0;
            interrupted += wasInterrupted ? 1 : 0;
            assertTrue(outcome.endsWith("status " + wasInterrupted), "fiber " + i + " interrupted "
                    + interrupts.get(i) + " times: " + outcome);
            assertTrue(!outcome.startsWith("0 rounds"), "fiber " + i + " made no round: " + outcome);
        }
        assertEquals(FIBERS, interrupted, "every fiber was interrupted at least once: " + interrupts);
        long total = 0;
        for (int i = 0; i < FIBERS; i++) {
            total += interrupts.get(i);
        }
        System.out.println("interrupts " + total + " over " + FIBERS + " fibers");
    }
}
