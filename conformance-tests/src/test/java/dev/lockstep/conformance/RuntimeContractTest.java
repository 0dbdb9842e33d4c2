package dev.lockstep.conformance;

import static dev.lockstep.Turns.until;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Reentrant;
import dev.lockstep.ClosedException;
import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.ExitedException;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import dev.lockstep.Operation;
import dev.lockstep.Poll;
import dev.lockstep.ReadOptions;
import dev.lockstep.Signal;
import dev.lockstep.TimeoutException;
import dev.lockstep.Turns;
import dev.lockstep.Waker;
import dev.lockstep.WriteOptions;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The runtime contract: the cross-runtime cases of commonware-runtime's {@code lib.rs} (reference §5) that apply
 * to Lockstep's API, each named after its Rust test in camelCase, on every runtime configuration.
 *
 * <p>Not ported, because the API has no such feature: the metrics cases ({@code test_metrics*},
 * {@code test_register*}, {@code test_encode_single_eof}, {@code test_family_with_attributes}), strategies
 * ({@code test_strategy}, {@code test_nested_strategy_runs_inline}), buffer pools ({@code test_buffer_pooler}),
 * blocking and dedicated spawns ({@code test_spawn_blocking*}; {@code test_spawn_dedicated} is ported as
 * {@code spawnOn}), {@code Handle::ready} in a futures pool ({@code test_handle_can_use_futures_pool}), and
 * the non-{@code catch_panics} variants of the panic cases: a Lockstep task's exception is always caught into
 * its handle as {@link ExitedException} (only the root's passes out of {@code start}).
 */
class RuntimeContractTest {
    private static final Duration FOREVER = Duration.ofDays(365);

    /** A task that sleeps until it is aborted. */
    private static <T> T sleepForever(Context ctx) {
        while (true) {
            ctx.sleep(FOREVER);
        }
    }

    // ------------------------------------------------------------------------------------------- options

    /** {@code test_read_options_compose}: the flag algebra (no runtime involved). */
    @Group(ReadmeGroup.RUNNER)
    @Test
    void testReadOptionsCompose() {
        assertEquals(ReadOptions.DONT_CACHE, ReadOptions.NONE.with(ReadOptions.DONT_CACHE));
        assertEquals(ReadOptions.DONT_CACHE, ReadOptions.DONT_CACHE.with(ReadOptions.NONE));
        assertEquals(ReadOptions.NONE, ReadOptions.NONE.with(ReadOptions.NONE));
        assertFalse(ReadOptions.NONE.dontCache());
        assertTrue(ReadOptions.DONT_CACHE.dontCache());
    }

    /** {@code test_write_options_compose}: union, difference, and the flags each sets. */
    @Group(ReadmeGroup.RUNNER)
    @Test
    void testWriteOptionsCompose() {
        WriteOptions both = WriteOptions.SYNC.with(WriteOptions.DONT_CACHE);
        assertTrue(both.sync());
        assertTrue(both.dontCache());
        assertEquals(WriteOptions.DONT_CACHE, both.without(WriteOptions.SYNC));
        assertEquals(WriteOptions.SYNC, both.without(WriteOptions.DONT_CACHE));
        assertEquals(WriteOptions.NONE, both.without(both));
        assertEquals(both, WriteOptions.DONT_CACHE.with(WriteOptions.SYNC));
        assertEquals(WriteOptions.SYNC, WriteOptions.SYNC.with(WriteOptions.NONE));
    }

    // -------------------------------------------------------------------------------------------- runner

    /** {@code test_error_future}: what the root returns, failure value included, comes out of start as is. */
    @Group(ReadmeGroup.RUNNER)
    @Conformance
    void testErrorFuture(Runtimes rt) {
        IOException value = new IOException("an error value");
        assertSame(value, rt.runner().start(ctx -> value));
    }

    /** A checked exception thrown by the root is wrapped in ExitedException, with it as the cause. */
    @Group(ReadmeGroup.RUNNER)
    @Conformance
    void testRootCheckedExceptionIsWrapped(Runtimes rt) {
        IOException thrown = new IOException("checked");
        ExitedException exited = assertThrows(ExitedException.class, () -> rt.runner().start(ctx -> {
            throw thrown;
        }));
        assertSame(thrown, exited.getCause());
    }

    /** A runner is single use. */
    @Group(ReadmeGroup.RUNNER)
    @Conformance
    void testRunnerIsSingleUse(Runtimes rt) {
        var runner = rt.runner();
        assertEquals(1, (int) runner.start(ctx -> 1));
        assertThrows(ClosedException.class, () -> runner.start(ctx -> 2));
    }

    // --------------------------------------------------------------------------------------------- clock

    /** {@code test_clock_sleep}: the clock advances by at least the slept duration. */
    @Group(ReadmeGroup.CLOCK)
    @Conformance
    void testClockSleep(Runtimes rt) {
        Duration slept = rt.runner().start(ctx -> {
            Instant start = ctx.now();
            ctx.sleep(Duration.ofMillis(10));
            return Duration.between(start, ctx.now());
        });
        assertTrue(slept.compareTo(Duration.ofMillis(10)) >= 0, "slept " + slept);
    }

    /** {@code test_clock_sleep_until}: sleeping until now + 100 ms returns at or after that time. */
    @Group(ReadmeGroup.CLOCK)
    @Conformance
    void testClockSleepUntil(Runtimes rt) {
        rt.runner().start(ctx -> {
            Instant deadline = ctx.now().plusMillis(100);
            ctx.sleepUntil(deadline);
            assertFalse(ctx.now().isBefore(deadline), "woke at " + ctx.now() + " before " + deadline);
            // A deadline already past returns at once, however far past.
            ctx.sleepUntil(deadline.minusSeconds(1));
            ctx.sleepUntil(Instant.EPOCH);
            ctx.sleepUntil(Instant.MIN);
            return null;
        });
    }

    /**
     * {@code test_clock_sleep_until_far_future}: sleeping until the end of time does not overflow; an enclosing
     * 1 ms timeout fires. Sleeps of the longest duration do not overflow either.
     */
    @Group(ReadmeGroup.CLOCK)
    @Conformance
    void testClockSleepUntilFarFuture(Runtimes rt) {
        rt.runner().start(ctx -> {
            assertThrows(TimeoutException.class, () -> ctx.timeout(Duration.ofMillis(1), () -> {
                ctx.sleepUntil(Instant.MAX);
                return null;
            }));
            assertThrows(TimeoutException.class, () -> ctx.timeout(Duration.ofMillis(1), () -> {
                ctx.sleep(Duration.ofSeconds(Long.MAX_VALUE, 999_999_999));
                return null;
            }));
            Operation<Void> far = ctx.sleeper(Duration.ofSeconds(Long.MAX_VALUE));
            assertFalse(far.poll(Waker.noop()).isReady());
            far.close();
            return null;
        });
    }

    /**
     * {@code test_clock_timeout}: a ready body returns its value; a body that waits forever times out; a short
     * sleep inside a long timeout finishes (the Rust case uses 50 ms inside 100 ms; 1 ms inside 10 s pins the
     * same behaviour without depending on how busy the machine is).
     */
    @Group(ReadmeGroup.CLOCK)
    @Conformance
    void testClockTimeout(Runtimes rt) {
        rt.runner().start(ctx -> {
            assertEquals("ready", ctx.timeout(Duration.ofMillis(100), () -> "ready"));
            assertThrows(TimeoutException.class, () -> ctx.timeout(Duration.ofMillis(100), () -> sleepForever(ctx)));
            assertEquals("slept", ctx.timeout(Duration.ofSeconds(10), () -> {
                ctx.sleep(Duration.ofMillis(1));
                return "slept";
            }));
            // A zero timeout lets a body that does not wait finish, and fails one that does.
            assertEquals("instant", ctx.timeout(Duration.ZERO, () -> "instant"));
            assertThrows(TimeoutException.class, () -> ctx.timeout(Duration.ZERO, () -> {
                ctx.sleep(Duration.ofMillis(1));
                return null;
            }));
            // Nested timeouts each apply: the earlier fires first, the outer goes on.
            assertEquals("outer", ctx.timeout(Duration.ofSeconds(10), () -> {
                assertThrows(TimeoutException.class, () -> ctx.timeout(Duration.ofMillis(5), () -> sleepForever(ctx)));
                return "outer";
            }));
            // A checked exception of the body is wrapped; an unchecked one passes as is.
            assertInstanceOf(IOException.class, assertThrows(ExitedException.class,
                    () -> ctx.timeout(Duration.ofSeconds(1), () -> {
                        throw new IOException("checked");
                    })).getCause());
            IllegalStateException unchecked = new IllegalStateException("unchecked");
            assertSame(unchecked, assertThrows(IllegalStateException.class,
                    () -> ctx.timeout(Duration.ofSeconds(1), () -> {
                        throw unchecked;
                    })));
            return null;
        });
    }

    /**
     * A timeout prefers a body that does not have to wait: the Rust {@code timeout} is a {@code select!} biased
     * to the future, so a future already ready wins over a sleep already due. An operation that is ready when
     * awaited under a zero timeout returns its value, and {@code stop} with a zero timeout and no holder
     * returns at once.
     */
    @Group(ReadmeGroup.CLOCK)
    @Conformance
    void testTimeoutPrefersAReadyBody(Runtimes rt) {
        rt.runner().start(ctx -> {
            Operation<Void> done = ctx.sleeper(Duration.ZERO);
            ctx.sleep(Duration.ofMillis(1));
            assertEquals("ready", ctx.timeout(Duration.ZERO, () -> {
                done.await();
                return "ready";
            }));
            ctx.stop(1, Duration.ZERO);
            return null;
        });
    }

    /** Negative durations are refused at the call. */
    @Group(ReadmeGroup.CLOCK)
    @Conformance
    void testClockRejectsNegativeDurations(Runtimes rt) {
        rt.runner().start(ctx -> {
            assertThrows(IllegalArgumentException.class, () -> ctx.sleep(Duration.ofMillis(-1)));
            assertThrows(IllegalArgumentException.class, () -> ctx.sleeper(Duration.ofMillis(-1)));
            assertThrows(IllegalArgumentException.class, () -> ctx.timeout(Duration.ofMillis(-1), () -> null));
            return null;
        });
    }

    // ---------------------------------------------------------------------------------------- supervision

    /** {@code test_root_finishes}: start returns when the root completes although a child loops forever. */
    @Group(ReadmeGroup.SUPERVISION)
    @Conformance
    void testRootFinishes(Runtimes rt) {
        AtomicInteger turns = new AtomicInteger();
        AtomicBoolean finallyRan = new AtomicBoolean();
        int value = rt.runner().start(ctx -> {
            ctx.child("looper").spawn(c -> {
                try {
                    while (true) {
                        turns.incrementAndGet();
                        c.sleep(Duration.ofMillis(1));
                    }
                } finally {
                    finallyRan.set(true);
                }
            });
            until(ctx, "the child looped", () -> turns.get() > 2);
            return 42;
        });
        assertEquals(42, value);
        assertTrue(finallyRan.get(), "the looping child was aborted and unwound");
    }

    /** {@code test_spawn}: a child completes with its value, and so does its parent. */
    @Group(ReadmeGroup.SUPERVISION)
    @Conformance
    void testSpawn(Runtimes rt) {
        rt.runner().start(ctx -> {
            Handle<Integer> parent = ctx.child("parent").spawn(p -> {
                Handle<Integer> child = p.child("child").spawn(c -> 7);
                return child.await() + 1;
            });
            assertEquals(8, parent.await());
            return null;
        });
    }

    /** Spawn consumes its context; labels are validated and dotted. */
    @Group(ReadmeGroup.SUPERVISION)
    @Conformance
    void testSpawnConsumesContextAndLabelsAreChecked(Runtimes rt) {
        rt.runner().start(ctx -> {
            Context once = ctx.child("once");
            once.spawn(c -> null).await();
            assertThrows(IllegalStateException.class, () -> once.spawn(c -> null));
            assertEquals("a.b", ctx.child("a").child("b").label());
            assertEquals("", ctx.label());
            for (String bad : List.of("", "1abc", "a-b", "a.b", "runtime", "runtime_x")) {
                assertThrows(IllegalArgumentException.class, () -> ctx.child(bad), bad);
            }
            return null;
        });
    }

    /** {@code test_spawn_abort}: an aborted task's handle fails with Closed and its finally blocks run. */
    @Group(ReadmeGroup.SUPERVISION)
    @Conformance
    void testSpawnAbort(Runtimes rt) {
        rt.runner().start(ctx -> {
            AtomicBoolean started = new AtomicBoolean();
            AtomicBoolean unwound = new AtomicBoolean();
            Handle<Void> handle = ctx.child("victim").spawn(c -> {
                started.set(true);
                try {
                    return sleepForever(c);
                } finally {
                    unwound.set(true);
                }
            });
            until(ctx, "the task started", started::get);
            handle.abort();
            assertThrows(ClosedException.class, handle::await);
            assertTrue(unwound.get());
            assertTrue(handle.isDone());
            handle.abort();
            return null;
        });
    }

    /** {@code test_spawn_after_abort}: spawning from a child of an aborted context fails with Closed, unrun. */
    @Group(ReadmeGroup.SUPERVISION)
    @Conformance
    void testSpawnAfterAbort(Runtimes rt) {
        rt.runner().start(ctx -> {
            AtomicReference<Context> later = new AtomicReference<>();
            Handle<Void> parent = ctx.child("parent").spawn(p -> {
                later.set(p.child("later"));
                return sleepForever(p);
            });
            until(ctx, "the parent took a child context", () -> later.get() != null);
            parent.abort();
            assertThrows(ClosedException.class, parent::await);
            AtomicBoolean ran = new AtomicBoolean();
            Handle<Integer> late = later.get().spawn(c -> {
                ran.set(true);
                return 1;
            });
            assertThrows(ClosedException.class, late::await);
            assertFalse(ran.get(), "a task spawned under an aborted node must not run");
            return null;
        });
    }

    /** {@code test_spawn_abort_on_parent_abort}: aborting a parent aborts its child. */
    @Group(ReadmeGroup.SUPERVISION)
    @Conformance
    void testSpawnAbortOnParentAbort(Runtimes rt) {
        rt.runner().start(ctx -> {
            AtomicReference<Handle<Void>> child = new AtomicReference<>();
            Handle<Void> parent = ctx.child("parent").spawn(p -> {
                child.set(p.child("child").spawn(RuntimeContractTest::sleepForever));
                return sleepForever(p);
            });
            until(ctx, "the child was spawned", () -> child.get() != null);
            parent.abort();
            assertThrows(ClosedException.class, parent::await);
            assertThrows(ClosedException.class, child.get()::await);
            return null;
        });
    }

    /** {@code test_spawn_abort_on_parent_completion}: a parent finishing normally aborts its pending child. */
    @Group(ReadmeGroup.SUPERVISION)
    @Conformance
    void testSpawnAbortOnParentCompletion(Runtimes rt) {
        rt.runner().start(ctx -> {
            AtomicReference<Handle<Void>> child = new AtomicReference<>();
            Handle<String> parent = ctx.child("parent").spawn(p -> {
                child.set(p.child("child").spawn(RuntimeContractTest::sleepForever));
                return "done";
            });
            assertEquals("done", parent.await());
            assertThrows(ClosedException.class, child.get()::await);
            return null;
        });
    }

    /**
     * {@code test_spawn_cascading_abort}: aborting the top of a 3x2 tree aborts all 9 descendants, including
     * tasks spawned from child contexts taken before any spawn.
     */
    @Group(ReadmeGroup.SUPERVISION)
    @Conformance
    void testSpawnCascadingAbort(Runtimes rt) {
        rt.runner().start(ctx -> {
            List<Handle<Void>> handles = Collections.synchronizedList(new ArrayList<>());
            AtomicInteger running = new AtomicInteger();
            AtomicInteger unwound = new AtomicInteger();
            Handle<Void> top = ctx.child("top").spawn(t -> {
                List<Context> children = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    children.add(t.child("child" + i));
                }
                for (Context child : children) {
                    handles.add(child.spawnOn(handles.size() % t.workers(), c -> {
                        List<Context> grandchildren = List.of(c.child("grandchild0"), c.child("grandchild1"));
                        for (Context grandchild : grandchildren) {
                            handles.add(grandchild.spawn(g -> {
                                running.incrementAndGet();
                                try {
                                    return sleepForever(g);
                                } finally {
                                    unwound.incrementAndGet();
                                }
                            }));
                        }
                        running.incrementAndGet();
                        try {
                            return sleepForever(c);
                        } finally {
                            unwound.incrementAndGet();
                        }
                    }));
                }
                return sleepForever(t);
            });
            until(ctx, "all 9 descendants run", () -> running.get() == 9);
            top.abort();
            assertThrows(ClosedException.class, top::await);
            assertEquals(9, handles.size());
            for (Handle<Void> handle : handles) {
                assertThrows(ClosedException.class, handle::await);
            }
            assertEquals(9, unwound.get());
            return null;
        });
    }

    /** {@code test_child_survives_sibling_completion}: a sibling finishing aborts nothing outside its node. */
    @Group(ReadmeGroup.SUPERVISION)
    @Conformance
    void testChildSurvivesSiblingCompletion(Runtimes rt) {
        rt.runner().start(ctx -> {
            AtomicBoolean siblingDone = new AtomicBoolean();
            Handle<Integer> survivor = ctx.child("survivor").spawn(c -> {
                until(c, "the sibling finished", siblingDone::get);
                c.sleep(Duration.ofMillis(1));
                return 7;
            });
            Handle<Integer> sibling = ctx.child("sibling").spawn(c -> 1);
            assertEquals(1, sibling.await());
            siblingDone.set(true);
            assertEquals(7, survivor.await());
            return null;
        });
    }

    /** {@code test_spawn_clone_chain}: a parent's abort reaches its child and grandchild through child contexts. */
    @Group(ReadmeGroup.SUPERVISION)
    @Conformance
    void testSpawnCloneChain(Runtimes rt) {
        rt.runner().start(ctx -> {
            AtomicReference<Handle<Void>> child = new AtomicReference<>();
            AtomicReference<Handle<Void>> grandchild = new AtomicReference<>();
            Handle<Void> parent = ctx.child("parent").spawn(p -> {
                child.set(p.child("child").spawn(c -> {
                    grandchild.set(c.child("grandchild").spawn(RuntimeContractTest::sleepForever));
                    return sleepForever(c);
                }));
                return sleepForever(p);
            });
            until(ctx, "the chain was spawned", () -> grandchild.get() != null);
            parent.abort();
            assertThrows(ClosedException.class, parent::await);
            assertThrows(ClosedException.class, child.get()::await);
            assertThrows(ClosedException.class, grandchild.get()::await);
            return null;
        });
    }

    /** {@code test_spawn_sparse_clone_chain}: the abort cascades through child contexts that have no task. */
    @Group(ReadmeGroup.SUPERVISION)
    @Conformance
    void testSpawnSparseCloneChain(Runtimes rt) {
        rt.runner().start(ctx -> {
            AtomicReference<Handle<Void>> leaf = new AtomicReference<>();
            Handle<Void> parent = ctx.child("parent").spawn(p -> {
                Context sparse = p.child("a").child("b").child("c");
                leaf.set(sparse.spawn(RuntimeContractTest::sleepForever));
                return sleepForever(p);
            });
            until(ctx, "the leaf was spawned", () -> leaf.get() != null);
            parent.abort();
            assertThrows(ClosedException.class, parent::await);
            assertThrows(ClosedException.class, leaf.get()::await);
            return null;
        });
    }

    /** {@code test_circular_reference_prevents_cleanup}: tasks waiting on each other in a cycle do not stop start. */
    @Group(ReadmeGroup.SUPERVISION)
    @Conformance
    void testCircularReferencePreventsCleanup(Runtimes rt) {
        AtomicInteger unwound = new AtomicInteger();
        rt.runner().start(ctx -> {
            AtomicReference<Handle<Void>> first = new AtomicReference<>();
            AtomicReference<Handle<Void>> second = new AtomicReference<>();
            AtomicBoolean ready = new AtomicBoolean();
            first.set(ctx.child("first").spawn(c -> {
                until(c, "both exist", ready::get);
                try {
                    return second.get().await();
                } finally {
                    unwound.incrementAndGet();
                }
            }));
            second.set(ctx.child("second").spawn(c -> {
                until(c, "both exist", ready::get);
                try {
                    return first.get().await();
                } finally {
                    unwound.incrementAndGet();
                }
            }));
            ready.set(true);
            ctx.sleep(Duration.ofMillis(5));
            return null;
        });
        assertEquals(2, unwound.get(), "the deadlocked tasks were aborted at teardown");
    }

    // ------------------------------------------------------------------------------------ panics, failures

    /** {@code test_panic_aborts_root}: the root's exception leaves start unchanged. */
    @Group(ReadmeGroup.FAILURES)
    @Conformance
    void testPanicAbortsRoot(Runtimes rt) {
        IllegalStateException blah = new IllegalStateException("blah");
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> rt.runner().start(ctx -> {
            ctx.child("bystander").spawn(RuntimeContractTest::sleepForever);
            throw blah;
        }));
        assertSame(blah, thrown);
    }

    /** {@code test_panic_aborts_spawn_caught}: a child's exception is its handle's ExitedException. */
    @Group(ReadmeGroup.FAILURES)
    @Conformance
    void testPanicAbortsSpawnCaught(Runtimes rt) {
        rt.runner().start(ctx -> {
            IllegalStateException boom = new IllegalStateException("boom");
            Handle<Void> handle = ctx.child("panics").spawn(c -> {
                throw boom;
            });
            ExitedException exited = assertThrows(ExitedException.class, handle::await);
            assertSame(boom, exited.getCause());
            Poll<Void> poll = handle.poll(null);
            assertTrue(poll.isReady());
            assertThrows(ExitedException.class, poll::get);
            return null;
        });
    }

    /** A failing task aborts what it spawned. */
    @Group(ReadmeGroup.FAILURES)
    @Conformance
    void testFailingTaskAbortsItsChildren(Runtimes rt) {
        rt.runner().start(ctx -> {
            AtomicReference<Handle<Void>> child = new AtomicReference<>();
            Handle<Void> parent = ctx.child("parent").spawn(p -> {
                child.set(p.child("child").spawn(RuntimeContractTest::sleepForever));
                p.sleep(Duration.ofMillis(1));
                throw new IOException("parent fails");
            });
            assertInstanceOf(IOException.class, assertThrows(ExitedException.class, parent::await).getCause());
            assertThrows(ClosedException.class, child.get()::await);
            return null;
        });
    }

    /** {@code test_multiple_panics_caught}: three failing children each report ExitedException; the root goes on. */
    @Group(ReadmeGroup.FAILURES)
    @Conformance
    void testMultiplePanicsCaught(Runtimes rt) {
        String result = rt.runner().start(ctx -> {
            List<Handle<Void>> handles = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                int id = i;
                handles.add(ctx.child("panic" + i).spawnOn(i % ctx.workers(), c -> {
                    c.sleep(Duration.ofMillis(id));
                    throw new IllegalStateException("boom " + id);
                }));
            }
            for (int i = 0; i < 3; i++) {
                ExitedException exited = assertThrows(ExitedException.class, handles.get(i)::await);
                assertEquals("boom " + i, exited.getCause().getMessage());
            }
            return "root survived";
        });
        assertEquals("root survived", result);
    }

    /** {@code test_multiple_panics}: children failing while the root itself fails: start throws the root's. */
    @Group(ReadmeGroup.FAILURES)
    @Conformance
    void testMultiplePanics(Runtimes rt) {
        IllegalStateException rootFailure = new IllegalStateException("boom");
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> rt.runner().start(ctx -> {
            for (int i = 0; i < 3; i++) {
                ctx.child("panic" + i).spawn(c -> {
                    throw new IllegalStateException("child");
                });
            }
            ctx.sleep(Duration.ofMillis(1));
            throw rootFailure;
        }));
        assertSame(rootFailure, thrown);
    }

    // ----------------------------------------------------------------------------------------- select, race

    /**
     * {@code test_select}: the first ready branch in order wins; a pending branch is skipped. {@link Race} is the
     * Java form of {@code select!} (biased).
     */
    @Group(ReadmeGroup.SELECT)
    @Conformance
    void testSelect(Runtimes rt) {
        rt.runner().start(ctx -> {
            Operation<Void> pending = ctx.sleeper(FOREVER);
            Operation<Void> ready = ctx.sleeper(Duration.ZERO);
            assertEquals(1, Race.first(pending, ready).index());
            Operation<Void> a = ctx.sleeper(Duration.ZERO);
            Operation<Void> b = ctx.sleeper(Duration.ZERO);
            ctx.sleep(Duration.ofMillis(1));
            assertEquals(0, Race.first(a, b).index(), "both ready: the first branch wins");
            assertTrue(b.poll(Waker.noop()).isReady(), "the unchosen ready branch keeps its result");
            pending.close();
            return null;
        });
    }

    /**
     * {@code test_select_loop}: a loop racing a receive against a sleep; the receive that loses a round is kept,
     * not dropped, so no message is lost and order is preserved. The messages travel over a loopback
     * connection (the API has no in-process channel).
     */
    @Group(ReadmeGroup.SELECT)
    @Conformance
    void testSelectLoop(Runtimes rt) {
        int messages = 20;
        List<Integer> received = rt.runner().start(ctx -> {
            Listener listener = ctx.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).await();
            Handle<Void> sender = ctx.child("sender").spawn(c -> {
                try (Connection connection = c.dial(listener.localAddress()).await()) {
                    for (int i = 0; i < messages; i++) {
                        connection.sink().send(ByteBuffer.allocate(4).putInt(i).array()).await();
                        c.sleep(Duration.ofMillis(i % 3));
                    }
                    // Keep the connection open until the receiver is done.
                    c.sleep(FOREVER);
                }
                return null;
            });
            List<Integer> got = new ArrayList<>();
            int ticks = 0;
            try (Connection connection = listener.accept().await()) {
                Operation<byte[]> recv = connection.stream().recv(4);
                while (got.size() < messages) {
                    Operation<Void> tick = ctx.sleeper(Duration.ofMillis(1));
                    Race.Winner<Object> winner = Race.first(recv, tick);
                    if (winner.index() == 0) {
                        got.add(ByteBuffer.wrap((byte[]) winner.poll().get()).getInt());
                        recv = connection.stream().recv(4);
                        tick.close();
                    } else {
                        ticks++;
                    }
                }
                recv.close();
            }
            sender.abort();
            listener.close();
            assertTrue(ticks >= 0);
            return got;
        });
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < messages; i++) {
            expected.add(i);
        }
        assertEquals(expected, received);
    }

    // ----------------------------------------------------------------------------------------- stop, stopped

    /**
     * {@code test_shutdown}: stopped() resolves with the stop code; stop waits for the holders; a signal taken
     * after stop resolves at once.
     */
    @Group(ReadmeGroup.STOP)
    @Conformance
    void testShutdown(Runtimes rt) {
        int kill = 9;
        rt.runner().start(ctx -> {
            AtomicBoolean holding = new AtomicBoolean();
            AtomicBoolean closing = new AtomicBoolean();
            Handle<Integer> holder = ctx.child("holder").spawn(c -> {
                Signal signal = c.stopped();
                try {
                    holding.set(true);
                    int code = signal.await();
                    c.sleep(Duration.ofMillis(1));
                    return code;
                } finally {
                    // Set before the close that stop waits for. Not the holder's handle: on another worker the
                    // task may still be returning when stop, woken by the close, returns.
                    closing.set(true);
                    signal.close();
                }
            });
            until(ctx, "the holder took its signal", holding::get);
            ctx.stop(kill, null);
            assertTrue(closing.get(), "stop returned only after the holder closed its signal");
            assertEquals(kill, holder.await());
            Handle<Integer> late = ctx.child("late").spawn(c -> {
                try (Signal signal = c.stopped()) {
                    assertEquals(kill, signal.poll());
                    return signal.await();
                }
            });
            assertEquals(kill, late.await());
            return null;
        });
    }

    /** {@code test_shutdown_multiple_signals}: stop returns only after three holders finished their cleanup. */
    @Group(ReadmeGroup.STOP)
    @Conformance
    void testShutdownMultipleSignals(Runtimes rt) {
        rt.runner().start(ctx -> {
            AtomicInteger held = new AtomicInteger();
            AtomicInteger cleaned = new AtomicInteger();
            for (int i = 1; i <= 3; i++) {
                int id = i;
                ctx.child("holder" + i).spawnOn(i % ctx.workers(), c -> {
                    try (Signal signal = c.stopped()) {
                        held.incrementAndGet();
                        signal.await();
                        c.sleep(Duration.ofMillis(10L * id));
                        cleaned.incrementAndGet();
                    }
                    return null;
                });
            }
            until(ctx, "three holders", () -> held.get() == 3);
            ctx.stop(1, null);
            assertEquals(3, cleaned.get());
            return null;
        });
    }

    /** {@code test_shutdown_timeout}: a holder that never closes makes stop with a timeout fail with Timeout. */
    @Group(ReadmeGroup.STOP)
    @Conformance
    void testShutdownTimeout(Runtimes rt) {
        rt.runner().start(ctx -> {
            AtomicBoolean holding = new AtomicBoolean();
            ctx.child("stubborn").spawn(c -> {
                Signal signal = c.stopped();
                holding.set(true);
                signal.await();
                return sleepForever(c);
            });
            until(ctx, "the holder took its signal", holding::get);
            assertThrows(TimeoutException.class, () -> ctx.stop(1, Duration.ofMillis(100)));
            return null;
        });
    }

    /**
     * {@code test_shutdown_multiple_stop_calls}: two concurrent stops (42, then 43) both wait for the holder and
     * both return; the first code wins; a stop after everything closed returns at once.
     */
    @Group(ReadmeGroup.STOP)
    @Conformance
    void testShutdownMultipleStopCalls(Runtimes rt) {
        rt.runner().start(ctx -> {
            Signal held = ctx.stopped();
            Handle<Void> first = ctx.child("first").spawn(c -> {
                c.stop(42, null);
                return null;
            });
            until(ctx, "the first stop signalled", () -> held.poll() != null);
            Handle<Void> second = ctx.child("second").spawn(c -> {
                c.stop(43, null);
                return null;
            });
            ctx.sleep(Duration.ofMillis(5));
            assertFalse(first.isDone(), "stop waits for the open signal");
            assertFalse(second.isDone(), "stop waits for the open signal");
            held.close();
            first.await();
            second.await();
            try (Signal after = ctx.stopped()) {
                assertEquals(42, after.await());
            }
            ctx.stop(44, null);
            assertEquals(42, held.poll());
            held.close();
            return null;
        });
    }

    /** {@code test_unfulfilled_shutdown}: the root may finish while a child waits on stopped(). */
    @Group(ReadmeGroup.STOP)
    @Conformance
    void testUnfulfilledShutdown(Runtimes rt) {
        AtomicBoolean reached = new AtomicBoolean();
        rt.runner().start(ctx -> {
            AtomicBoolean waiting = new AtomicBoolean();
            ctx.child("waiter").spawn(c -> {
                try (Signal signal = c.stopped()) {
                    waiting.set(true);
                    signal.await();
                    reached.set(true);
                }
                return null;
            });
            until(ctx, "the child waits", waiting::get);
            return null;
        });
        assertFalse(reached.get());
    }

    // ------------------------------------------------------------------------------------------- late waker

    /**
     * {@code test_late_waker}: waking a task's waker after its runtime is gone is harmless. The task's own waker
     * is captured by an operation of the test's, which the task awaits; it is woken after start returned, from
     * the test's thread and from another thread, and so is a copy a worker retained for a registration.
     */
    @Group(ReadmeGroup.LATE_WAKER)
    @Conformance
    void testLateWaker(Runtimes rt) {
        List<Waker> captured = Collections.synchronizedList(new ArrayList<>());
        // Only balance is checked here; where the callbacks run is the engine's white-box cases' to check.
        Reentrant retained = new Reentrant(() -> null);
        rt.runner().start(ctx -> {
            AtomicInteger polls = new AtomicInteger();
            Operation<String> capturing = new Operation<>() {
                @Override
                public Poll<String> poll(Waker waker) {
                    captured.add(waker);
                    if (polls.incrementAndGet() == 1) {
                        waker.wake();
                        return Poll.pending();
                    }
                    return Poll.ready("done");
                }

                @Override
                public String await() {
                    // How a user's own operation is awaited: the runtime's Awaiter, as dev.lockstep.sync does.
                    return java.util.ServiceLoader.load(dev.lockstep.spi.Awaiter.class).findFirst().orElseThrow()
                            .await(this);
                }

                @Override
                public void close() {
                }
            };
            assertEquals("done", capturing.await());
            Operation<Void> sleep = ctx.sleeper(FOREVER);
            assertFalse(sleep.poll(retained.waker()).isReady());
            return null;
        });
        assertFalse(captured.isEmpty());
        for (Waker waker : captured) {
            waker.wake();
            waker.wake();
        }
        Turns.startPlain(() -> captured.forEach(Waker::wake)).join();
        retained.assertBalanced();
    }
}
