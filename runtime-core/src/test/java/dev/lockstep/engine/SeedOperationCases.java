package dev.lockstep.engine;

import static dev.lockstep.Turns.drained;
import static dev.lockstep.Turns.onForeignThreadBlockingWorker;
import static dev.lockstep.Turns.onPlainThread;
import static dev.lockstep.Turns.pollOnForeignThread;
import static dev.lockstep.Turns.reschedule;
import static dev.lockstep.Turns.until;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Reentrant;
import dev.lockstep.Runner;
import dev.lockstep.Blob;
import dev.lockstep.ClosedException;
import dev.lockstep.Context;
import dev.lockstep.Operation;
import dev.lockstep.Poll;
import dev.lockstep.TimeoutException;
import dev.lockstep.Turns;
import dev.lockstep.Waker;
import dev.lockstep.engine.io.DurabilityPermit;
import dev.lockstep.engine.request.WaiterId;
import dev.lockstep.engine.worker.Mailbox;
import dev.lockstep.engine.worker.Worker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The tests of commonware-runtime's {@code Operation} (2026.10.0, Rust), each with the same
 * name in camelCase and the same assertions, on every runtime configuration with a ring of one entry (the
 * seed's {@code runner()}: one request in flight).
 *
 * <p>Translation rules, applied throughout (each case's comment says where one matters):
 * <ul>
 *   <li>{@code poll!(&mut op)} polls with the task's own waker; here {@code op.poll(Waker.noop())}, or a
 *       {@link Reentrant} when the test must later see the completion's wake.</li>
 *   <li>{@code reschedule().await} is {@link Turns#reschedule()}; {@code drained().await} is
 *       {@link Turns#drained}: the worker runs until {@link WhiteBoxRuntime#admitted()} is 0.</li>
 *   <li>{@code catch_unwind} of a waker panic is {@code assertThrows} of the exception the armed callback
 *       threw; its message is the seed's ({@code waker callback panic N}).</li>
 *   <li>{@code Arc::strong_count(&fd) == 1} is {@code fd.held() == 0}; {@code Arc::strong_count(&callbacks)
 *       == 1} is {@link Reentrant#assertBalanced()}.</li>
 *   <li>{@code thread::spawn(..).join()} inside a task blocks the worker: {@link Turns#pollOnForeignThread} and
 *       {@link Turns#onForeignThreadBlockingWorker} spin the fiber without yielding.</li>
 *   <li>One difference of model: the seed's {@code admitted()} ({@code driver.len()}) does not count a
 *       completed result nobody observed yet, Lockstep's {@link Worker#admitted()} does (the request keeps its
 *       fd until observed). Where the seed drains with such a result outstanding, the port waits for the
 *       completion's wake instead.</li>
 * </ul>
 *
 * <p>White-box: the cases register raw requests on the kernel SPI ({@link SocketPair}) and read the worker's
 * admitted requests, borrow, closing flag and durability permits. runtime-sim's {@code SimSeedOperationTest} and
 * runtime-uring's {@code UringSeedOperationTest} run them.
 */
public abstract class SeedOperationCases extends WhiteBoxCases {

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** A case's body on one socket pair: the task's context and the pair, which is closed after it. */
    @FunctionalInterface
    interface PairBody {
        void run(Context ctx, SocketPair pair) throws Exception;
    }

    /** Runs {@code body} as the root task of a runner with a ring of one entry, on a fresh {@link SocketPair}. */
    private void onSocketPair(WhiteBoxRuntime rt, PairBody body) {
        runner(rt, 1).start(ctx -> {
            try (SocketPair pair = rt.socketPair(ctx)) {
                body.run(ctx, pair);
            }
            return null;
        });
    }

    /** A one-byte receive on the pair's local end, polled once: pending, as the peer wrote nothing yet. */
    private static Operation<byte[]> pendingReceive(SocketPair pair) {
        Operation<byte[]> receive = pair.recv();
        assertFalse(receive.poll(Waker.noop()).isReady(), "a receive with nothing written by the peer is pending");
        return receive;
    }

    // ------------------------------------------------------------------------------------------ full ring

    /**
     * Seed: {@code test_start_sync_returns_while_ring_is_full}. In Rust {@code start_sync()} is a future that
     * must be Ready on its first poll without cloning or waking the poller's waker; in Java it is a call that
     * returns the handle, taking no waker at all. The Java form pins the same behaviour: the call returns at
     * once on the fiber while the only ring slot is held (a blocking call would hang the worker), the sync is
     * already admitted to the worker, and the fixture's waker is untouched.
     */
    @WhiteBoxCase
    void testStartSyncReturnsWhileRingIsFull(WhiteBoxRuntime rt) {
        Reentrant callbacks = new Reentrant(rt::criticalSection);
        runner(rt, 1).start(ctx -> {
            Blob blob = ctx.open("observer_sync", "file").await().blob();
            blob.writeAt(0, bytes("dirty")).await();
            try (SocketPair pair = rt.socketPair(ctx)) {
                Operation<byte[]> blocker = pendingReceive(pair);
                reschedule();

                // The only in-flight slot is occupied, but sync accepts ownership now.
                int before = rt.admitted();
                Operation<Void> handle = blob.startSync();
                assertEquals(before + 1, rt.admitted(), "the sync is the worker's as soon as startSync returns");
                assertEquals(0, callbacks.retainCalls());
                assertEquals(0, callbacks.wakes());

                blocker.close();
                assertNull(handle.await());
            }
            blob.close();
            return null;
        });
        callbacks.assertBalanced();
    }

    /** Seed: {@code test_queued_operation_completes_without_further_polls}. */
    @WhiteBoxCase
    void testQueuedOperationCompletesWithoutFurtherPolls(WhiteBoxRuntime rt) {
        Reentrant callbacks = new Reentrant(rt::criticalSection);
        onSocketPair(rt, (ctx, pair) -> {
            Operation<byte[]> blocker = pendingReceive(pair);
            reschedule();

            Operation<Void> queued = pair.send();
            Waker waker = callbacks.waker();
            assertFalse(queued.poll(waker).isReady());
            blocker.close();

            // Let a later request drive the worker. The queued operation receives no polls, and its
            // unconsumed result must not occupy the sole in-flight slot needed by this later request.
            assertNull(pair.send().await());
            assertEquals(1, callbacks.retainCalls());
            assertEquals(1, callbacks.wakes());
            Poll<Void> poll = queued.poll(waker);
            assertTrue(poll.isReady());
            assertNull(poll.get());
            assertEquals(1, callbacks.retainCalls());
        });
        callbacks.assertBalanced();
    }

    // ------------------------------------------------------------------------------------ deadlines, timers

    /** Seed: {@code test_queued_deadline_and_timer_progress_with_full_ring}. */
    @WhiteBoxCase
    void testQueuedDeadlineAndTimerProgressWithFullRing(WhiteBoxRuntime rt) {
        onSocketPair(rt, (ctx, pair) -> {
            Operation<byte[]> first = pendingReceive(pair);
            // The seed's deadline on the queued receive is a Clock.timeout around its await here.
            Operation<byte[]> waiting = pair.recv();
            assertThrows(TimeoutException.class, () -> ctx.timeout(Duration.ofMillis(10), waiting::await));

            // The untimed receive still occupies the only in-flight slot. Sleeper expiry must also
            // progress independently of that slot.
            ctx.sleep(Duration.ofMillis(1));
            first.close();
        });
    }

    // -------------------------------------------------------------------------------------------- closure

    /** Seed: {@code test_worker_closure_rejects_registration_and_polling}. */
    @WhiteBoxCase
    void testWorkerClosureRejectsRegistrationAndPolling(WhiteBoxRuntime rt) {
        Reentrant callbacks = new Reentrant(rt::criticalSection);
        runner(rt, 1).start(ctx -> {
            Blob blob = ctx.open("observer_closed", "file").await().blob();
            // Dirty the open so startSync submits a request to the closed worker.
            blob.writeAt(0, bytes("x")).await();
            try (SocketPair pair = rt.socketPair(ctx)) {
                Operation<byte[]> operation = pair.recv();
                Waker waker = callbacks.waker();

                rt.markClosing();
                Poll<byte[]> poll = operation.poll(waker);
                assertTrue(poll.isReady());
                assertThrows(ClosedException.class, poll::get);
                assertEquals(0, callbacks.retainCalls());

                // New operations and detached syncs must also reject closure.
                Operation<byte[]> rejected = pair.recv();
                Poll<byte[]> refused = rejected.poll(waker);
                assertTrue(refused.isReady());
                assertThrows(ClosedException.class, refused::get);
                Operation<Void> handle = blob.startSync();
                assertThrows(ClosedException.class, handle::await);
                assertEquals(0, rt.admitted());
            }
            blob.close();
            return null;
        });
        callbacks.assertBalanced();
    }

    /** Seed: {@code test_escaped_operation_observes_worker_closure}. */
    @WhiteBoxCase
    void testEscapedOperationObservesWorkerClosure(WhiteBoxRuntime rt) {
        AtomicReference<SocketPair> pair = new AtomicReference<>();
        // Return the handle without awaiting it, then poll it after cleanup.
        Runner runner = runnerLeavingOpen(rt, 1, "its receive and socket pair escape start");
        Operation<byte[]> operation = runner.start(ctx -> {
            pair.set(rt.socketPair(ctx));
            Operation<byte[]> op = pair.get().recv();
            assertFalse(op.poll(Waker.noop()).isReady());
            return op;
        });
        assertThrows(ClosedException.class, operation::await);
        assertEquals(0, pair.get().fd().held());
        pair.get().close();
    }

    /**
     * Seed: {@code test_foreign_gate_waiter_observes_origin_closure}. The seed holds the permit of a detached
     * {@code Shared}; here the permit of a freshly opened blob (the engine's {@code Shared}), reached through
     * {@link WhiteBoxRuntime#permit}. The sync is the blob's own {@code sync()}: the seed's {@code Request::Sync}.
     */
    @WhiteBoxCase
    void testForeignGateWaiterObservesOriginClosure(WhiteBoxRuntime rt) {
        AtomicReference<Thread> release = new AtomicReference<>();
        AtomicReference<Throwable> releaseFailure = new AtomicReference<>();
        AtomicReference<Blob> blob = new AtomicReference<>();
        Operation<Void> operation = runnerLeavingOpen(rt, 1, "its blob and sync escape start").start(ctx -> {
            blob.set(ctx.open("gate", "blob").await().blob());
            DurabilityPermit gate = rt.permit(blob.get());
            Mailbox mailbox = rt.worker().mailbox();
            CountDownLatch acquired = new CountDownLatch(1);
            release.set(Thread.ofPlatform().daemon().name("gate-holder").start(() -> {
                try {
                    while (!gate.tryAcquire()) {
                        Thread.onSpinWait();
                    }
                    acquired.countDown();
                    while (mailbox.isOpen()) {
                        Thread.sleep(1);
                    }
                    gate.release();
                } catch (Throwable t) {
                    releaseFailure.set(t);
                }
            }));
            // The holder needs nothing from the worker: spin without yielding.
            while (acquired.getCount() > 0) {
                Thread.onSpinWait();
            }

            Operation<Void> sync = blob.get().sync();
            assertFalse(sync.poll(Waker.noop()).isReady());
            assertFalse(pollOnForeignThread(sync, Waker.noop()).isReady());
            return sync;
        });
        try {
            release.get().join();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        assertNull(releaseFailure.get());
        assertThrows(ClosedException.class, operation::await);
        blob.get().close();
    }

    // ---------------------------------------------------------------------------------------- forwarding

    /**
     * Seed: {@code test_operation_can_move_between_threads}. For the completed case the seed drains the worker
     * with the result unobserved; Lockstep counts that result as admitted (see the class comment), so the port
     * waits for the completion's wake of the locally installed waker instead.
     */
    @WhiteBoxCase
    void testOperationCanMoveBetweenThreads(WhiteBoxRuntime rt) {
        boolean[][] states = {{false, false}, {true, false}, {true, true}};
        for (boolean[] state : states) {
            boolean inFlight = state[0];
            boolean completed = state[1];
            for (boolean returnToOwner : new boolean[] {false, true}) {
                Reentrant local = new Reentrant(rt::criticalSection);
                onSocketPair(rt, (ctx, pair) -> {
                    Operation<byte[]> operation = pair.recv();
                    assertFalse(operation.poll(local.waker()).isReady());
                    if (inFlight) {
                        reschedule();
                    }
                    if (completed) {
                        pair.writePeer(bytes("x"));
                        until(ctx, "the receive completed", () -> local.wakes() == 1);
                    }

                    assertFalse(pollOnForeignThread(operation, Waker.noop()).isReady());

                    if (!completed) {
                        pair.writePeer(bytes("x"));
                    }
                    byte[] buffer = returnToOwner ? operation.await() : onPlainThread(ctx, operation::await);
                    assertEquals(1, buffer.length, "receive failed after moving between threads");
                    assertArrayEquals(bytes("x"), buffer);
                });
                local.assertBalanced();
            }
        }
    }

    /** Seed: {@code test_local_drop_overtakes_forwarding}. */
    @WhiteBoxCase
    void testLocalDropOvertakesForwarding(WhiteBoxRuntime rt) {
        for (boolean inFlight : new boolean[] {false, true}) {
            onSocketPair(rt, (ctx, pair) -> {
                Operation<byte[]> operation = pendingReceive(pair);
                if (inFlight) {
                    reschedule();
                }
                WaiterId old = rt.key(operation);
                assertFalse(pollOnForeignThread(operation, Waker.noop()).isReady());

                // Local cancellation runs before the queued forwarding message. A new request can reuse a
                // queued operation's released slot.
                operation.close();
                Operation<Void> replacement = pair.send();
                if (!inFlight) {
                    WaiterId current = rt.key(replacement);
                    assertEquals(old.index(), current.index());
                    assertNotEquals(old.generation(), current.generation());
                }
                assertNull(replacement.await());
                drained(ctx, rt::admitted);
            });
        }
    }

    /**
     * Seed: {@code test_forwarded_observer_callbacks_and_shutdown}. After promotion the seed counts at least two
     * drops: the local observer's clone released by the owner, and the waker moved into the foreign thread,
     * dropped when that thread ends. Only the first is a stored copy with a Java form, so the port asserts at
     * least one release.
     */
    @WhiteBoxCase
    void testForwardedObserverCallbacksAndShutdown(WhiteBoxRuntime rt) {
        boolean[][] cases = {{false, false}, {true, false}, {true, true}};
        for (boolean[] kase : cases) {
            boolean promoted = kase[0];
            boolean completed = kase[1];
            Reentrant callbacks = new Reentrant(rt::criticalSection);
            AtomicReference<SocketPair> pair = new AtomicReference<>();
            Runner runner = runnerLeavingOpen(rt, 1, "its receive and socket pair escape start");
        Operation<byte[]> operation = runner.start(ctx -> {
                pair.set(rt.socketPair(ctx));
                Operation<byte[]> op = pair.get().recv();
                assertFalse(op.poll(callbacks.waker()).isReady());
                assertFalse(pollOnForeignThread(op, callbacks.waker()).isReady());
                if (promoted) {
                    reschedule();
                    assertTrue(callbacks.releases() >= 1, "promotion released the local observer");
                }
                if (completed) {
                    pair.get().writePeer(bytes("x"));
                    drained(ctx, rt::admitted);
                }
                return op;
            });

            // Once the owner processes the handoff, completion or closure wakes the receiver. Before that, the
            // queued sender can independently notify it when dropped.
            if (promoted) {
                assertTrue(callbacks.wakes() > 0);
            }
            if (completed) {
                byte[] buffer = operation.await();
                assertEquals(1, buffer.length, "forwarded completion lost during shutdown");
                assertArrayEquals(bytes("x"), buffer);
            } else {
                assertThrows(ClosedException.class, operation::await);
            }
            callbacks.assertBalanced();
            assertEquals(0, pair.get().fd().held());
            pair.get().close();
        }
    }

    /** Seed: {@code test_forwarded_receive_cancelled_after_promotion}. */
    @WhiteBoxCase
    void testForwardedReceiveCancelledAfterPromotion(WhiteBoxRuntime rt) {
        onSocketPair(rt, (ctx, pair) -> {
            Operation<byte[]> operation = pendingReceive(pair);
            assertFalse(pollOnForeignThread(operation, Waker.noop()).isReady());
            reschedule();
            onForeignThreadBlockingWorker(() -> {
                operation.close();
                return null;
            });
            drained(ctx, rt::admitted);
        });
    }

    /**
     * Seed: {@code test_forwarded_observer_clone_panic_keeps_cancellation}. The seed's foreign thread takes the
     * operation by value and returns it; here the operation object is shared, with the thread's start and
     * join as the hand-over edges.
     */
    @WhiteBoxCase
    void testForwardedObserverClonePanicKeepsCancellation(WhiteBoxRuntime rt) {
        Reentrant callbacks = new Reentrant(rt::criticalSection);
        onSocketPair(rt, (ctx, pair) -> {
            Operation<byte[]> operation = pendingReceive(pair);
            callbacks.arm(Reentrant.Callback.RETAIN);
            RuntimeException panic = onForeignThreadBlockingWorker(() -> {
                Waker waker = callbacks.waker();
                try {
                    operation.poll(waker);
                    return null;
                } catch (RuntimeException e) {
                    return e;
                }
            });
            assertNotNull(panic, "receiver waker clone must panic");
            assertEquals("waker callback panic 1", panic.getMessage());
            operation.close();
            drained(ctx, rt::admitted);
        });
        callbacks.assertBalanced();
    }

    /** Seed: {@code test_forwarded_write_finishes_after_drop}. */
    @WhiteBoxCase
    void testForwardedWriteFinishesAfterDrop(WhiteBoxRuntime rt) {
        for (boolean promoted : new boolean[] {false, true}) {
            runner(rt, 1).start(ctx -> {
                Blob blob = ctx.open("forwarded_write", "file").await().blob();
                try (SocketPair pair = rt.socketPair(ctx)) {
                    Operation<byte[]> blocker = pendingReceive(pair);
                    reschedule();

                    Operation<Void> write = blob.writeAt(0, bytes("retained"));
                    assertFalse(write.poll(Waker.noop()).isReady());
                    assertFalse(pollOnForeignThread(write, Waker.noop()).isReady());
                    if (promoted) {
                        reschedule();
                    }
                    write.close();
                    blocker.close();
                    drained(ctx, rt::admitted);

                    byte[] read = blob.readAt(0, 8).await();
                    assertArrayEquals(bytes("retained"), read);
                }
                blob.close();
                ctx.remove("forwarded_write", null).await();
                return null;
            });
        }
    }

    // ------------------------------------------------------------------------------------- cancellation

    /** Seed: {@code test_foreign_drop_releases_registration}. */
    @WhiteBoxCase
    void testForeignDropReleasesRegistration(WhiteBoxRuntime rt) {
        boolean[][] cases = {{false, false}, {false, true}, {true, false}, {true, true}};
        for (boolean[] kase : cases) {
            boolean inFlight = kase[0];
            boolean pollFirst = kase[1];
            onSocketPair(rt, (ctx, pair) -> {
                Operation<byte[]> operation = pendingReceive(pair);

                // A queued receive retires locally. A staged receive must wait for its own completion after
                // cancellation.
                if (inFlight) {
                    reschedule();
                }
                onForeignThreadBlockingWorker(() -> {
                    if (pollFirst) {
                        assertFalse(operation.poll(Waker.noop()).isReady());
                    }
                    // Closing must release the original registration whether or not its observer has moved
                    // to another thread.
                    operation.close();
                    return null;
                });

                // The owner must process the foreign message and finish any kernel cancellation before the
                // registration can retire.
                drained(ctx, rt::admitted);
            });
        }
    }

    // --------------------------------------------------------------------------------- waker reentrancy

    /** Seed: {@code test_pending_observers_retain_equivalent_wakers}. */
    @WhiteBoxCase
    void testPendingObserversRetainEquivalentWakers(WhiteBoxRuntime rt) {
        Reentrant callbacks = new Reentrant(rt::criticalSection);
        onSocketPair(rt, (ctx, pair) -> {
            Operation<byte[]> first = pair.recv();
            Operation<byte[]> queued = pair.recv();
            Operation<Void> sleep = ctx.sleeper(Duration.ofSeconds(60));
            Waker waker = callbacks.waker();
            assertFalse(first.poll(waker).isReady());
            reschedule();
            assertFalse(queued.poll(waker).isReady());
            assertFalse(sleep.poll(waker).isReady());

            // Equivalent wakers need no replacement for an in-flight request, a queued request, or a
            // registered sleep. (Rust clones of one waker are will_wake-equal; every waker of the fixture
            // is equivalent, so a second one is checked too.)
            int clones = callbacks.retainCalls();
            for (Waker again : List.of(waker, callbacks.waker())) {
                assertFalse(first.poll(again).isReady());
                assertFalse(queued.poll(again).isReady());
                assertFalse(sleep.poll(again).isReady());
            }
            assertEquals(clones, callbacks.retainCalls());
            first.close();
            queued.close();
            sleep.close();
        });
        callbacks.assertBalanced();
    }

    /**
     * Seed: {@code test_observer_clone_wake_and_drop_run_outside_local_borrows}. The seed counts 2 drops: the
     * displaced clone and the test's own original waker. The latter is not a stored copy and has no Java form,
     * so the port counts 1 release; {@link Reentrant#assertBalanced()} is the seed's {@code strong_count == 1}.
     */
    @WhiteBoxCase
    void testObserverCloneWakeAndDropRunOutsideLocalBorrows(WhiteBoxRuntime rt) {
        Reentrant callbacks = new Reentrant(rt::criticalSection);
        onSocketPair(rt, (ctx, pair) -> {
            Operation<Void> operation = pair.send();
            Waker waker = callbacks.waker();
            assertFalse(operation.poll(waker).isReady());

            // Replace the observer with a no-op waker, then restore it. The old observer must be dropped
            // after the worker borrow ends.
            assertFalse(operation.poll(Waker.noop()).isReady());
            assertFalse(operation.poll(waker).isReady());

            until(ctx, "the send's completion woke the installed copy", () -> callbacks.wakes() > 0);

            // A different waker would need cloning if the request were pending. Consuming the completed
            // result must skip that callback entirely.
            Reentrant ready = new Reentrant(rt::criticalSection);
            Poll<Void> poll = operation.poll(ready.waker());
            assertTrue(poll.isReady());
            assertNull(poll.get());
            assertEquals(0, ready.retainCalls());
            ready.assertBalanced();
        });

        // Two installations, one completion wake, and release of the displaced clone.
        assertEquals(2, callbacks.retainCalls());
        assertEquals(1, callbacks.wakes());
        assertEquals(1, callbacks.releases());
        callbacks.assertBalanced();
    }

    /**
     * Seed: {@code test_observer_clone_can_register_and_cancel_other_work}. The seed's clone callback makes a
     * fresh {@code UnixStream} pair synchronously; making a loopback pair here needs ring round trips, which a
     * ring of one whose slot holds the observed receive cannot give, so the callback registers its receive on
     * the test's own socket — still another identity registered, polled and cancelled from inside the clone.
     */
    @WhiteBoxCase
    void testObserverCloneCanRegisterAndCancelOtherWork(WhiteBoxRuntime rt) {
        for (boolean inFlight : new boolean[] {false, true}) {
            Reentrant callbacks = new Reentrant(rt::criticalSection);
            List<Throwable> callbackFailures = new ArrayList<>();
            onSocketPair(rt, (ctx, pair) -> {
                callbacks.onRetain = () -> {
                    try {
                        Operation<Void> sleep = ctx.sleeper(Duration.ofSeconds(60));
                        Operation<byte[]> operation = pair.recv();
                        assertFalse(sleep.poll(Waker.noop()).isReady());
                        assertFalse(operation.poll(Waker.noop()).isReady());
                        operation.close();
                        sleep.close();
                    } catch (Throwable t) {
                        callbackFailures.add(t);
                    }
                };

                Operation<byte[]> operation = pair.recv();
                Operation<Void> sleep = ctx.sleeper(Duration.ofSeconds(60));
                assertFalse(operation.poll(Waker.noop()).isReady());
                assertFalse(sleep.poll(Waker.noop()).isReady());
                if (inFlight) {
                    reschedule();
                }

                // Each replacement may register and cancel other identities. The current registrations
                // still need their own completion.
                Waker waker = callbacks.waker();
                assertFalse(operation.poll(waker).isReady());
                assertFalse(sleep.poll(waker).isReady());
                assertEquals(2, callbacks.retainCalls());

                sleep.close();
                pair.writePeer(bytes("x"));
                byte[] buffer = operation.await();
                assertEquals(1, buffer.length, "receive failed after observer replacement");
                assertArrayEquals(bytes("x"), buffer);
                drained(ctx, rt::admitted);
            });
            assertEquals(List.of(), callbackFailures);
            callbacks.assertBalanced();
        }
    }

    /**
     * Seed: {@code test_observer_clone_admitting_a_waiting_sync_keeps_the_observed_result}. A sync waits in the
     * driver for its open's permit. The permit is released to it and, before the worker services again, the
     * sync's operation is polled with a new waker. Retaining that waker admits another sync of the same open,
     * and that admission grants the permit: the open is clean, so the first sync completes during the retain.
     * The poll must return that result. The seed's {@code admitting_waker} is a {@link Reentrant} whose
     * {@code onClone} admits the second sync.
     */
    @WhiteBoxCase
    void testObserverCloneAdmittingAWaitingSyncKeepsTheObservedResult(WhiteBoxRuntime rt) {
        Reentrant admitting = new Reentrant(rt::criticalSection);
        String outcome = runner(rt, 1).start(ctx -> {
            Blob blob = ctx.open("observer_refresh", "blob").await().blob();
            // Hold the open's permit so the sync waits for it in the driver.
            DurabilityPermit permit = rt.permit(blob);
            assertTrue(permit.tryAcquire());
            Operation<Void> sync = blob.sync();
            assertFalse(sync.poll(Waker.noop()).isReady());

            // Release the permit to the waiting sync. The worker has not serviced since, so the driver still
            // lists the sync as waiting.
            permit.release();

            // Poll with a new waker whose retain admits a second sync of the same open, which finds the permit
            // granted and waits as well.
            List<Operation<Void>> admitted = new ArrayList<>();
            admitting.onRetain = () -> admitted.add(blob.sync());
            String seen;
            try {
                Poll<Void> poll = sync.poll(admitting.waker());
                if (!poll.isReady()) {
                    seen = "pending";
                } else {
                    try {
                        seen = poll.get() == null ? "ready" : "unexpected result: " + poll.get();
                    } catch (RuntimeException failure) {
                        seen = "unexpected result: " + failure;
                    }
                }
            } catch (RuntimeException panic) {
                seen = "panic: " + panic.getMessage();
            }

            // Report the poll's outcome, then let both syncs retire.
            sync.close();
            admitted.forEach(Operation::close);
            drained(ctx, rt::admitted);
            blob.close();
            return seen;
        });

        // The poll must return the result completed during its clone.
        assertEquals("ready", outcome);
        admitting.assertBalanced();
    }

    /** Seed: {@code test_observer_clone_panic_preserves_queued_and_in_flight_cancellation}. */
    @WhiteBoxCase
    void testObserverClonePanicPreservesQueuedAndInFlightCancellation(WhiteBoxRuntime rt) {
        for (boolean queued : new boolean[] {false, true}) {
            Reentrant callbacks = new Reentrant(rt::criticalSection);
            AtomicReference<SocketPair> pair = new AtomicReference<>();
            runnerLeavingOpen(rt, 1, "its socket pair outlives start, as in the seed").start(ctx -> {
                pair.set(rt.socketPair(ctx));
                SocketPair socket = pair.get();
                Operation<byte[]> blocker = queued ? socket.recv() : null;
                if (blocker != null) {
                    assertFalse(blocker.poll(Waker.noop()).isReady());
                }

                Operation<byte[]> operation = socket.recv();
                Waker waker = callbacks.waker();
                assertFalse(operation.poll(Waker.noop()).isReady());
                reschedule();

                WaiterId registration = rt.key(operation);
                callbacks.arm(Reentrant.Callback.RETAIN);
                RuntimeException panic = assertThrows(RuntimeException.class, () -> operation.poll(waker),
                        "observer clone must panic");
                assertEquals("waker callback panic 1", panic.getMessage());
                assertSame(callbacks.thrown(), panic);
                assertEquals(registration, rt.key(operation), "clone panic lost cancellation identity");

                // A clone panic must retain the identity needed to cancel both queued and in-flight requests.
                operation.close();
                if (blocker != null) {
                    blocker.close();
                }
                assertNull(socket.send().await());
                return null;
            });
            assertEquals(0, pair.get().fd().held());
            pair.get().close();
            callbacks.assertBalanced();
        }
    }

    /**
     * Seed: {@code test_observer_wake_and_drop_panics_finish_worker_retirement}. These callbacks run in worker
     * service; their exceptions must leave through {@code Runner.start} only after all worker cleanup has
     * finished: the seed's {@code local.driver.is_none()} is {@link Worker#isRetired()}, and
     * {@code Local::current().is_none()} is {@link Worker#current()} being null on the caller's thread.
     */
    @WhiteBoxCase
    void testObserverWakeAndDropPanicsFinishWorkerRetirement(WhiteBoxRuntime rt) {
        for (Reentrant.Callback callback : new Reentrant.Callback[] {Reentrant.Callback.WAKE,
                Reentrant.Callback.RELEASE}) {
            Reentrant callbacks = new Reentrant(rt::criticalSection);
            AtomicReference<SocketPair> pair = new AtomicReference<>();
            // Keep the worker to inspect its cleanup after start has returned.
            AtomicReference<Worker> retainedLocal = new AtomicReference<>();
            Runner runner = runnerLeavingOpen(rt, 1, "its socket pair outlives start, as in the seed");
            RuntimeException panic = assertThrows(RuntimeException.class, () -> runner.start(ctx -> {
                retainedLocal.set(rt.worker());
                pair.set(rt.socketPair(ctx));
                Operation<?> operation = callback == Reentrant.Callback.WAKE ? pair.get().send() : pair.get().recv();
                Waker waker = callbacks.waker();
                assertFalse(operation.poll(waker).isReady());
                callbacks.arm(callback);
                if (callback == Reentrant.Callback.RELEASE) {
                    // Replacing an observer queues its destructor. The receive stays pending until failure
                    // cleanup cancels it.
                    assertFalse(operation.poll(Waker.noop()).isReady());
                }
                ctx.sleep(Duration.ofDays(365));
                return null;
            }), "deferred observer callback must fail the runner");
            assertEquals("waker callback panic " + callback.number(), panic.getMessage());
            assertSame(callbacks.thrown(), panic);
            Worker local = retainedLocal.get();
            assertTrue(local.isRetired(), "the worker retired before start threw");
            assertNull(Worker.current());
            assertEquals(0, pair.get().fd().held());
            pair.get().close();
            callbacks.assertBalanced();
        }
    }
}
