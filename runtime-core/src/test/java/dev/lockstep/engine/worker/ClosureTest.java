package dev.lockstep.engine.worker;

import static dev.lockstep.engine.Support.pollOnForeignThread;
import static dev.lockstep.engine.Support.register;
import static dev.lockstep.engine.Support.serviceUntil;
import static dev.lockstep.engine.Support.turns;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Reentrant;
import dev.lockstep.Blob;
import dev.lockstep.ClosedException;
import dev.lockstep.Operation;
import dev.lockstep.Poll;
import dev.lockstep.Waker;
import dev.lockstep.engine.BoundedWait;
import dev.lockstep.engine.ScriptedKernel;
import dev.lockstep.engine.ScriptedRequest;
import dev.lockstep.engine.Support;
import dev.lockstep.engine.ThreadedRunner;
import dev.lockstep.engine.io.DurabilityPermit;
import dev.lockstep.engine.io.EngineBlob;
import dev.lockstep.engine.request.Registration;
import dev.lockstep.kernel.Opcode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * ARCHITECTURE.md §3.6: a runner shutting down with work in every state at once retires every request, answers every
 * forwarded and detached receiver, waits for retained work in flight, and leaves no ring, fd or waker behind.
 */
class ClosureTest {
    private final ScriptedKernel kernel = new ScriptedKernel();

    /** What escapes the root, to be observed after {@code start} returned. */
    private record Escaped(List<Operation<?>> local, Registration<Integer> forwardedPending,
                           Registration<Integer> forwardedCompleted, Operation<Void> detachedWaiting,
                           Blob dirty, Blob clean, Worker worker) {
    }

    private ScriptedKernel.Pending submitted(Registration<?> op) {
        return kernel.awaitPending(p -> p.id().equals(op.key()));
    }

    @Test
    void shutdownWithWorkInEveryStateReleasesEverything() throws Exception {
        // File I/O completes at once; the scripted requests (fd 7) wait for the test.
        kernel.autoComplete(p -> p.fd() == 7 ? Integer.MIN_VALUE : kernel.files.execute(p));
        Reentrant callbacks = new Reentrant(Support::criticalSection);
        Reentrant foreign = new Reentrant(Support::criticalSection);
        List<ScriptedRequest> requests = new ArrayList<>();
        CountDownLatch rootReturned = new CountDownLatch(1);
        AtomicBoolean startReturned = new AtomicBoolean();
        AtomicBoolean closureWaitedForTheWrite = new AtomicBoolean();
        AtomicReference<ScriptedKernel.Pending> retainedWrite = new AtomicReference<>();
        AtomicReference<Worker> closing = new AtomicReference<>();

        // Completes the retained write only once the worker is closing and has since waited in its ring, with
        // nothing left to do but that write: start must not return before it.
        dev.lockstep.Turns.Started finisher = Support.startPlain(() -> {
            try {
                assertTrue(rootReturned.await(10, TimeUnit.SECONDS));
                Worker worker = closing.get();
                var ring = (ScriptedKernel.ScriptedRing) worker.ring();
                BoundedWait.parking("the worker began closing", () -> worker.isClosing() || startReturned.get());
                int waitsWhenClosing = ring.waits.get();
                BoundedWait.parking("the closing worker waited in its ring",
                        () -> ring.waits.get() != waitsWhenClosing || startReturned.get());
                closureWaitedForTheWrite.set(!startReturned.get());
                kernel.complete(retainedWrite.get(), 1);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });

        Escaped escaped = new ThreadedRunner(kernel, 1, 2, "/store", "closure").start(ctx -> {
            Worker worker = Worker.current();
            closing.set(worker);
            Blob dirty = ctx.open("closure", "dirty").await().blob();
            Blob clean = ctx.open("closure", "clean").await().blob();
            dirty.writeAt(0, "x".getBytes(StandardCharsets.UTF_8)).await();

            // Completed, unobserved.
            Registration<Integer> completed = track(requests, "completed", false);
            assertFalse(completed.poll(callbacks.waker()).isReady());
            kernel.complete(submitted(completed), 1);
            serviceUntil("completion reaped", () -> callbacks.wakes() == 1);

            // Forwarded, then completed: the result waits in the receiver's channel.
            Registration<Integer> forwardedCompleted = track(requests, "forwarded completed", false);
            ScriptedKernel.Pending fcPending = submitted(forwardedCompleted);
            assertFalse(pollOnForeignThread(forwardedCompleted, foreign.waker()).isReady());
            turns(2);
            kernel.complete(fcPending, 43);
            serviceUntil("forwarded result sent", () -> foreign.wakes() == 1);

            // In flight: a cancellable receive and a retained write fill the ring of two.
            Registration<Integer> inFlight = track(requests, "in flight", false);
            assertFalse(inFlight.poll(callbacks.waker()).isReady());
            submitted(inFlight);
            Registration<Integer> write = track(requests, "retained write", true);
            assertFalse(write.poll(callbacks.waker()).isReady());
            retainedWrite.set(submitted(write));

            // Queued behind the full ring, one observed locally and one forwarded and promoted.
            Registration<Integer> queued = track(requests, "queued", false);
            assertFalse(queued.poll(callbacks.waker()).isReady());
            Registration<Integer> forwardedPending = track(requests, "forwarded pending", false);
            assertFalse(pollOnForeignThread(forwardedPending, foreign.waker()).isReady());
            turns(2);

            // A timer.
            Operation<Void> timer = ctx.sleeper(Duration.ofHours(1));
            assertFalse(timer.poll(callbacks.waker()).isReady());

            // A sync waiting for the permit, which the test holds, and a detached sync waiting behind it.
            DurabilityPermit permit = ((EngineBlob) dirty).permit();
            assertTrue(permit.tryAcquire());
            Operation<Void> waitingSync = dirty.sync();
            assertFalse(waitingSync.poll(callbacks.waker()).isReady());
            Operation<Void> detachedWaiting = dirty.startSync();
            assertFalse(detachedWaiting.poll(callbacks.waker()).isReady());
            // A detached sync of another open that completes (clean: without the kernel) before shutdown.
            Operation<Void> detachedDone = clean.startSync();
            serviceUntil("clean detached sync done", () -> detachedDone.poll(Waker.noop()).isReady());
            // A detached sync whose handle was closed at once: it still belongs to the worker.
            Operation<Void> dropped = clean.startSync();
            dropped.close();

            // completed, in flight, write, queued, forwarded pending, timer, waiting sync, detached waiting.
            assertEquals(8, worker.admitted());
            rootReturned.countDown();
            return new Escaped(List.of(completed, inFlight, write, queued, timer, waitingSync), forwardedPending,
                    forwardedCompleted, detachedWaiting, dirty, clean, worker);
        });
        startReturned.set(true);
        Support.joinYielding(finisher);

        assertTrue(closureWaitedForTheWrite.get(), "start returned before the retained write completed");
        assertTrue(escaped.worker().isRetired());
        assertTrue(((ScriptedKernel.ScriptedRing) escaped.worker().ring()).isClosed(), "the ring was closed");
        for (ScriptedRequest request : requests) {
            assertEquals(1, request.releases.get(), request.name + " released exactly once");
        }
        assertTrue(kernel.pending().isEmpty(), "nothing left in the kernel: " + kernel.pending());

        // Every escaped local operation observes closure, whatever its state was.
        for (Operation<?> op : escaped.local()) {
            Poll<?> poll = op.poll(Waker.noop());
            assertTrue(poll.isReady(), op.toString());
            assertThrows(ClosedException.class, poll::get, op.toString());
        }
        // Forwarded receivers: the completed result survives; the pending one observes closure.
        assertEquals(43, escaped.forwardedCompleted().await());
        assertThrows(ClosedException.class, escaped.forwardedPending()::await);
        // A detached receiver whose sync never ran observes closure.
        assertThrows(ClosedException.class, escaped.detachedWaiting()::await);

        callbacks.assertBalanced();
        foreign.assertBalanced();

        // Blobs closed after the runtime: every fd is gone (the requests released theirs at retirement).
        escaped.dirty().close();
        escaped.clean().close();
        assertEquals(0, kernel.files.openCount());
    }

    private static Registration<Integer> track(List<ScriptedRequest> requests, String name, boolean retained) {
        ScriptedRequest request = new ScriptedRequest(name, retained);
        requests.add(request);
        return register(request);
    }

    /**
     * A closing worker resolves pending polls to Closed without retaining their wakers, refuses new requests and
     * publishes Closed to a detached sync started on it (seed: test_worker_closure_rejects_registration_and_polling).
     */
    @Test
    void startSyncOnAClosingWorkerPublishesClosed() {
        kernel.autoCompleteFiles();
        new ThreadedRunner(kernel, 1, 1, "/store", "closure").start(ctx -> {
            Worker worker = Worker.current();
            Blob blob = ctx.open("closing", "blob").await().blob();
            blob.writeAt(0, new byte[] {1}).await();
            Registration<Integer> pending = register(new ScriptedRequest("pending", false));
            worker.markClosing();
            // Pending polls resolve to Closed without retaining the waker; new work is refused.
            Reentrant callbacks = new Reentrant(Support::criticalSection);
            assertThrows(ClosedException.class, () -> pending.poll(callbacks.waker()).get());
            assertEquals(0, callbacks.retainCalls());
            assertThrows(ClosedException.class, () -> blob.startSync().await());
            assertThrows(ClosedException.class, () -> blob.sync().await());
            assertThrows(ClosedException.class, () -> blob.readAt(0, 1).await());
            assertEquals(0, worker.admitted());
            blob.close();
            return null;
        });
        assertEquals(0, kernel.files.openCount());
    }

    /** A detached sync whose handle was closed still runs to completion: the fsync reaches the kernel. */
    @Test
    void droppedStartSyncStillSyncs() {
        kernel.autoCompleteFiles();
        new ThreadedRunner(kernel, 1, 1, "/store", "closure").start(ctx -> {
            Worker worker = Worker.current();
            Blob blob = ctx.open("dropped", "blob").await().blob();
            blob.writeAt(0, new byte[] {1, 2, 3}).await();
            int fsyncs = kernel.files.fsyncs;
            blob.startSync().close();
            serviceUntil("the sync ran", () -> worker.admitted() == 0);
            assertEquals(fsyncs + 1, kernel.files.fsyncs);
            // It made the open clean: the next sync needs no fsync.
            assertNull(blob.sync().await());
            assertEquals(fsyncs + 1, kernel.files.fsyncs);
            blob.close();
            return null;
        });
        assertTrue(kernel.pending().stream().noneMatch(p -> p.opcode() == Opcode.FSYNC));
    }
}
