package dev.lockstep.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.ClosedException;
import dev.lockstep.Context;
import dev.lockstep.ExitedException;
import dev.lockstep.Handle;
import dev.lockstep.Signal;
import dev.lockstep.TimeoutException;
import dev.lockstep.engine.worker.Worker;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The supervision tree, stop, timeouts and the clock (ARCHITECTURE.md §2, {@code Spawner}, {@code Clock}), through the
 * public API of the context only. Time is the scripted kernel's manual clock: a "ticker" task advances it, so
 * no test waits in real time for a timer.
 */
class SupervisionTest {
    private static final Duration FOREVER = Duration.ofDays(365);
    private final ScriptedKernel kernel = new ScriptedKernel();

    private ThreadedRunner runner() {
        return new ThreadedRunner(kernel, 1, 4, null, "supervision");
    }

    /** A task that advances the manual clock by {@code step} per turn until aborted. */
    private Handle<Void> ticker(Context ctx, Duration step) {
        return ctx.child("ticker").spawn(c -> {
            while (true) {
                kernel.advance(step.toNanos());
                // An abort checkpoint that completes at once, then let the worker service.
                c.sleep(Duration.ZERO);
                Thread.yield();
            }
        });
    }

    /** A task that records that it started, sleeps until aborted and records its finally block. */
    private static Handle<String> sleeper(Context ctx, AtomicInteger started, AtomicInteger finished) {
        return ctx.spawn(c -> {
            started.incrementAndGet();
            try {
                c.sleep(FOREVER);
                return "woke";
            } finally {
                finished.incrementAndGet();
            }
        });
    }

    // ---- spawn ----

    @Test
    void spawnReturnsTheTasksValue() {
        int value = runner().start(ctx -> ctx.child("worker").spawn(c -> 6 * 7).await());
        assertEquals(42, value);
    }

    @Test
    void spawnConsumesTheContext() {
        runner().start(ctx -> {
            Context child = ctx.child("once");
            assertEquals(1, child.spawn(c -> 1).await());
            IllegalStateException again = assertThrows(IllegalStateException.class, () -> child.spawn(c -> 2));
            assertTrue(again.getMessage().contains("once"), again.getMessage());
            assertThrows(IllegalStateException.class, () -> child.spawnOn(0, c -> 3));
            return null;
        });
    }

    @Test
    void spawnOnAnOutOfRangeWorkerIsRefusedNamingIt() {
        runner().start(ctx -> {
            IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                    () -> ctx.child("far").spawnOn(1, c -> null));
            assertTrue(bad.getMessage().contains("was 1"), bad.getMessage());
            assertThrows(IllegalArgumentException.class, () -> ctx.child("negative").spawnOn(-1, c -> null));
            return null;
        });
    }

    @Test
    void childLabelsAreValidatedAndDotted() {
        runner().start(ctx -> {
            for (String bad : new String[] {"", "1abc", "a-b", "a.b", "with space", "_x", "é"}) {
                IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class, () -> ctx.child(bad),
                        "label '" + bad + "'");
                assertTrue(thrown.getMessage().contains("'" + bad + "'"), thrown.getMessage());
            }
            assertThrows(IllegalArgumentException.class, () -> ctx.child(null));
            for (String reserved : new String[] {"runtime", "runtimeTasks", "runtime_x"}) {
                IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class,
                        () -> ctx.child(reserved));
                assertTrue(thrown.getMessage().contains("reserved") && thrown.getMessage().contains(reserved),
                        thrown.getMessage());
            }
            assertEquals("", ctx.label());
            Context deep = ctx.child("a").child("B_2").child("c3");
            assertEquals("a.B_2.c3", deep.label());
            // A spawned task's context carries the label of the context that spawned it.
            assertEquals("a.B_2.c3", deep.spawn(Context::label).await());
            assertEquals("rt", ctx.child("rt").label());
            return null;
        });
    }

    @Test
    void theRootsCheckedExceptionIsWrappedAndStartRefusesFibers() {
        IOException io = new IOException("root io");
        ExitedException exited = assertThrows(ExitedException.class, () -> runner().start(ctx -> {
            throw io;
        }));
        assertSame(io, exited.getCause());
        runner().start(ctx -> {
            assertThrows(IllegalStateException.class, () -> runner().start(c -> null));
            return null;
        });
    }

    // ---- abort ----

    @Test
    void abortingATaskClosesItsHandleAndItsAwaitsAndRunsItsFinallyBlocks() {
        AtomicReference<Throwable> seenByTask = new AtomicReference<>();
        AtomicReference<Throwable> laterAwait = new AtomicReference<>();
        AtomicBoolean finallyRan = new AtomicBoolean();
        AtomicBoolean started = new AtomicBoolean();
        runner().start(ctx -> {
            Handle<String> victim = ctx.child("victim").spawn(c -> {
                started.set(true);
                try {
                    c.sleep(FOREVER);
                    return "slept";
                } catch (RuntimeException e) {
                    seenByTask.set(e);
                    throw e;
                } finally {
                    // Every later await throws too.
                    try {
                        c.sleep(Duration.ZERO);
                    } catch (RuntimeException e) {
                        laterAwait.set(e);
                    }
                    finallyRan.set(true);
                }
            });
            BoundedWait.yielding("the victim started", started::get);
            victim.abort();
            victim.abort();
            assertThrows(ClosedException.class, victim::await);
            assertTrue(victim.isDone());
            BoundedWait.yielding("the victim's finally ran", finallyRan::get);
            return null;
        });
        assertInstanceOf(ClosedException.class, seenByTask.get());
        assertInstanceOf(ClosedException.class, laterAwait.get());
    }

    /**
     * A handle's await is a join: once it reports that the task was aborted, the task has stopped — its
     * finally blocks ran — as in commonware, where the aborted future is dropped before the handle resolves.
     */
    @Test
    void abortedHandleResolvesOnlyAfterTheTasksFinallyBlocks() {
        AtomicBoolean finallyRan = new AtomicBoolean();
        AtomicBoolean started = new AtomicBoolean();
        runner().start(ctx -> {
            Handle<Void> victim = ctx.child("victim").spawn(c -> {
                started.set(true);
                try {
                    c.sleep(FOREVER);
                } finally {
                    finallyRan.set(true);
                }
                return null;
            });
            BoundedWait.yielding("the victim started", started::get);
            victim.abort();
            assertThrows(ClosedException.class, victim::await);
            assertTrue(finallyRan.get(), "the handle resolved while the aborted task had not unwound yet");
            return null;
        });
    }

    @Test
    void abortingAFinishedTaskChangesNothing() {
        runner().start(ctx -> {
            Handle<Integer> done = ctx.child("done").spawn(c -> 3);
            assertEquals(3, done.await());
            done.abort();
            assertEquals(3, done.await());
            return null;
        });
    }

    @Test
    void aParentFinishingAbortsItsPendingChild() {
        AtomicInteger started = new AtomicInteger();
        AtomicInteger finished = new AtomicInteger();
        AtomicReference<Handle<String>> child = new AtomicReference<>();
        runner().start(ctx -> {
            Handle<String> parent = ctx.child("parent").spawn(pc -> {
                child.set(sleeper(pc.child("kid"), started, finished));
                BoundedWait.yielding("the child started", () -> started.get() == 1);
                return "parent done";
            });
            assertEquals("parent done", parent.await());
            assertThrows(ClosedException.class, child.get()::await);
            BoundedWait.yielding("the child's finally ran", () -> finished.get() == 1);
            return null;
        });
    }

    /** A 3x2 tree under one task: aborting it aborts all 9 descendants, spawned from contexts taken first. */
    @Test
    void abortCascadesThroughATree() {
        AtomicInteger started = new AtomicInteger();
        AtomicInteger finished = new AtomicInteger();
        List<Handle<String>> handles = new CopyOnWriteArrayList<>();
        runner().start(ctx -> {
            Handle<String> top = ctx.child("top").spawn(tc -> {
                // Every child context is taken before any task is spawned from it.
                List<Context> kids = List.of(tc.child("k0"), tc.child("k1"), tc.child("k2"));
                for (Context kid : kids) {
                    handles.add(kid.spawn(kc -> {
                        List<Context> grandkids = List.of(kc.child("g0"), kc.child("g1"));
                        started.incrementAndGet();
                        try {
                            for (Context grandkid : grandkids) {
                                handles.add(sleeper(grandkid, started, finished));
                            }
                            kc.sleep(FOREVER);
                            return "woke";
                        } finally {
                            finished.incrementAndGet();
                        }
                    }));
                }
                tc.sleep(FOREVER);
                return "woke";
            });
            BoundedWait.yielding("all nine descendants started", () -> started.get() == 9);
            assertEquals(9, handles.size());
            top.abort();
            assertThrows(ClosedException.class, top::await);
            for (Handle<String> handle : handles) {
                assertThrows(ClosedException.class, handle::await);
            }
            BoundedWait.yielding("every finally ran", () -> finished.get() == 9);
            return null;
        });
    }

    @Test
    void aSiblingSurvivesAnothersCompletionAndAbort() {
        AtomicInteger started = new AtomicInteger();
        AtomicInteger finished = new AtomicInteger();
        String value = runner().start(ctx -> {
            Handle<String> quick = ctx.child("quick").spawn(c -> "quick");
            Handle<String> aborted = sleeper(ctx.child("aborted"), started, finished);
            Handle<String> survivor = ctx.child("survivor").spawn(c -> {
                started.incrementAndGet();
                c.sleep(Duration.ofMillis(5));
                return "survived";
            });
            BoundedWait.yielding("both started", () -> started.get() == 2);
            assertEquals("quick", quick.await());
            aborted.abort();
            assertThrows(ClosedException.class, aborted::await);
            Handle<Void> ticker = ticker(ctx, Duration.ofMillis(1));
            String result = survivor.await();
            ticker.abort();
            return result;
        });
        assertEquals("survived", value);
    }

    /** A task spawned at the end of a chain of child contexts is aborted with the task above the chain. */
    @Test
    void tasksAtTheEndOfChildChainsAreSupervised() {
        AtomicInteger started = new AtomicInteger();
        AtomicInteger finished = new AtomicInteger();
        AtomicReference<Handle<String>> deep = new AtomicReference<>();
        runner().start(ctx -> {
            Handle<String> parent = ctx.child("p").spawn(pc -> {
                Context chain = pc.child("a").child("b").child("c").child("d");
                assertEquals("p.a.b.c.d", chain.label());
                deep.set(sleeper(chain, started, finished));
                BoundedWait.yielding("deep task started", () -> started.get() == 1);
                return "p";
            });
            assertEquals("p", parent.await());
            assertThrows(ClosedException.class, deep.get()::await);
            BoundedWait.yielding("deep finally ran", () -> finished.get() == 1);
            return null;
        });
    }

    /**
     * In a sparse chain (nodes without tasks between tasks), a task spawned from a context finishing aborts the
     * tasks spawned from child contexts taken from that context earlier, and only those.
     */
    @Test
    void aTaskFinishingAbortsTasksBelowItsSpawningContextOnly() {
        AtomicInteger started = new AtomicInteger();
        AtomicInteger finished = new AtomicInteger();
        String value = runner().start(ctx -> {
            Context a = ctx.child("a");
            Context below = a.child("b").child("c");
            a.child("unused");
            Context other = ctx.child("other").child("x");
            Handle<String> belowTask = sleeper(below, started, finished);
            Handle<String> otherTask = other.spawn(c -> {
                started.incrementAndGet();
                c.sleep(Duration.ofMillis(3));
                return "other";
            });
            BoundedWait.yielding("both started", () -> started.get() == 2);
            assertEquals("a", a.spawn(c -> "a").await());
            assertThrows(ClosedException.class, belowTask::await);
            BoundedWait.yielding("below finally ran", () -> finished.get() == 1);
            assertFalse(otherTask.isDone(), "a task outside the finished task's context survives");
            Handle<Void> ticker = ticker(ctx, Duration.ofMillis(1));
            String result = otherTask.await();
            ticker.abort();
            return result;
        });
        assertEquals("other", value);
    }

    @Test
    void spawningUnderAnAbortedNodeFailsWithoutRunning() {
        AtomicBoolean ran = new AtomicBoolean();
        AtomicReference<Context> saved = new AtomicReference<>();
        runner().start(ctx -> {
            Handle<Void> parent = ctx.child("parent").spawn(pc -> {
                saved.set(pc.child("later"));
                pc.sleep(FOREVER);
                return null;
            });
            BoundedWait.yielding("the parent saved a context", () -> saved.get() != null);
            parent.abort();
            assertThrows(ClosedException.class, parent::await);
            Handle<String> late = saved.get().spawn(c -> {
                ran.set(true);
                return "ran";
            });
            assertThrows(ClosedException.class, late::await);
            // Also a child context taken from the aborted one.
            Handle<String> later = saved.get().child("deeper").spawn(c -> {
                ran.set(true);
                return "ran";
            });
            assertThrows(ClosedException.class, later::await);
            return null;
        });
        assertFalse(ran.get(), "a task under an aborted node never runs");
    }

    @Test
    void aTasksExceptionFailsItsHandleWithExitedException() {
        RuntimeException boom = new IllegalArgumentException("boom");
        IOException checked = new IOException("io");
        runner().start(ctx -> {
            ExitedException unchecked = assertThrows(ExitedException.class,
                    () -> ctx.child("fails").spawn(c -> {
                        throw boom;
                    }).await());
            assertSame(boom, unchecked.getCause());
            ExitedException wrapped = assertThrows(ExitedException.class,
                    () -> ctx.child("checked").spawn(c -> {
                        throw checked;
                    }).await());
            assertSame(checked, wrapped.getCause());
            return null;
        });
    }

    @Test
    void aFailingTaskAbortsItsChildren() {
        AtomicInteger started = new AtomicInteger();
        AtomicInteger finished = new AtomicInteger();
        AtomicReference<Handle<String>> child = new AtomicReference<>();
        runner().start(ctx -> {
            Handle<Void> failing = ctx.child("failing").spawn(fc -> {
                child.set(sleeper(fc.child("kid"), started, finished));
                BoundedWait.yielding("kid started", () -> started.get() == 1);
                throw new IllegalStateException("parent failed");
            });
            assertThrows(ExitedException.class, failing::await);
            assertThrows(ClosedException.class, child.get()::await);
            BoundedWait.yielding("kid's finally ran", () -> finished.get() == 1);
            return null;
        });
    }

    @Test
    void theRootFinishingWhileAChildLoopsForeverReturns() {
        AtomicInteger iterations = new AtomicInteger();
        AtomicBoolean finallyRan = new AtomicBoolean();
        String value = runner().start(ctx -> {
            ctx.child("forever").spawn(c -> {
                try {
                    while (true) {
                        c.sleep(Duration.ofMillis(1));
                        iterations.incrementAndGet();
                    }
                } finally {
                    finallyRan.set(true);
                }
            });
            Handle<Void> ticker = ticker(ctx, Duration.ofMillis(1));
            BoundedWait.yielding("the child looped", () -> iterations.get() >= 3);
            ticker.abort();
            return "root";
        });
        assertEquals("root", value);
        assertTrue(finallyRan.get(), "start returns after the aborted child unwound");
    }

    // ---- stop ----

    @Test
    void stoppedResolvesWithTheStopCode() {
        runner().start(ctx -> {
            AtomicBoolean holding = new AtomicBoolean();
            Handle<Integer> waiter = ctx.child("waiter").spawn(c -> {
                try (Signal signal = c.stopped()) {
                    assertNull(signal.poll());
                    holding.set(true);
                    return signal.await();
                }
            });
            BoundedWait.yielding("the waiter holds its signal", holding::get);
            ctx.stop(7, null);
            assertEquals(7, waiter.await());
            try (Signal late = ctx.stopped()) {
                assertEquals(7, late.poll());
                assertEquals(7, late.await());
            }
            return null;
        });
    }

    @Test
    void theFirstStopCodeWins() {
        runner().start(ctx -> {
            Signal held = ctx.stopped();
            Handle<Void> first = ctx.child("first").spawn(c -> {
                c.stop(5, null);
                return null;
            });
            BoundedWait.yielding("the first stop was signalled", () -> held.poll() != null);
            assertEquals(5, held.poll());
            held.close();
            first.await();
            // Every holder gone: a later stop returns at once and does not change the code.
            ctx.stop(9, null);
            try (Signal signal = ctx.stopped()) {
                assertEquals(5, signal.await());
            }
            return null;
        });
    }

    @Test
    void stopWaitsForEveryHolderToClose() {
        List<Integer> closed = new CopyOnWriteArrayList<>();
        List<Integer> codes = new CopyOnWriteArrayList<>();
        runner().start(ctx -> {
            AtomicInteger holding = new AtomicInteger();
            for (int i = 1; i <= 3; i++) {
                int holder = i;
                ctx.child("holder" + i).spawn(c -> {
                    try (Signal signal = c.stopped()) {
                        holding.incrementAndGet();
                        codes.add(signal.await());
                        // Hold on for a while after the stop was signalled.
                        c.sleep(Duration.ofMillis(10L * holder));
                        closed.add(holder);
                    }
                    return null;
                });
            }
            BoundedWait.yielding("three holders", () -> holding.get() == 3);
            Handle<Void> ticker = ticker(ctx, Duration.ofMillis(1));
            ctx.stop(3, null);
            assertEquals(List.of(1, 2, 3), List.copyOf(closed), "stop returned before every holder closed");
            ticker.abort();
            return null;
        });
        assertEquals(List.of(3, 3, 3), codes);
    }

    @Test
    void closingASignalTwiceReleasesOneHold() {
        runner().start(ctx -> {
            Signal twice = ctx.stopped();
            Signal other = ctx.stopped();
            twice.close();
            twice.close();
            Handle<Void> ticker = ticker(ctx, Duration.ofMillis(1));
            // The other holder still holds the stop.
            assertThrows(TimeoutException.class, () -> ctx.stop(1, Duration.ofMillis(5)));
            other.close();
            ctx.stop(1, Duration.ofMillis(5));
            ticker.abort();
            return null;
        });
    }

    @Test
    void stopWithATimeoutAndAHolderThatNeverClosesTimesOut() {
        runner().start(ctx -> {
            Signal stubborn = ctx.stopped();
            Handle<Void> ticker = ticker(ctx, Duration.ofMillis(1));
            TimeoutException timedOut = assertThrows(TimeoutException.class,
                    () -> ctx.stop(4, Duration.ofMillis(20)));
            assertTrue(timedOut.getMessage().contains("stop(4)"), timedOut.getMessage());
            assertEquals(4, stubborn.poll(), "the stop was still signalled");
            stubborn.close();
            // With the holder gone, stop returns.
            ctx.stop(4, Duration.ofMillis(20));
            ticker.abort();
            return null;
        });
    }

    // ---- timeout ----

    @Test
    void timeoutReturnsWhatAReadyBodyReturns() {
        runner().start(ctx -> {
            assertEquals(5, ctx.timeout(Duration.ofSeconds(1), () -> 5));
            // Even a zero timeout lets a body that never waits finish.
            assertEquals(6, ctx.timeout(Duration.ZERO, () -> 6));
            Handle<Void> ticker = ticker(ctx, Duration.ofMillis(1));
            assertEquals("slept", ctx.timeout(Duration.ofSeconds(1), () -> {
                ctx.sleep(Duration.ofMillis(5));
                return "slept";
            }));
            ticker.abort();
            assertThrows(IllegalArgumentException.class, () -> ctx.timeout(Duration.ofMillis(-1), () -> 1));
            return null;
        });
    }

    @Test
    void aBodyWaitingPastTheDeadlineTimesOut() {
        AtomicBoolean finallyRan = new AtomicBoolean();
        runner().start(ctx -> {
            Handle<Void> ticker = ticker(ctx, Duration.ofMillis(1));
            Instant before = ctx.now();
            TimeoutException timedOut = assertThrows(TimeoutException.class,
                    () -> ctx.timeout(Duration.ofMillis(10), () -> {
                        try {
                            ctx.sleep(Duration.ofHours(1));
                            return "slept";
                        } finally {
                            finallyRan.set(true);
                        }
                    }));
            assertTrue(timedOut.getMessage().contains("PT0.01S"), timedOut.getMessage());
            Duration waited = Duration.between(before, ctx.now());
            assertTrue(waited.compareTo(Duration.ofMillis(10)) >= 0 && waited.compareTo(Duration.ofHours(1)) < 0,
                    "timed out after " + waited);
            // The scope is gone: later waits are not affected by it.
            ctx.sleep(Duration.ofMillis(20));
            ticker.abort();
            // Waiting with a zero timeout times out at once.
            assertThrows(TimeoutException.class, () -> ctx.timeout(Duration.ZERO, () -> {
                ctx.sleep(FOREVER);
                return null;
            }));
            return null;
        });
        assertTrue(finallyRan.get());
    }

    @Test
    void nestedTimeoutsEachApply() {
        runner().start(ctx -> {
            Handle<Void> ticker = ticker(ctx, Duration.ofMillis(1));
            // The inner, earlier deadline fires first; the body recovers and the outer returns.
            String recovered = ctx.timeout(Duration.ofMillis(50), () -> {
                try {
                    ctx.timeout(Duration.ofMillis(5), () -> {
                        ctx.sleep(FOREVER);
                        return null;
                    });
                    return "inner did not time out";
                } catch (TimeoutException inner) {
                    assertTrue(inner.getMessage().contains("PT0.005S"), inner.getMessage());
                    return "recovered";
                }
            });
            assertEquals("recovered", recovered);
            // The outer, earlier deadline fires through an inner, later one.
            TimeoutException outer = assertThrows(TimeoutException.class,
                    () -> ctx.timeout(Duration.ofMillis(5), () -> ctx.timeout(Duration.ofHours(1), () -> {
                        ctx.sleep(FOREVER);
                        return null;
                    })));
            assertTrue(outer.getMessage().contains("PT0.005S"), outer.getMessage());
            ticker.abort();
            return null;
        });
    }

    // ---- clock ----

    @Test
    void sleepAndSleepUntilFollowTheClock() {
        runner().start(ctx -> {
            Instant start = ctx.now();
            kernel.advance(Duration.ofSeconds(5).toNanos());
            assertEquals(start.plusSeconds(5), ctx.now());
            // Let the worker service once so its cached clock catches up (see sleepLastsAtLeastItsDuration...).
            Thread.yield();

            Handle<Void> ticker = ticker(ctx, Duration.ofMillis(1));
            Instant before = ctx.now();
            ctx.sleep(Duration.ofMillis(7));
            assertTrue(Duration.between(before, ctx.now()).compareTo(Duration.ofMillis(7)) >= 0);

            Instant deadline = ctx.now().plusMillis(4);
            ctx.sleepUntil(deadline);
            assertFalse(ctx.now().isBefore(deadline));

            // Past deadlines return at once, far ones do not overflow.
            ctx.sleepUntil(Instant.EPOCH);
            ctx.sleepUntil(Instant.MIN);
            ctx.sleep(Duration.ZERO);
            assertThrows(TimeoutException.class, () -> ctx.timeout(Duration.ofMillis(3), () -> {
                ctx.sleepUntil(Instant.MAX);
                return null;
            }));
            assertThrows(TimeoutException.class, () -> ctx.timeout(Duration.ofMillis(3), () -> {
                ctx.sleep(Duration.ofSeconds(Long.MAX_VALUE));
                return null;
            }));
            assertThrows(IllegalArgumentException.class, () -> ctx.sleep(Duration.ofMillis(-1)));
            assertThrows(IllegalArgumentException.class, () -> ctx.sleeper(Duration.ofNanos(-1)));
            ticker.abort();
            return null;
        });
    }

    /**
     * {@code Clock.sleep}: "parks the calling fiber for at least duration", and {@code timeout} fires only after
     * its duration — both as measured by {@code now()}, also when time passed while the fiber ran.
     */
    @Test
    void sleepLastsAtLeastItsDurationAfterTimePassedWhileTheFiberRan() {
        runner().start(ctx -> {
            // Time passes while the fiber runs (a long computation); the worker has not serviced since.
            kernel.advance(Duration.ofSeconds(1).toNanos());
            Handle<Void> ticker = ticker(ctx, Duration.ofMillis(1));
            Instant before = ctx.now();
            ctx.sleep(Duration.ofMillis(7));
            Duration slept = Duration.between(before, ctx.now());
            assertTrue(slept.compareTo(Duration.ofMillis(7)) >= 0, "a 7 ms sleep lasted " + slept);

            kernel.advance(Duration.ofSeconds(1).toNanos());
            Instant started = ctx.now();
            assertThrows(TimeoutException.class, () -> ctx.timeout(Duration.ofMillis(10), () -> {
                ctx.sleep(FOREVER);
                return null;
            }));
            Duration waited = Duration.between(started, ctx.now());
            assertTrue(waited.compareTo(Duration.ofMillis(10)) >= 0, "a 10 ms timeout fired after " + waited);
            ticker.abort();
            return null;
        });
    }

    /**
     * A timer that expired while fibers ran is fired by the next service turn; the fiber it wakes must run
     * without the worker first blocking in the kernel for some other event (in runtime-uring that wait has no
     * bound when no other timer is pending). The scripted ring caps every blocking wait at 50 ms of real
     * time, so each lost wake-up costs 50 ms here.
     */
    @Test
    void aTimerThatExpiredWhileFibersRanWakesItsFiberPromptly() {
        runner().start(ctx -> {
            ScriptedKernel.ScriptedRing ring = (ScriptedKernel.ScriptedRing) Worker.current().ring();
            int cappedBefore = ring.cappedWaits.get();
            long total = 0;
            for (int i = 0; i < 10; i++) {
                dev.lockstep.Operation<Void> sleep = ctx.sleeper(Duration.ofMillis(1));
                // The deadline passes while this fiber runs; nothing wakes the ring (as with real time).
                kernel.advanceSilently(Duration.ofMillis(2).toNanos());
                long begin = System.nanoTime();
                sleep.await();
                total += System.nanoTime() - begin;
            }
            assertEquals(cappedBefore, ring.cappedWaits.get(), "the worker blocked in the kernel with a runnable "
                    + "fiber; ten expired sleeps took " + TimeUnit.NANOSECONDS.toMillis(total) + " ms of real time");
            return null;
        });
    }

    @ParameterizedTest(name = "workers: {0}")
    @ValueSource(ints = {1, 2})
    void tasksSpawnOnTheirWorkerAndAbortAcrossWorkers(int workers) {
        AtomicInteger started = new AtomicInteger();
        AtomicInteger finished = new AtomicInteger();
        List<Integer> homes = new ArrayList<>();
        new ThreadedRunner(kernel, workers, 4, null, "supervision").start(ctx -> {
            assertEquals(workers, ctx.workers());
            Handle<Void> parent = ctx.child("parent").spawnOn(workers - 1, pc -> {
                synchronized (homes) {
                    homes.add(Worker.current().index());
                }
                // Spawning without placement stays on the current worker.
                pc.child("kid").spawn(kc -> {
                    synchronized (homes) {
                        homes.add(Worker.current().index());
                    }
                    started.incrementAndGet();
                    try {
                        kc.sleep(FOREVER);
                    } finally {
                        finished.incrementAndGet();
                    }
                    return null;
                });
                pc.sleep(FOREVER);
                return null;
            });
            BoundedWait.yielding("kid started", () -> started.get() == 1);
            parent.abort();
            assertThrows(ClosedException.class, parent::await);
            BoundedWait.yielding("kid's finally ran", () -> finished.get() == 1);
            return null;
        });
        assertEquals(List.of(workers - 1, workers - 1), homes);
    }
}
