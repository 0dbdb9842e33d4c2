package dev.lockstep.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.ClosedException;
import dev.lockstep.StorageIoException;
import dev.lockstep.engine.request.Registration;
import dev.lockstep.engine.request.Request;
import dev.lockstep.engine.worker.Worker;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every throwable surfaces: a request that throws while it is prepared or completed fails alone, typed and
 * named, and its worker goes on; a ring that fails fails the run through {@code Runner.start} — first failure
 * rethrown, later ones suppressed — after the worker retired and released its requests. Before, each of these
 * ended the worker thread with nothing recorded, and {@code start} waited forever.
 */
class FailurePathTest {
    private final ScriptedKernel kernel = new ScriptedKernel();

    /** A request whose preparation throws what an allocation too large for the heap throws. */
    private static class UnpreparableRequest extends Request {
        final AtomicInteger releases = new AtomicInteger();

        @Override
        public Kind kind() {
            return Kind.RING;
        }

        @Override
        public void prepare(Submission submission, Ring ring) {
            throw new OutOfMemoryError("Java heap space");
        }

        @Override
        public void release(Ring ring) {
            releases.incrementAndGet();
        }

        @Override
        public String describe() {
            return "unpreparable request";
        }
    }

    @Test
    @Timeout(20)
    void aRequestWhosePreparationThrowsFailsAloneTypedAndNamedAndTheWorkerGoesOn() {
        UnpreparableRequest bad = new UnpreparableRequest();
        int value = new ThreadedRunner(kernel, 1, 4, null, "prepare").start(ctx -> {
            Registration<Object> failing = Support.register(bad);
            StorageIoException failure = assertThrows(StorageIoException.class, failing::await);
            assertTrue(failure.getMessage().contains("unpreparable request"), failure.getMessage());
            assertInstanceOf(OutOfMemoryError.class, failure.getCause());
            // The worker survived: the next request is prepared, submitted and completed.
            Registration<Integer> next = Support.register(new ScriptedRequest("next", false));
            kernel.complete(kernel.awaitPending(p -> p.id().equals(next.key())), 9);
            return next.await();
        });
        assertEquals(9, value);
        assertEquals(1, bad.releases.get(), "the failed request is released once");
    }

    /** A request whose completion throws: the same, on the other side of the kernel. */
    @Test
    @Timeout(20)
    void aRequestWhoseCompletionThrowsFailsAloneTypedAndNamed() {
        UnpreparableRequest bad = new UnpreparableRequest() {
            @Override
            public void prepare(Submission submission, Ring ring) {
                submission.opcode = dev.lockstep.kernel.Opcode.RECV;
                submission.fd = 7;
                submission.length = 1;
            }

            @Override
            public boolean complete(int result) {
                throw new OutOfMemoryError("Java heap space");
            }

            @Override
            public String describe() {
                return "uncompletable request";
            }
        };
        new ThreadedRunner(kernel, 1, 4, null, "complete").start(ctx -> {
            Registration<Object> failing = Support.register(bad);
            kernel.complete(kernel.awaitPending(p -> p.id().equals(failing.key())), 1);
            StorageIoException failure = assertThrows(StorageIoException.class, failing::await);
            assertTrue(failure.getMessage().contains("uncompletable"), failure.getMessage());
            return null;
        });
        assertEquals(1, bad.releases.get());
    }

    @Test
    @Timeout(20)
    void aRingThatFailsOnceFailsTheRunThroughStartAfterAnOrderlyRetirement() {
        EnterFailingKernel failing = new EnterFailingKernel(kernel);
        ScriptedRequest inFlight = new ScriptedRequest("waiting receive", false);
        AtomicInteger sawClosed = new AtomicInteger();
        KernelException thrown = assertThrows(KernelException.class,
                () -> new ThreadedRunner(failing, 2, 4, null, "enter-once").start(ctx -> {
                    Registration<Integer> waiting = Support.register(inFlight);
                    kernel.awaitPending(p -> p.id().equals(waiting.key()));
                    failing.failNextEnters.set(1);
                    Worker.current().nudge();
                    try {
                        waiting.await();
                    } catch (ClosedException aborted) {
                        sawClosed.incrementAndGet();
                        throw aborted;
                    }
                    return null;
                }));
        assertTrue(thrown.getMessage().contains("injected failure 1"), thrown.getMessage());
        assertEquals(0, thrown.getSuppressed().length, "one failure, nothing else went wrong");
        assertEquals(1, sawClosed.get(), "the root was aborted: its await threw ClosedException");
        assertEquals(1, inFlight.releases.get(), "the in-flight request was cancelled and released once");
        assertTrue(inFlight.closedEarly);
    }

    @Test
    @Timeout(20)
    void aRingThatFailsInAFibersInlineTurnFailsTheRunAsAServiceTurnsFailureWould() {
        kernel.autoCompleteFiles();
        EnterFailingKernel failing = new EnterFailingKernel(kernel);
        AtomicInteger sawClosed = new AtomicInteger();
        KernelException thrown = assertThrows(KernelException.class,
                () -> new ThreadedRunner(failing, 1, 4, "/store", "inline-fails").start(ctx -> {
                    try (dev.lockstep.Blob blob = ctx.open("p", "b").await().blob()) {
                        blob.writeAt(0, new byte[] {7}).await();
                        failing.failNextEnters.set(1);
                        try {
                            // Completes at submission: the fiber turns the ring itself, and that enter throws.
                            blob.readAt(0, 1).await();
                        } catch (ClosedException aborted) {
                            sawClosed.incrementAndGet();
                            throw aborted;
                        }
                    }
                    return null;
                }));
        assertTrue(thrown.getMessage().contains("injected failure 1"), thrown.getMessage());
        assertEquals(1, failing.thrownInFibers.get(), "the enter that failed was the fiber's own");
        assertEquals(0, thrown.getSuppressed().length, "one failure, nothing else went wrong");
        assertEquals(1, sawClosed.get(), "the fiber saw its worker close, not the ring's exception");
    }

    @Test
    @Timeout(20)
    void aRingThatKeepsFailingIsAbandonedAndEveryFailureIsReported() {
        EnterFailingKernel failing = new EnterFailingKernel(kernel);
        ScriptedRequest inFlight = new ScriptedRequest("stuck receive", false);
        KernelException thrown = assertThrows(KernelException.class,
                () -> new ThreadedRunner(failing, 1, 4, null, "enter-always").start(ctx -> {
                    Registration<Integer> waiting = Support.register(inFlight);
                    kernel.awaitPending(p -> p.id().equals(waiting.key()));
                    failing.failNextEnters.set(Integer.MAX_VALUE);
                    Worker.current().nudge();
                    assertThrows(ClosedException.class, waiting::await);
                    // The retired worker refuses new work instead of hanging it.
                    Registration<Integer> refused = Support.register(new ScriptedRequest("late", false));
                    assertThrows(ClosedException.class, refused::await);
                    return null;
                }));
        assertTrue(thrown.getMessage().contains("injected failure 1"), thrown.getMessage());
        assertEquals(1, thrown.getSuppressed().length, "the failed orderly retirement is suppressed in the first");
        assertInstanceOf(KernelException.class, thrown.getSuppressed()[0]);
        assertEquals(1, inFlight.releases.get(), "released once although its ring could not be drained");
    }

    @Test
    @Timeout(20)
    void laterFailuresAreSuppressedInTheFirst() {
        RuntimeException first = new IllegalStateException("first");
        RuntimeException second = new IllegalStateException("second");
        RuntimeException thrown = assertThrows(IllegalStateException.class,
                () -> new ThreadedRunner(kernel, 1, 4, null, "two").start(ctx -> {
                    Engine engine = Worker.current().engine();
                    engine.fail(first);
                    engine.fail(second);
                    engine.fail(first);
                    return null;
                }));
        assertSame(first, thrown);
        assertEquals(1, thrown.getSuppressed().length);
        assertSame(second, thrown.getSuppressed()[0]);
    }
}
