package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.AbortedException;
import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.Task;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A thread that runs simulation after simulation keeps its carrier ({@link SimCarrier}): the next run is handed to
 * the idle carrier instead of a new thread. What users rely on: a seed gives the same digest and the same verdict on
 * a reused carrier as on a fresh one; a run after an interrupted one, or after one that left work on the carrier,
 * gets a fresh carrier; the handoff between caller and carrier loses no run and no wake-up when many threads run
 * short simulations at once and interrupts land at any moment.
 *
 * <p>The handoff has no Lincheck model: its shared state is a slot with one compare-and-set on each side and two
 * volatile flags, argued at {@link SimCarrier}; a model would have to start the carrier (a {@code ForkJoinWorkerThread}
 * of the common pool) inside the scenario and put the idle limit, which reads {@code System.nanoTime}, under the
 * model's control. It is shown instead by stress with plain threads: many short runs on several threads at once,
 * interrupts landing at random moments (during a run, between runs, at a handoff), every run's digest checked.
 */
class SimCarrierReuseTest {

    /** A seed's digest and how its run ended. */
    private record Verdict(String digest, String outcome) {
    }

    private static Verdict run(SimConfig config, Task<?> task) {
        SimRunner runner = SimRunner.of(config);
        String outcome;
        try {
            outcome = "returned " + runner.start(task);
        } catch (SimulationFailure failure) {
            outcome = "failed: " + failure.getMessage();
        }
        return new Verdict(runner.digest(), outcome);
    }

    private static Verdict mixed(long seed) {
        return run(MixedWorkload.config(seed), MixedWorkload::run);
    }

    /** A run that fails: it sleeps past the simulated time limit. */
    private static Verdict timedOut(long seed) {
        return run(SimConfig.builder().seed(seed).timeLimit(Duration.ofSeconds(1)).build(), ctx -> {
            ctx.sleep(Duration.ofSeconds(5));
            return null;
        });
    }

    /** Runs {@code work} on a new platform thread, which has no carrier yet, and returns what it returned. */
    private static <T> T onNewThread(Callable<T> work) throws Exception {
        AtomicReference<T> result = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        // Not inheriting the test thread's inheritable thread-locals, whatever the test framework keeps there.
        Thread thread = Thread.ofPlatform().name("simulation-caller").inheritInheritableThreadLocals(false)
                .start(() -> {
            try {
                result.set(work.call());
            } catch (Throwable thrown) {
                failure.set(thrown);
            }
        });
        assertTrue(thread.join(Duration.ofSeconds(50)), "the caller's thread ended");
        if (failure.get() instanceof Exception exception) {
            throw exception;
        }
        if (failure.get() instanceof Error error) {
            throw error;
        }
        return result.get();
    }

    @Test
    void aSeedHasTheSameDigestAndVerdictOnAReusedCarrierAsOnAFreshOne() throws Exception {
        Verdict freshMixed = onNewThread(() -> mixed(7));
        Verdict freshTimedOut = onNewThread(() -> timedOut(8));
        assertTrue(freshTimedOut.outcome().contains("timed out"), freshTimedOut.outcome());
        onNewThread(() -> {
            Verdict first = mixed(7);
            Thread carrier = SimCarrier.idleCarrier();
            assertNotNull(carrier, "the caller keeps its carrier");
            assertEquals("lockstep-sim-7", carrier.getName());
            for (long seed = 20; seed < 25; seed++) {
                mixed(seed);
            }
            Verdict again = mixed(7);
            assertSame(carrier, SimCarrier.idleCarrier(), "every run went to the same carrier");
            assertEquals("lockstep-sim-7", carrier.getName(), "the carrier is named after each run's seed");
            assertEquals(freshMixed, first);
            assertEquals(freshMixed, again, "the seed's digest after other runs on its carrier");
            Verdict failed = timedOut(8);
            assertEquals(freshTimedOut, failed, "a failing seed's verdict on a reused carrier");
            // The failure's replay line looked up SHA-256 on the carrier, and the JDK keeps the lookup's key in a
            // thread-local there: the carrier is not kept. The next one is.
            assertNull(SimCarrier.idleCarrier());
            assertEquals(freshMixed, mixed(7));
            assertNotNull(SimCarrier.idleCarrier());
            return null;
        });
    }

    @Test
    void aRunAfterAnInterruptedRunGetsAFreshCarrier() throws Exception {
        Verdict fresh = onNewThread(() -> mixed(3));
        onNewThread(() -> {
            assertEquals(fresh, mixed(3));
            Thread first = SimCarrier.idleCarrier();
            assertNotNull(first);
            Thread caller = Thread.currentThread();
            CountDownLatch running = new CountDownLatch(1);
            Thread interrupter = Thread.ofPlatform().start(() -> {
                try {
                    if (running.await(20, TimeUnit.SECONDS)) {
                        caller.interrupt();
                    }
                } catch (InterruptedException stop) {
                    Thread.currentThread().interrupt();
                }
            });
            SimRunner endless = SimRunner.of(SimConfig.builder().seed(4).timeLimit(Duration.ofDays(365)).build());
            assertThrows(AbortedException.class, () -> endless.start(ctx -> {
                running.countDown();
                while (true) {
                    ctx.sleep(Duration.ofNanos(1_000));
                }
            }));
            assertTrue(Thread.interrupted(), "the caller's interrupt status is set again");
            assertTrue(interrupter.join(Duration.ofSeconds(20)));
            assertNull(SimCarrier.idleCarrier(), "the interrupted run's carrier is not kept");
            assertTrue(first.join(Duration.ofSeconds(20)), "the interrupted run's carrier ends");
            assertEquals(fresh, mixed(3), "the seed's digest on the next, fresh carrier");
            Thread next = SimCarrier.idleCarrier();
            assertNotNull(next);
            assertNotSame(first, next);
            return null;
        });
    }

    @Test
    void aCarrierWhoseQueueStillHoldsPooledWorkIsRetired() throws Exception {
        Verdict fresh = onNewThread(() -> mixed(5));
        onNewThread(() -> {
            mixed(6);
            Thread first = SimCarrier.idleCarrier();
            assertNotNull(first);
            Verdict leak = run(SimConfig.builder().seed(5).build(), ctx -> {
                // Two tasks in one step: the step's end takes the first off the carrier's queue and fails the run;
                // the second stays there.
                CompletableFuture.runAsync(() -> { });
                CompletableFuture.runAsync(() -> { });
                return null;
            });
            assertTrue(leak.outcome().contains("handed work to the ForkJoinPool common pool"), leak.outcome());
            assertNull(SimCarrier.idleCarrier(), "a carrier with work in its queue is not kept");
            assertTrue(first.join(Duration.ofSeconds(20)), "and it ends");
            assertEquals(fresh, mixed(5));
            assertNotNull(SimCarrier.idleCarrier(), "the next run's carrier is kept");
            return null;
        });
    }

    @Test
    void anIdleCarrierThatIsInterruptedTakesNoMoreRuns() throws Exception {
        Verdict fresh = onNewThread(() -> mixed(12));
        onNewThread(() -> {
            mixed(13);
            Thread first = SimCarrier.idleCarrier();
            assertNotNull(first);
            // From whoever holds the thread (a harness interrupting every thread, code of an earlier run that kept
            // Thread.currentThread()): a new carrier would not have this interrupt, so this one is not reused.
            first.interrupt();
            assertEquals(fresh, mixed(12));
            Thread next = SimCarrier.idleCarrier();
            assertNotNull(next, "the next run's carrier is kept");
            assertNotSame(first, next, "the interrupted carrier was not handed the run");
            assertTrue(first.join(Duration.ofSeconds(20)), "the interrupted carrier ends");
            return null;
        });
    }

    @Test
    void anIdleCarrierKeepsNothingOfItsLastRun() throws Exception {
        onNewThread(() -> {
            WeakReference<byte[]> held = heldByADroppedRun();
            assertNotNull(SimCarrier.idleCarrier(), "the carrier waits, idle, for the next run");
            for (int gc = 0; gc < 10 && held.get() != null; gc++) {
                System.gc();
            }
            assertTrue(held.get() == null, "what the run's task held is garbage once its runner is dropped");
            return null;
        });
    }

    /** Runs a task that holds a megabyte, and drops the runner, the task and the outcome. */
    private static WeakReference<byte[]> heldByADroppedRun() {
        byte[] data = new byte[1 << 20];
        SimRunner.seeded(1).start(ctx -> data.length);
        return new WeakReference<>(data);
    }

    @Test
    void onlyThreadLocalsThatReadAsAbsentLetACarrierBeReused() throws Exception {
        ThreadLocal<String> plain = new ThreadLocal<>();
        ThreadLocal<String> withInitial = ThreadLocal.withInitial(() -> "initial");
        InheritableThreadLocal<String> inherited = new InheritableThreadLocal<>();
        Callable<Void> checks = () -> {
            Thread self = Thread.currentThread();
            assertTrue(SimCarrier.threadLocalsHoldNothing(self, false), "a new thread holds nothing");
            assertTrue(SimCarrier.threadLocalsHoldNothing(self, true));
            plain.set("value");
            assertFalse(SimCarrier.threadLocalsHoldNothing(self, false), "a value");
            plain.set(null);
            assertTrue(SimCarrier.threadLocalsHoldNothing(self, false), "a plain thread-local holding null");
            withInitial.set(null);
            assertFalse(SimCarrier.threadLocalsHoldNothing(self, false), "null where absent reads the initial value");
            withInitial.remove();
            plain.remove();
            assertTrue(SimCarrier.threadLocalsHoldNothing(self, false), "removed");
            inherited.set("value");
            assertFalse(SimCarrier.threadLocalsHoldNothing(self, true), "an inheritable value");
            assertTrue(SimCarrier.threadLocalsHoldNothing(self, false), "in the other map");
            inherited.remove();
            assertTrue(SimCarrier.threadLocalsHoldNothing(self, true));
            return null;
        };
        onNewThread(checks);
    }

    @Test
    void fibersSeeTheCallersInheritableValuesOfEachRun() throws Exception {
        InheritableThreadLocal<String> inherited = new InheritableThreadLocal<>();
        Task<String> read = ctx -> ctx.child("reader").spawn(c -> String.valueOf(inherited.get())).await();
        onNewThread(() -> {
            assertEquals("null", SimRunner.seeded(1).start(read));
            assertNotNull(SimCarrier.idleCarrier());
            // Each run's carrier is made for it, as a new thread made now copies the caller's values.
            inherited.set("first");
            assertEquals("first", SimRunner.seeded(1).start(read));
            inherited.set("second");
            assertEquals("second", SimRunner.seeded(1).start(read));
            inherited.remove();
            assertEquals("null", SimRunner.seeded(1).start(read));
            assertNotNull(SimCarrier.idleCarrier(), "without them a carrier is kept again");
            return null;
        });
    }

    @Test
    void anIdleCarrierWhoseCallerIsGoneEnds() throws Exception {
        Thread carrier = onNewThread(() -> {
            shortRun(1);
            return SimCarrier.idleCarrier();
        });
        assertNotNull(carrier, "the caller kept its carrier until it ended");
        assertTrue(carrier.isDaemon(), "an idle carrier does not keep the JVM alive");
        assertTrue(carrier.join(SimCarrier.IDLE_LIMIT.plusSeconds(30)), "the carrier ends after its idle limit");
    }

    @Test
    void aVirtualCallerGetsACarrierPerRun() throws Exception {
        Verdict fresh = onNewThread(() -> mixed(11));
        AtomicReference<Object> seen = new AtomicReference<>();
        Thread virtual = Thread.ofVirtual().start(() -> {
            Verdict first = mixed(11);
            Verdict second = mixed(11);
            seen.set(List.of(first, second, String.valueOf(SimCarrier.idleCarrier())));
        });
        assertTrue(virtual.join(Duration.ofSeconds(50)));
        assertEquals(List.of(fresh, fresh, "null"), seen.get());
    }

    /** A short run: four fibers, each sleeping a microsecond twenty times. */
    private static String shortRun(long seed) {
        SimRunner runner = SimRunner.of(SimConfig.builder().seed(seed).workers(2).build());
        runner.start((Context ctx) -> {
            List<Handle<Void>> fibers = new ArrayList<>();
            for (int f = 0; f < 4; f++) {
                fibers.add(ctx.child("f" + f).spawn(c -> {
                    for (int i = 0; i < 20; i++) {
                        c.sleep(Duration.ofNanos(1_000));
                    }
                    return null;
                }));
            }
            for (Handle<Void> fiber : fibers) {
                fiber.await();
            }
            return null;
        });
        return runner.digest();
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void manyThreadsRunManyShortSimulationsWhileSomeAreInterruptedAtAnyMoment() throws Exception {
        int threads = 4;
        int runsPerThread = 150;
        int seeds = 10;
        Map<Long, String> alone = new HashMap<>();
        for (long seed = 0; seed < seeds; seed++) {
            long s = seed;
            alone.put(seed, onNewThread(() -> shortRun(s)));
        }
        List<String> failures = new CopyOnWriteArrayList<>();
        List<Thread> callers = new ArrayList<>();
        int[] completed = new int[threads];
        int[] aborted = new int[threads];
        int[] carriers = new int[threads];
        for (int t = 0; t < threads; t++) {
            int index = t;
            callers.add(Thread.ofPlatform().name("caller-" + t).inheritInheritableThreadLocals(false).start(() -> {
                Map<Thread, Boolean> used = new IdentityHashMap<>();
                for (int i = 0; i < runsPerThread && failures.isEmpty(); i++) {
                    long seed = (index * 7L + i) % seeds;
                    try {
                        String digest = shortRun(seed);
                        completed[index]++;
                        if (!alone.get(seed).equals(digest)) {
                            failures.add("caller " + index + ", run " + i + ": seed " + seed + " had digest " + digest);
                        }
                        Thread carrier = SimCarrier.idleCarrier();
                        boolean interrupted = Thread.interrupted(); // then the run's carrier was not kept
                        if (carrier == null && !interrupted) {
                            failures.add("caller " + index + ", run " + i + ": no carrier kept after a run");
                        } else {
                            used.put(carrier, true);
                        }
                    } catch (AbortedException interrupted) {
                        aborted[index]++;
                        Thread.interrupted();
                        if (SimCarrier.idleCarrier() != null) {
                            failures.add("caller " + index + ", run " + i + ": an interrupted run's carrier was kept");
                        }
                    } catch (Throwable unexpected) {
                        failures.add("caller " + index + ", run " + i + ": " + unexpected);
                    }
                }
                Thread.interrupted();
                carriers[index] = used.size();
            }));
        }
        // Callers 0 and 1 are interrupted at random moments: during a run, between runs, at a handoff.
        AtomicBoolean stop = new AtomicBoolean();
        Thread interrupter = Thread.ofPlatform().name("interrupter").start(() -> {
            Random random = new Random(42);
            while (!stop.get()) {
                callers.get(random.nextInt(2)).interrupt();
                long until = System.nanoTime() + random.nextInt(3_000_000);
                while (System.nanoTime() < until && !stop.get()) {
                    Thread.onSpinWait();
                }
            }
        });
        for (Thread caller : callers) {
            assertTrue(caller.join(Duration.ofSeconds(150)), caller.getName() + " ended");
        }
        stop.set(true);
        assertTrue(interrupter.join(Duration.ofSeconds(10)));
        assertEquals(List.of(), failures);
        for (int t = 0; t < threads; t++) {
            assertEquals(runsPerThread, completed[t] + aborted[t], "caller " + t + " ran every run");
        }
        assertTrue(aborted[0] + aborted[1] > 0, "the interrupts landed in runs");
        for (int t = 2; t < threads; t++) {
            assertEquals(0, aborted[t], "caller " + t + " was never interrupted");
            assertTrue(carriers[t] < runsPerThread / 2, "caller " + t + " reused its carrier: " + carriers[t]
                    + " carriers for " + runsPerThread + " runs");
        }
    }
}
