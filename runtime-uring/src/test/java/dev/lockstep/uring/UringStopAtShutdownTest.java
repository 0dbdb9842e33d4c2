package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Context;
import dev.lockstep.Signal;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** stop() and signal waits racing the end of a run (StopState.shutDown, Engine.endRun). */
class UringStopAtShutdownTest {
    private static String outcome(ThrowingRunnable body) {
        try {
            body.run();
            return "returned";
        } catch (Throwable thrown) {
            return thrown.getClass().getSimpleName();
        }
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    /**
     * A plain thread asks for a graceful stop and waits for the holders; the root returns once stop is signalled,
     * and the holder (aborted in its cleanup) closes its signal in its finally block, moments later. The holder
     * did close its signal, so the stop's wait for holders is satisfied.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aStopFromAPlainThreadWaitingForAHolderThatClosesInItsFinally() throws Exception {
        java.util.Map<String, Integer> outcomes = new java.util.TreeMap<>();
        for (int run = 0; run < 20; run++) {
            AtomicReference<Context> escaped = new AtomicReference<>();
            CountDownLatch holding = new CountDownLatch(1);
            AtomicReference<String> stopOutcome = new AtomicReference<>();
            Thread stopper = Thread.ofPlatform().unstarted(() -> {
                try {
                    holding.await();
                } catch (InterruptedException e) {
                    return;
                }
                stopOutcome.set(outcome(() -> escaped.get().stop(3, null)));
            });
            stopper.start();
            UringRunner.builder().workers(2).build().start(ctx -> {
                escaped.set(ctx.child("escaped"));
                ctx.child("holder").spawnOn(1, c -> {
                    Signal signal = c.stopped();
                    try {
                        holding.countDown();
                        signal.await();
                        c.sleep(Duration.ofMillis(50)); // cleanup, cut short by the abort
                    } finally {
                        signal.close();
                    }
                    return null;
                });
                try (Signal signal = ctx.stopped()) {
                    signal.await();
                }
                return "done";
            });
            stopper.join(10_000);
            outcomes.merge(String.valueOf(stopOutcome.get()), 1, Integer::sum);
        }
        System.out.println("plain-thread stop(3, null) outcomes " + outcomes);
        assertEquals(java.util.Map.of("returned", 20), outcomes);
    }

    /** A task calls stop in its finally block as the run ends (aborted): what it sees, and whether the code is set. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aTaskStoppingInItsFinallyAsTheRunEnds() {
        AtomicReference<String> seen = new AtomicReference<>();
        AtomicReference<Signal> escapedSignal = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);
        UringRunner.builder().workers(2).build().start(ctx -> {
            escapedSignal.set(ctx.stopped());
            ctx.child("stopper").spawnOn(1, c -> {
                try {
                    started.countDown();
                    c.sleep(Duration.ofMinutes(1));
                } finally {
                    seen.set(outcome(() -> c.stop(7, null)));
                }
                return null;
            });
            started.await();
            ctx.sleep(Duration.ofMillis(5));
            return "done";
        });
        System.out.println("task stop(7) in finally: " + seen.get() + ", code afterwards "
                + escapedSignal.get().poll());
        // An aborted task's waits end with ClosedException, as before; its stop is still signalled (first code).
        assertEquals("ClosedException", seen.get());
        assertEquals(7, escapedSignal.get().poll());
    }

    /**
     * Plain threads wait on an escaped signal (await and asOperation().await()) and on a stop while the run
     * ends: every wait ends (no lost wake-up between shutDown and the waiter's listing).
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void waitsRacingTheEndOfTheRunAllEnd() throws Exception {
        java.util.Map<String, Integer> outcomes = new java.util.TreeMap<>();
        long start = System.nanoTime();
        int runs = 0;
        java.util.SplittableRandom random = new java.util.SplittableRandom(11);
        while (System.nanoTime() - start < StressBudget.nanos()) {
            AtomicReference<Context> escaped = new AtomicReference<>();
            AtomicReference<Signal> held = new AtomicReference<>();
            CountDownLatch ready = new CountDownLatch(1);
            String[] results = new String[3];
            Thread[] threads = new Thread[3];
            threads[0] = Thread.ofPlatform().start(() -> {
                awaitQuietly(ready);
                results[0] = "await:" + outcome(() -> held.get().await());
            });
            threads[1] = Thread.ofPlatform().start(() -> {
                awaitQuietly(ready);
                results[1] = "asOp:" + outcome(() -> {
                    try (var op = held.get().asOperation()) {
                        op.await();
                    }
                });
            });
            boolean stopFirst = random.nextInt(4) == 0;
            threads[2] = Thread.ofPlatform().start(() -> {
                awaitQuietly(ready);
                if (stopFirst) {
                    results[2] = "stop:" + outcome(() -> escaped.get().stop(1, null));
                } else {
                    results[2] = "stop:skipped";
                }
            });
            long lifetime = random.nextLong(200_000);
            UringRunner.builder().workers(2).ringEntries(8).build().start(ctx -> {
                escaped.set(ctx.child("e"));
                held.set(ctx.stopped());
                Signal closer = ctx.stopped();
                ctx.child("closer").spawnOn(1, c -> {
                    try {
                        c.sleep(Duration.ofMinutes(1));
                    } finally {
                        closer.close(); // a holder's close racing shutDown
                    }
                    return null;
                });
                ready.countDown();
                ctx.sleep(Duration.ofNanos(lifetime));
                return null;
            });
            for (Thread thread : threads) {
                thread.join(10_000);
                assertTrue(!thread.isAlive(), "a wait hung after the run ended: " + String.join(",", results));
            }
            for (String result : results) {
                outcomes.merge(result, 1, Integer::sum);
            }
            runs++;
        }
        System.out.println("runs " + runs + " outcomes " + outcomes);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
