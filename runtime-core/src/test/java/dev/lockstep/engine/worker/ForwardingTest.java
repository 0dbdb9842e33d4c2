package dev.lockstep.engine.worker;

import static dev.lockstep.engine.Support.onPlainThread;
import static dev.lockstep.engine.Support.pollOnForeignThread;
import static dev.lockstep.engine.Support.register;
import static dev.lockstep.engine.Support.serviceUntil;
import static dev.lockstep.engine.Support.startPlain;
import static dev.lockstep.engine.Support.turns;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Reentrant;
import dev.lockstep.ClosedException;
import dev.lockstep.Handle;
import dev.lockstep.Poll;
import dev.lockstep.Waker;
import dev.lockstep.engine.ScriptedKernel;
import dev.lockstep.engine.ScriptedRequest;
import dev.lockstep.engine.Support;
import dev.lockstep.engine.ThreadedRunner;
import dev.lockstep.engine.request.Registration;
import dev.lockstep.engine.request.ResultChannel;
import dev.lockstep.engine.request.WaiterId;
import dev.lockstep.kernel.Opcode;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ARCHITECTURE.md §3.5: an operation may be polled, awaited and closed on any thread or worker; foreign observation is
 * forwarded through the owner's mailbox, stale messages are ignored by generation, and forwarded receivers of
 * a retired worker observe {@link ClosedException}.
 */
class ForwardingTest {
    private final ScriptedKernel kernel = new ScriptedKernel();

    private ThreadedRunner runner(int ringEntries) {
        return new ThreadedRunner(kernel, 1, ringEntries, null, "forwarding");
    }

    private ScriptedKernel.Pending submitted(Registration<?> op) {
        return kernel.awaitPending(p -> p.id().equals(op.key()));
    }

    /** Completes the request behind {@code op} from a helper thread once it is submitted. */
    private dev.lockstep.Turns.Started completeWhenSubmitted(Registration<?> op, int result) {
        WaiterId id = op.key();
        return startPlain(() -> kernel.complete(kernel.awaitPending(p -> p.id().equals(id)), result));
    }

    enum State { QUEUED, IN_FLIGHT, COMPLETED }

    /** Seed: test_operation_can_move_between_threads. */
    @ParameterizedTest(name = "{0}, return to owner: {1}")
    @CsvSource({"QUEUED,true", "QUEUED,false", "IN_FLIGHT,true", "IN_FLIGHT,false", "COMPLETED,true",
            "COMPLETED,false"})
    void operationMovesBetweenThreads(State state, boolean returnToOwner) {
        Reentrant local = new Reentrant(Support::criticalSection);
        ScriptedRequest request = new ScriptedRequest("moving", false);
        int value = runner(1).start(ctx -> {
            Worker worker = Worker.current();
            Registration<Integer> blocker = null;
            if (state == State.QUEUED) {
                blocker = register(new ScriptedRequest("blocker", false));
                submitted(blocker);
            }
            Registration<Integer> op = register(request);
            assertFalse(op.poll(local.waker()).isReady());
            if (state != State.QUEUED) {
                ScriptedKernel.Pending pending = submitted(op);
                if (state == State.COMPLETED) {
                    kernel.complete(pending, 42);
                    serviceUntil("the completion is reaped", () -> local.wakes() == 1);
                }
            } else {
                turns(2);
                assertTrue(kernel.pending().stream().noneMatch(p -> p.id().equals(op.key())), "queued");
            }

            // A poll elsewhere forwards observation; the owner has not serviced, so it is pending.
            assertFalse(pollOnForeignThread(op, Waker.noop()).isReady());

            dev.lockstep.Turns.Started completer = state == State.COMPLETED ? null : completeWhenSubmitted(op, 42);
            if (blocker != null) {
                blocker.close();
            }
            int result;
            if (returnToOwner) {
                result = op.await();
            } else {
                result = onPlainThread(op::await);
            }
            if (completer != null) {
                Support.joinYielding(completer);
            }
            serviceUntil("every request retired", () -> worker.admitted() == 0);
            return result;
        });
        assertEquals(42, value);
        assertEquals(1, request.releases.get());
        local.assertBalanced();
    }

    /** A Forward that reaches the owner after the request completed delivers the kept result. */
    @Test
    void forwardAfterCompletionDeliversTheResult() {
        runner(1).start(ctx -> {
            Worker worker = Worker.current();
            Registration<Integer> op = register(new ScriptedRequest("done", false));
            kernel.complete(submitted(op), 17);
            turns(2);
            // The result is kept, unobserved, in the slab.
            assertEquals(1, worker.admitted());
            assertEquals(17, onPlainThread(op::await));
            assertEquals(0, worker.admitted());
            // Observed once: a second await has nothing left to observe.
            assertThrows(ClosedException.class, op::await);
            return null;
        });
    }

    /** Seed: test_foreign_drop_releases_registration and test_forwarded_receive_cancelled_after_promotion. */
    @ParameterizedTest(name = "in flight: {0}, forwarded first: {1}, promoted: {2}")
    @CsvSource({"false,false,false", "false,true,false", "false,true,true", "true,false,false", "true,true,false",
            "true,true,true"})
    void foreignCloseReleasesTheRegistration(boolean inFlight, boolean forwardFirst, boolean promoted) {
        Reentrant callbacks = new Reentrant(Support::criticalSection);
        ScriptedRequest request = new ScriptedRequest("closed elsewhere", false);
        runner(1).start(ctx -> {
            Worker worker = Worker.current();
            Registration<Integer> blocker = null;
            if (!inFlight) {
                blocker = register(new ScriptedRequest("blocker", false));
                submitted(blocker);
            }
            Registration<Integer> op = register(request);
            assertFalse(op.poll(callbacks.waker()).isReady());
            if (inFlight) {
                submitted(op);
            }
            if (forwardFirst) {
                assertFalse(pollOnForeignThread(op, callbacks.waker()).isReady());
                if (promoted) {
                    turns(2);
                }
            }
            onPlainThread(op::close);
            // The owner processes the Cancel and, for an in-flight receive, waits for its own completion.
            serviceUntil("the request retired", () -> request.releases.get() == 1);
            if (blocker != null) {
                blocker.close();
            }
            serviceUntil("every request retired", () -> worker.admitted() == 0);
            assertTrue(kernel.pending().isEmpty(), "nothing left in the kernel");
            assertThrows(ClosedException.class, () -> op.poll(Waker.noop()).get(), "a closed operation is done");
            return null;
        });
        assertTrue(request.closedEarly);
        assertEquals(1, request.releases.get());
        callbacks.assertBalanced();
    }

    /** Seed: test_forwarded_write_finishes_after_drop. Retained work is never cancelled by a foreign close. */
    @ParameterizedTest(name = "promoted: {0}")
    @ValueSource(booleans = {false, true})
    void forwardedRetainedWriteFinishesAfterForeignClose(boolean promoted) {
        ScriptedRequest write = new ScriptedRequest("write", true);
        runner(2).start(ctx -> {
            Worker worker = Worker.current();
            Registration<Integer> op = register(write);
            ScriptedKernel.Pending pending = submitted(op);
            assertFalse(pollOnForeignThread(op, Waker.noop()).isReady());
            if (promoted) {
                turns(2);
            }
            onPlainThread(op::close);
            turns(3);
            assertEquals(1, worker.admitted(), "the write still runs");
            assertTrue(kernel.pending().contains(pending), "no cancellation was issued for the write");
            kernel.complete(pending, 1);
            serviceUntil("the write retired", () -> worker.admitted() == 0);
            return null;
        });
        assertFalse(write.closedEarly);
        assertEquals(1, write.releases.get());
    }

    /** Seed: test_local_drop_overtakes_forwarding, with the stale Forward answered by closure. */
    @ParameterizedTest(name = "in flight: {0}")
    @ValueSource(booleans = {false, true})
    void localCloseOvertakesAQueuedForward(boolean inFlight) {
        Reentrant foreign = new Reentrant(Support::criticalSection);
        runner(1).start(ctx -> {
            Worker worker = Worker.current();
            Registration<Integer> blocker = null;
            if (!inFlight) {
                blocker = register(new ScriptedRequest("blocker", false));
                submitted(blocker);
            }
            Registration<Integer> op = register(new ScriptedRequest("overtaken", false));
            if (inFlight) {
                submitted(op);
            }
            WaiterId old = op.key();
            assertFalse(pollOnForeignThread(op, foreign.waker()).isReady());
            // The owner closes before it services the queued Forward.
            op.close();
            Registration<Integer> replacement = register(new ScriptedRequest("replacement", false));
            if (!inFlight) {
                assertEquals(old.index(), replacement.key().index(), "the released index is reused");
                assertNotEquals(old.generation(), replacement.key().generation());
                blocker.close();
            }
            dev.lockstep.Turns.Started completer = completeWhenSubmitted(replacement, 6);
            assertEquals(6, replacement.await());
            Support.joinYielding(completer);
            serviceUntil("every request retired", () -> worker.admitted() == 0);
            return null;
        });
        // The local close closed the forwarded receiver too. Close means close: the foreign poller's copy is
        // woken (its next poll reads Closed), not released behind its back.
        assertEquals(1, foreign.wakes());
        assertEquals(0, foreign.releases());
        foreign.assertBalanced();
    }

    enum Stale { CANCEL, FORWARD }

    /** Messages naming an old generation of a reused index are ignored. */
    @ParameterizedTest
    @EnumSource(Stale.class)
    void staleMessagesAreIgnored(Stale kind) {
        runner(1).start(ctx -> {
            Worker worker = Worker.current();
            Registration<Integer> first = register(new ScriptedRequest("first", false));
            WaiterId oldId = first.key();
            first.close();
            Registration<Integer> current = register(new ScriptedRequest("current", false));
            assertEquals(oldId.index(), current.key().index());
            assertNotEquals(oldId.generation(), current.key().generation());
            assertFalse(current.poll(Waker.noop()).isReady());
            ScriptedKernel.Pending pending = submitted(current);

            ResultChannel<Object> channel = new ResultChannel<>("stale");
            assertTrue(worker.mailbox().send(kind == Stale.CANCEL ? new Mailbox.Cancel(oldId)
                    : new Mailbox.Forward(oldId, channel)));
            turns(3);
            assertTrue(kernel.pending().contains(pending), "the current request was not cancelled");
            assertEquals(1, worker.admitted());
            if (kind == Stale.FORWARD) {
                Poll<Object> answer = channel.poll(Waker.noop());
                assertTrue(answer.isReady(), "a stale Forward is answered");
                assertThrows(ClosedException.class, answer::get);
            }
            kernel.complete(pending, 4);
            // The current operation is still observed locally and completes.
            assertEquals(4, current.await());
            assertEquals(0, worker.admitted());
            return null;
        });
    }

    /** Seed: test_escaped_operation_observes_worker_closure, for forwarded operations. */
    @ParameterizedTest(name = "promoted: {0}, completed: {1}")
    @CsvSource({"false,false", "true,false", "true,true"})
    void forwardedOperationEscapingStartObservesClosure(boolean promoted, boolean completed) {
        Reentrant callbacks = new Reentrant(Support::criticalSection);
        ScriptedRequest request = new ScriptedRequest("escaping", false);
        Registration<Integer> escaped = runner(1).start(ctx -> {
            Registration<Integer> op = register(request);
            assertFalse(op.poll(callbacks.waker()).isReady());
            ScriptedKernel.Pending pending = submitted(op);
            assertFalse(pollOnForeignThread(op, callbacks.waker()).isReady());
            if (promoted) {
                turns(2);
                // The owner released the local copy when it promoted the forward.
                assertEquals(1, callbacks.releases());
            }
            if (completed) {
                kernel.complete(pending, 7);
                serviceUntil("the result was sent to the receiver", () -> callbacks.wakes() == 1);
            }
            return op;
        });
        // Completion or closure woke the receiver's copy.
        assertEquals(1, callbacks.wakes());
        if (completed) {
            assertEquals(7, escaped.await());
        } else {
            assertThrows(ClosedException.class, escaped::await);
        }
        assertEquals(1, request.releases.get());
        callbacks.assertBalanced();
    }

    /** A local operation escaping start observes closure on any thread. */
    @Test
    void localOperationEscapingStartObservesClosure() {
        Registration<Integer> escaped = runner(1).start(ctx -> {
            Registration<Integer> op = register(new ScriptedRequest("escaping", false));
            assertFalse(op.poll(Waker.noop()).isReady());
            return op;
        });
        assertThrows(ClosedException.class, () -> escaped.poll(Waker.noop()).get());
        // Closing it afterwards is harmless.
        escaped.close();
    }

    /** Seed: test_forwarded_observer_clone_panic_keeps_cancellation. */
    @Test
    void foreignRetainThatThrowsKeepsCancellation() {
        ScriptedRequest request = new ScriptedRequest("op", false);
        Reentrant callbacks = new Reentrant(Support::criticalSection);
        runner(1).start(ctx -> {
            Worker worker = Worker.current();
            Registration<Integer> op = register(request);
            assertFalse(op.poll(Waker.noop()).isReady());
            submitted(op);
            callbacks.arm(Reentrant.Callback.RETAIN);
            RuntimeException thrown = Support.onForeignThreadBlockingWorker(() -> {
                try {
                    op.poll(callbacks.waker());
                    return null;
                } catch (RuntimeException e) {
                    return e;
                }
            });
            assertEquals(callbacks.thrown(), thrown);
            op.close();
            serviceUntil("the request retired", () -> worker.admitted() == 0);
            return null;
        });
        assertTrue(request.closedEarly);
        assertEquals(1, request.releases.get());
        callbacks.assertBalanced();
    }

    /** A fiber on worker 1 awaits, and another closes, operations owned by worker 0. */
    @Test
    void fiberOnAnotherWorkerAwaitsAndClosesOperationsOfWorkerZero() {
        ScriptedRequest awaitedRequest = new ScriptedRequest("awaited", false);
        ScriptedRequest closedRequest = new ScriptedRequest("closed", false);
        AtomicReference<Integer> otherWorker = new AtomicReference<>();
        int value = new ThreadedRunner(kernel, 2, 2, null, "two").start(ctx -> {
            Worker owner = Worker.current();
            assertEquals(0, owner.index());
            Registration<Integer> awaited = register(awaitedRequest);
            Registration<Integer> closed = register(closedRequest);
            ScriptedKernel.Pending pending = submitted(awaited);
            ScriptedKernel.Pending closedPending = submitted(closed);
            Handle<Integer> remote = ctx.child("remote").spawnOn(1, c -> {
                otherWorker.set(Worker.current().index());
                closed.close();
                return awaited.await();
            });
            serviceUntil("the remote close cancelled the request", () -> closedRequest.releases.get() == 1);
            assertFalse(kernel.pending().contains(closedPending));
            kernel.complete(pending, 99);
            int result = remote.await();
            serviceUntil("every request retired", () -> owner.admitted() == 0);
            return result;
        });
        assertEquals(99, value);
        assertEquals(1, otherWorker.get());
        assertTrue(closedRequest.closedEarly);
        assertEquals(1, awaitedRequest.releases.get());
    }

    /** An operation registered by a fiber on worker 1 is awaited by the root on worker 0. */
    @Test
    void rootAwaitsAnOperationOwnedByWorkerOne() {
        int value = new ThreadedRunner(kernel, 2, 2, null, "two").start(ctx -> {
            AtomicReference<Registration<Integer>> box = new AtomicReference<>();
            Handle<Void> owner = ctx.child("owner").spawnOn(1, c -> {
                Registration<Integer> op = register(new ScriptedRequest("remote", false));
                box.set(op);
                // Keep worker 1 alive (the operation's owner) until the root has its result.
                c.sleep(java.time.Duration.ofDays(1));
                return null;
            });
            serviceUntil("worker 1 registered", () -> box.get() != null);
            Registration<Integer> op = box.get();
            assertEquals(1, op.owner().index());
            dev.lockstep.Turns.Started completer = completeWhenSubmitted(op, 31);
            int result = op.await();
            Support.joinYielding(completer);
            owner.abort();
            return result;
        });
        assertEquals(31, value);
        assertTrue(kernel.pending().stream().noneMatch(p -> p.opcode() == Opcode.RECV));
    }
}
