package dev.lockstep.engine.request;

import static dev.lockstep.engine.Support.register;
import static dev.lockstep.engine.Support.serviceUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.ClosedException;
import dev.lockstep.Operation;
import dev.lockstep.Poll;
import dev.lockstep.Waker;
import dev.lockstep.engine.ModelCheckingTest;
import dev.lockstep.engine.ScriptedKernel;
import dev.lockstep.engine.ScriptedRequest;
import dev.lockstep.engine.Support;
import dev.lockstep.engine.ThreadedRunner;
import dev.lockstep.engine.worker.Worker;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The engine's bookkeeping where two parties meet: a detached sync's result delivered once, no Cancel for a
 * slot a forwarded result retired, generations that never wrap into a live slot. (A connection's sides closing
 * together, and the sink's shutdown, are model-checked in {@link ModelCheckingTest}.)
 */
class BookkeepingTest {
    private final ScriptedKernel kernel = new ScriptedKernel();

    /** A startSync handle delivers its result to one poll only, and nothing after close(). */
    @Test
    void aStartSyncHandleDeliversItsResultOnce() {
        kernel.autoCompleteFiles();
        new ThreadedRunner(kernel, 1, 4, "/store", "detached").start(ctx -> {
            Blob blob = ctx.open("data", "once").await().blob();
            blob.writeAt(0, new byte[] {1}).await();
            Operation<Void> handle = blob.startSync();
            serviceUntil("the sync completed", () -> handle.poll(Waker.noop()).isReady());
            Poll<Void> again = handle.poll(Waker.noop());
            assertTrue(again.isReady());
            assertThrows(ClosedException.class, again::get, "a second poll does not hand the result back");

            Operation<Void> closed = blob.startSync();
            assertNull(blob.sync().await(), "a later sync completes, so the detached one did too");
            closed.close();
            Poll<Void> afterClose = closed.poll(Waker.noop());
            assertTrue(afterClose.isReady());
            assertThrows(ClosedException.class, afterClose::get, "a closed handle delivers nothing");
            blob.close();
            return null;
        });
    }

    /**
     * An operation polled from a plain thread (its result forwarded to a channel) and closed after the result
     * arrived sends no Cancel: the forwarded result already retired the slot, and its index may name a new
     * request by now.
     */
    @Test
    void closingAForwardedOperationWhoseResultArrivedSendsNoCancel() {
        new ThreadedRunner(kernel, 1, 4, null, "forwarded").start(ctx -> {
            Worker worker = Worker.current();
            Registration<Integer> op = register(new ScriptedRequest("forwarded", false));
            ScriptedKernel.Pending pending = kernel.awaitPending(p -> p.id().equals(op.key()));
            AtomicBoolean woken = new AtomicBoolean();
            assertFalse(Support.onPlainThread(() -> op.poll(() -> woken.set(true))).isReady());
            kernel.complete(pending, 3);
            serviceUntil("the forwarded result arrived", woken::get);
            boolean cancelSent = Support.onForeignThreadBlockingWorker(() -> {
                op.close();
                return !worker.mailbox().isEmpty();
            });
            assertFalse(cancelSent, "close sent a Cancel for a retired slot");
            assertEquals(0, worker.admitted());
            return null;
        });
    }

    /**
     * Released indices are reused oldest first, and an index whose generation is used up is never reused, so
     * an old id cannot come back to life by wrapping.
     */
    @Test
    void slotsAreReusedOldestFirstAndRetiredBeforeTheirGenerationWraps() {
        new ThreadedRunner(kernel, 1, 4, null, "generations").start(ctx -> {
            Worker worker = Worker.current();
            Registration<Integer> first = register(new ScriptedRequest("first", false));
            Registration<Integer> second = register(new ScriptedRequest("second", false));
            first.close();
            second.close();
            serviceUntil("both retired", () -> worker.admitted() == 0);
            Registration<Integer> reuse = register(new ScriptedRequest("reuse", false));
            assertEquals(first.key().index(), reuse.key().index(), "the index released first is reused first");
            reuse.close();
            serviceUntil("retired", () -> worker.admitted() == 0);

            Driver driver = worker.borrow();
            try {
                driver.ageFreeSlots(WaiterId.MAX_GENERATION);
            } finally {
                worker.unborrow();
            }
            Registration<Integer> last = register(new ScriptedRequest("last generation", false));
            WaiterId lastId = last.key();
            assertEquals(WaiterId.MAX_GENERATION, lastId.generation());
            last.close();
            serviceUntil("retired", () -> worker.admitted() == 0);
            for (int i = 0; i < 4; i++) {
                Registration<Integer> next = register(new ScriptedRequest("after " + i, false));
                assertNotEquals(lastId.index(), next.key().index(), "an exhausted index is never reused");
                next.close();
                serviceUntil("retired", () -> worker.admitted() == 0);
            }
            return null;
        });
    }
}
