package dev.lockstep.engine.worker;

import static dev.lockstep.engine.Support.register;
import static dev.lockstep.engine.Support.serviceUntil;
import static dev.lockstep.engine.Support.turns;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Reentrant;
import dev.lockstep.Operation;
import dev.lockstep.Poll;
import dev.lockstep.Waker;
import dev.lockstep.engine.ScriptedKernel;
import dev.lockstep.engine.ScriptedRequest;
import dev.lockstep.engine.Support;
import dev.lockstep.engine.ThreadedRunner;
import dev.lockstep.engine.io.DurabilityPermit;
import dev.lockstep.engine.io.EngineBlob;
import dev.lockstep.engine.request.Registration;
import dev.lockstep.engine.request.WaiterId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ARCHITECTURE.md §3.2: every waker callback runs outside the worker's critical section and may re-enter the worker; a
 * poll observes again after its retain; a throwing retain leaves the operation intact; a throwing wake or
 * release fails the runner only after the worker retired. The Java forms of the seed's reentrancy tests.
 */
class ReentrancyTest {
    private final ScriptedKernel kernel = new ScriptedKernel();

    private ThreadedRunner runner(int ringEntries) {
        return new ThreadedRunner(kernel, 1, ringEntries, null, "reentrancy");
    }

    private ScriptedKernel.Pending submitted(Registration<?> op) {
        return kernel.awaitPending(p -> p.id().equals(op.key()));
    }

    /** Seed: test_observer_clone_wake_and_drop_run_outside_local_borrows. */
    @Test
    void retainWakeAndReleaseRunOutsideTheBorrow() {
        Reentrant callbacks = new Reentrant(Support::criticalSection);
        Reentrant ready = new Reentrant(Support::criticalSection);
        runner(1).start(ctx -> {
            Registration<Integer> op = register(new ScriptedRequest("send", false));
            Waker waker = callbacks.waker();
            assertFalse(op.poll(waker).isReady());
            // Replace the observer with a no-op waker, then restore it: the displaced copy is released outside
            // the borrow.
            assertFalse(op.poll(Waker.noop()).isReady());
            assertFalse(op.poll(waker).isReady());
            kernel.complete(submitted(op), 1);
            serviceUntil("the completion wakes the installed copy", () -> callbacks.wakes() == 1);

            // A different waker would need retaining if the request were pending; consuming the completed
            // result skips that callback entirely.
            Poll<Integer> poll = op.poll(ready.waker());
            assertEquals(1, poll.get());
            assertEquals(0, ready.retainCalls());
            assertEquals(0, Worker.current().admitted());
            return null;
        });
        // Two installations, one completion wake, one displaced copy released.
        assertEquals(2, callbacks.retained());
        assertEquals(1, callbacks.wakes());
        assertEquals(1, callbacks.releases());
        callbacks.assertBalanced();
        ready.assertBalanced();
    }

    /** Seed: test_pending_observers_retain_equivalent_wakers. */
    @Test
    void equivalentWakerIsNotRetainedAgainForInFlightQueuedAndSleep() {
        Reentrant callbacks = new Reentrant(Support::criticalSection);
        runner(1).start(ctx -> {
            Registration<Integer> first = register(new ScriptedRequest("first", false));
            Registration<Integer> queued = register(new ScriptedRequest("queued", false));
            Operation<Void> sleep = ctx.sleeper(Duration.ofSeconds(60));
            Waker waker = callbacks.waker();
            assertFalse(first.poll(waker).isReady());
            submitted(first);
            assertFalse(queued.poll(waker).isReady());
            assertFalse(sleep.poll(waker).isReady());
            // The ring has one entry: the second request is still queued.
            assertEquals(1, kernel.pending().size());
            assertEquals(3, callbacks.retained());

            // The same waker, and another waker equivalent to it, need no replacement.
            Waker equivalent = callbacks.waker();
            for (Waker again : List.of(waker, equivalent)) {
                assertFalse(first.poll(again).isReady());
                assertFalse(queued.poll(again).isReady());
                assertFalse(sleep.poll(again).isReady());
            }
            assertEquals(3, callbacks.retained());
            assertTrue(callbacks.equalityChecks() >= 6, "willWake was consulted");

            first.close();
            queued.close();
            sleep.close();
            serviceUntil("every request retired", () -> Worker.current().admitted() == 0);
            return null;
        });
        assertEquals(0, callbacks.wakes());
        assertEquals(3, callbacks.releases());
        callbacks.assertBalanced();
    }

    /** Seed: test_observer_clone_can_register_and_cancel_other_work. */
    @ParameterizedTest(name = "in flight: {0}")
    @ValueSource(booleans = {false, true})
    void retainCallbackMayRegisterPollAndCloseOtherWork(boolean inFlight) {
        Reentrant callbacks = new Reentrant(Support::criticalSection);
        AtomicInteger innerRuns = new AtomicInteger();
        List<ScriptedRequest> inner = new ArrayList<>();
        int value = runner(1).start(ctx -> {
            callbacks.onRetain = () -> {
                Operation<Void> sleep = ctx.sleeper(Duration.ofSeconds(60));
                ScriptedRequest request = new ScriptedRequest("inner", false);
                inner.add(request);
                Registration<Integer> other = register(request);
                assertFalse(sleep.poll(Waker.noop()).isReady());
                assertFalse(other.poll(Waker.noop()).isReady());
                other.close();
                sleep.close();
                innerRuns.incrementAndGet();
            };
            Worker worker = Worker.current();
            Registration<Integer> op = register(new ScriptedRequest("op", false));
            Operation<Void> sleep = ctx.sleeper(Duration.ofSeconds(60));
            assertFalse(op.poll(Waker.noop()).isReady());
            assertFalse(sleep.poll(Waker.noop()).isReady());
            ScriptedKernel.Pending pending = inFlight ? submitted(op) : null;

            // Each installation may register and cancel other identities; these registrations still need their
            // own completion.
            Waker waker = callbacks.waker();
            assertFalse(op.poll(waker).isReady());
            assertFalse(sleep.poll(waker).isReady());
            assertEquals(2, callbacks.retained());
            assertEquals(2, innerRuns.get());

            sleep.close();
            kernel.complete(pending != null ? pending : submitted(op), 5);
            int result = op.await();
            serviceUntil("every request retired", () -> worker.admitted() == 0);
            return result;
        });
        assertEquals(5, value);
        for (ScriptedRequest request : inner) {
            assertEquals(1, request.releases.get(), "inner request released once");
            assertTrue(request.closedEarly, "inner request was closed before it ran");
        }
        callbacks.assertBalanced();
    }

    /**
     * Seed: test_observer_clone_admitting_a_waiting_sync_keeps_the_observed_result. A sync waits for its
     * open's permit; the permit is released to it and, before the worker services again, the sync is polled
     * with a new waker whose retain admits a second sync of the same clean open. That admission grants the
     * permit and completes the first sync during the retain: the poll must return that result.
     */
    @Test
    void retainThatAdmitsAWaitingSyncKeepsTheObservedResult() {
        kernel.autoCompleteFiles();
        Reentrant admitting = new Reentrant(Support::criticalSection);
        List<Operation<Void>> admitted = new ArrayList<>();
        String outcome = new ThreadedRunner(kernel, 1, 1, "/store", "reentrancy").start(ctx -> {
            EngineBlob blob = (EngineBlob) ctx.open("observer", "blob").await().blob();
            DurabilityPermit permit = blob.permit();
            assertTrue(permit.tryAcquire(), "the test holds the open's permit");
            int fsyncs = kernel.files.fsyncs;
            Operation<Void> sync = blob.sync();
            assertFalse(sync.poll(Waker.noop()).isReady());
            // Release the permit to the waiting sync; the worker has not serviced since.
            permit.release();
            admitting.onRetain = () -> admitted.add(blob.sync());
            Poll<Void> poll = sync.poll(admitting.waker());
            String seen = poll.isReady() ? "ready" : "pending";
            if (poll.isReady()) {
                assertNull(poll.get());
            }
            sync.close();
            assertEquals(1, admitted.size());
            assertNull(admitted.get(0).await());
            serviceUntil("both syncs retired", () -> Worker.current().admitted() == 0);
            assertEquals(fsyncs, kernel.files.fsyncs, "syncs of a clean open make no fsync");
            assertFalse(permit.isHeld());
            blob.close();
            return seen;
        });
        assertEquals("ready", outcome);
        admitting.assertBalanced();
    }

    /** Seed: test_observer_clone_panic_preserves_queued_and_in_flight_cancellation. */
    @ParameterizedTest(name = "queued: {0}")
    @ValueSource(booleans = {false, true})
    void retainThatThrowsKeepsIdentityAndCancellation(boolean queued) {
        Reentrant callbacks = new Reentrant(Support::criticalSection);
        ScriptedRequest request = new ScriptedRequest("op", false);
        ScriptedRequest blockerRequest = new ScriptedRequest("blocker", false);
        runner(1).start(ctx -> {
            Worker worker = Worker.current();
            Registration<Integer> blocker = null;
            if (queued) {
                blocker = register(blockerRequest);
                submitted(blocker);
            }
            Registration<Integer> op = register(request);
            assertFalse(op.poll(Waker.noop()).isReady());
            if (!queued) {
                submitted(op);
            } else {
                turns(3);
                assertTrue(kernel.pending().stream().noneMatch(p -> p.id().equals(op.key())), "op is queued");
            }

            WaiterId key = op.key();
            callbacks.arm(Reentrant.Callback.RETAIN);
            RuntimeException thrown = assertThrows(RuntimeException.class, () -> op.poll(callbacks.waker()));
            assertSame(callbacks.thrown(), thrown, "the retain's own exception reaches the poller");
            assertEquals(key, op.key(), "a throwing retain keeps the operation's identity");
            assertEquals(queued ? 2 : 1, worker.admitted());

            // The identity still cancels a queued or an in-flight request.
            op.close();
            if (blocker != null) {
                blocker.close();
            }
            Registration<Integer> next = register(new ScriptedRequest("next", false));
            kernel.complete(submitted(next), 3);
            assertEquals(3, next.await());
            serviceUntil("every request retired", () -> worker.admitted() == 0);
            return null;
        });
        assertTrue(request.closedEarly);
        assertEquals(1, request.releases.get());
        assertEquals(queued ? 1 : 0, blockerRequest.releases.get());
        assertEquals(1, callbacks.retainCalls());
        assertEquals(0, callbacks.retained());
        callbacks.assertBalanced();
    }

    /** After a throwing retain the operation stays pollable and delivers its result. */
    @Test
    void retainThatThrowsLeavesTheOperationPollable() {
        Reentrant callbacks = new Reentrant(Support::criticalSection);
        int value = runner(1).start(ctx -> {
            Worker worker = Worker.current();
            Registration<Integer> op = register(new ScriptedRequest("op", false));
            ScriptedKernel.Pending pending = submitted(op);
            callbacks.arm(Reentrant.Callback.RETAIN);
            assertThrows(IllegalStateException.class, () -> op.poll(callbacks.waker()));
            // The next poll retains normally and is woken by the completion.
            assertFalse(op.poll(callbacks.waker()).isReady());
            kernel.complete(pending, 8);
            serviceUntil("completion wakes the retained copy", () -> callbacks.wakes() == 1);
            return op.poll(Waker.noop()).get();
        });
        assertEquals(8, value);
        assertEquals(2, callbacks.retainCalls());
        callbacks.assertBalanced();
    }

    /** Seed: test_observer_wake_and_drop_panics_finish_worker_retirement. */
    @ParameterizedTest
    @EnumSource(value = Reentrant.Callback.class, names = {"WAKE", "RELEASE"})
    void wakeOrReleaseThatThrowsFailsTheRunnerAfterRetirement(Reentrant.Callback callback) {
        Reentrant callbacks = new Reentrant(Support::criticalSection);
        ScriptedRequest request = new ScriptedRequest("op", false);
        AtomicReference<Worker> worker = new AtomicReference<>();
        AtomicReference<Boolean> finallyRan = new AtomicReference<>(false);
        ThreadedRunner runner = runner(1);
        RuntimeException thrown = assertThrows(RuntimeException.class, () -> runner.start(ctx -> {
            worker.set(Worker.current());
            Registration<Integer> op = register(request);
            assertFalse(op.poll(callbacks.waker()).isReady());
            callbacks.arm(callback);
            if (callback == Reentrant.Callback.WAKE) {
                kernel.complete(submitted(op), 1);
            } else {
                // Replacing the observer queues the release of the displaced copy; the request stays pending
                // until failure cleanup cancels it.
                assertFalse(op.poll(Waker.noop()).isReady());
            }
            try {
                ctx.sleep(Duration.ofDays(1));
            } finally {
                finallyRan.set(true);
            }
            throw new AssertionError("the runtime failure did not abort the root");
        }));
        assertSame(callbacks.thrown(), thrown, "start rethrows the callback's own exception");
        assertNotNull(thrown);
        assertTrue(finallyRan.get());
        Worker retired = worker.get();
        assertTrue(retired.isRetired(), "the worker retired before start threw");
        assertTrue(((ScriptedKernel.ScriptedRing) retired.ring()).isClosed(), "the ring was closed");
        assertEquals(1, request.releases.get(), "the request was released");
        assertEquals(1, callbacks.retained());
        callbacks.assertBalanced();
    }

    /** A wake that throws while a closing worker resolves its pending observers also fails the runner. */
    @Test
    void wakeThatThrowsDuringClosureFailsTheRunner() {
        Reentrant callbacks = new Reentrant(Support::criticalSection);
        ScriptedRequest request = new ScriptedRequest("op", false);
        AtomicReference<Worker> worker = new AtomicReference<>();
        RuntimeException thrown = assertThrows(RuntimeException.class, () -> runner(1).start(ctx -> {
            worker.set(Worker.current());
            Registration<Integer> op = register(request);
            assertFalse(op.poll(callbacks.waker()).isReady());
            submitted(op);
            callbacks.arm(Reentrant.Callback.WAKE);
            return "root value";
        }));
        assertSame(callbacks.thrown(), thrown);
        assertTrue(worker.get().isRetired());
        assertEquals(1, request.releases.get());
        callbacks.assertBalanced();
    }

    /** Wake and release callbacks run by worker service may themselves register and close work. */
    @Test
    void wakeAndReleaseCallbacksMayRegisterAndCloseOtherWork() {
        Reentrant callbacks = new Reentrant(Support::criticalSection);
        List<ScriptedRequest> inner = new ArrayList<>();
        AtomicInteger innerRuns = new AtomicInteger();
        Runnable reenter = () -> {
            ScriptedRequest request = new ScriptedRequest("inner", false);
            inner.add(request);
            Registration<Integer> other = register(request);
            assertFalse(other.poll(Waker.noop()).isReady());
            other.close();
            innerRuns.incrementAndGet();
        };
        callbacks.onWake = reenter;
        callbacks.onRelease = reenter;
        runner(2).start(ctx -> {
            Worker worker = Worker.current();
            Registration<Integer> first = register(new ScriptedRequest("first", false));
            Registration<Integer> second = register(new ScriptedRequest("second", false));
            assertFalse(first.poll(callbacks.waker()).isReady());
            assertFalse(second.poll(callbacks.waker()).isReady());
            kernel.complete(submitted(first), 1);
            serviceUntil("the wake ran", () -> callbacks.wakes() == 1);
            second.close();
            serviceUntil("the release ran", () -> callbacks.releases() == 1);
            assertEquals(1, first.poll(Waker.noop()).get());
            serviceUntil("every request retired", () -> worker.admitted() == 0);
            return null;
        });
        assertEquals(2, innerRuns.get());
        for (ScriptedRequest request : inner) {
            assertEquals(1, request.releases.get());
        }
        callbacks.assertBalanced();
    }

    /**
     * ARCHITECTURE.md §3.2 lists "a request's own cleanup" among the callbacks that run outside the worker's critical
     * section: a request's release may close files or re-enter the worker.
     */
    @Test
    void requestCleanupRunsOutsideTheBorrow() {
        ScriptedRequest queued = new ScriptedRequest("queued", false);
        ScriptedRequest completed = new ScriptedRequest("completed", false);
        ScriptedRequest cancelled = new ScriptedRequest("cancelled", false);
        runner(2).start(ctx -> {
            Worker worker = Worker.current();
            Registration<Integer> done = register(completed);
            kernel.complete(submitted(done), 1);
            assertEquals(1, done.await());
            Registration<Integer> inFlight = register(cancelled);
            submitted(inFlight);
            inFlight.close();
            Registration<Integer> closedQueued = register(queued);
            closedQueued.close();
            serviceUntil("every request retired", () -> worker.admitted() == 0);
            return null;
        });
        for (ScriptedRequest request : List.of(queued, completed, cancelled)) {
            assertEquals(1, request.releases.get(), request.name);
            assertFalse(request.releasedInsideBorrow, request.name + " was released inside the borrow");
        }
    }
}
