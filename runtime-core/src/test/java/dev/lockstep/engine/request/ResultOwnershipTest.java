package dev.lockstep.engine.request;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.lockstep.Blob;
import dev.lockstep.ClosedException;
import dev.lockstep.OpenedBlob;
import dev.lockstep.Waker;
import dev.lockstep.engine.ScriptedKernel;
import dev.lockstep.engine.Support;
import dev.lockstep.engine.ThreadedRunner;
import dev.lockstep.engine.worker.Worker;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Results own their resources until observed, in the driver itself: a completed result holding a blob that
 * nobody takes is closed when its operation is closed, when its forwarded receiver goes away, and when its
 * worker retires; and a completion that arrives after the cancellation of its closed operation was submitted
 * (the cancel lost the race) is handed to the request to drop. Before, each of these dropped the result
 * without closing what it held (for an accept: the accepted socket).
 */
@Timeout(20)
class ResultOwnershipTest {
    private final ScriptedKernel kernel = new ScriptedKernel();

    /** A blob whose only behaviour is counting closes (a proxy, so the test does not track Blob's methods). */
    private static final class CountingBlob {
        final AtomicInteger closes = new AtomicInteger();
        final Blob blob = (Blob) java.lang.reflect.Proxy.newProxyInstance(Blob.class.getClassLoader(),
                new Class<?>[] {Blob.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "close" -> {
                        closes.incrementAndGet();
                        yield null;
                    }
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> "CountingBlob";
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    /** A ring request whose success is an opened blob, and which records a completion it was told to drop. */
    private static final class OpeningRequest extends Request {
        final CountingBlob blob = new CountingBlob();
        final AtomicInteger dropped = new AtomicInteger(Integer.MIN_VALUE);

        @Override
        public Kind kind() {
            return Kind.RING;
        }

        @Override
        public void prepare(Submission submission, Ring ring) {
            submission.opcode = Opcode.ACCEPT;
            submission.fd = 3;
        }

        @Override
        public boolean complete(int result) {
            return succeed(new OpenedBlob(blob.blob, result));
        }

        @Override
        public void dropCompletion(int result) {
            dropped.set(result);
        }

        @Override
        public String describe() {
            return "opening request";
        }
    }

    private ThreadedRunner runner() {
        return new ThreadedRunner(kernel, 1, 4, null, "results");
    }

    @Test
    void aCompletedResultNobodyTookIsClosedWithItsOperation() {
        OpeningRequest request = new OpeningRequest();
        runner().start(ctx -> {
            Registration<OpenedBlob> operation = Support.register(request);
            kernel.complete(kernel.awaitPending(p -> p.id().equals(operation.key())), 1);
            Support.serviceUntil("the completion is reaped", () -> Worker.current().admitted() == 1
                    && kernel.pending().isEmpty());
            Support.turns(3);
            operation.close();
            Support.serviceUntil("the dropped blob is closed", () -> request.blob.closes.get() == 1);
            return null;
        });
        assertEquals(1, request.blob.closes.get());
    }

    @Test
    void aTakenResultIsTheTakersAndIsNotClosed() {
        OpeningRequest request = new OpeningRequest();
        runner().start(ctx -> {
            Registration<OpenedBlob> operation = Support.register(request);
            kernel.complete(kernel.awaitPending(p -> p.id().equals(operation.key())), 1);
            OpenedBlob opened = operation.await();
            operation.close();
            Support.turns(3);
            assertEquals(0, request.blob.closes.get(), "the taker owns " + opened.blob());
            return null;
        });
        assertEquals(0, request.blob.closes.get());
    }

    @Test
    void aResultForwardedToAReceiverThatWentAwayIsClosed() {
        OpeningRequest request = new OpeningRequest();
        runner().start(ctx -> {
            Registration<OpenedBlob> operation = Support.register(request);
            assertFalse(Support.pollOnForeignThread(operation, Waker.noop()).isReady());
            kernel.complete(kernel.awaitPending(p -> p.id().equals(operation.key())), 1);
            // The result went to the forwarded channel (its slot retired); the foreign party never takes it.
            Support.serviceUntil("the result was forwarded", () -> Worker.current().admitted() == 0);
            assertEquals(0, request.blob.closes.get());
            Support.onPlainThread(operation::close);
            Support.serviceUntil("the dropped blob is closed", () -> request.blob.closes.get() == 1);
            return null;
        });
        assertEquals(1, request.blob.closes.get());
    }

    @Test
    void aCompletedResultLeftWhenTheWorkerRetiresIsClosed() {
        OpeningRequest request = new OpeningRequest();
        AtomicReference<Registration<OpenedBlob>> escaped = new AtomicReference<>();
        runner().start(ctx -> {
            Registration<OpenedBlob> operation = Support.register(request);
            kernel.complete(kernel.awaitPending(p -> p.id().equals(operation.key())), 1);
            Support.serviceUntil("the completion is reaped", () -> kernel.pending().isEmpty());
            Support.turns(3);
            escaped.set(operation);
            return null;
        });
        assertEquals(1, request.blob.closes.get(), "retirement closed the unobserved blob");
        assertThrows(ClosedException.class, escaped.get()::await);
    }

    @Test
    void aCompletionThatBeatItsCancellationIsDropped() {
        OpeningRequest request = new OpeningRequest();
        runner().start(ctx -> {
            Registration<OpenedBlob> operation = Support.register(request);
            ScriptedKernel.Pending pending = kernel.awaitPending(p -> p.id().equals(operation.key()));
            // Without a service turn in between: the request is closed (its cancel queued), and then the kernel
            // completes it before the cancel is submitted — as an accept that won the race.
            operation.close();
            kernel.complete(pending, 42);
            Support.serviceUntil("the request retired", () -> Worker.current().admitted() == 0);
            return null;
        });
        assertEquals(42, request.dropped.get(), "the request was told to drop what the kernel made");
        assertEquals(0, request.blob.closes.get(), "no result was ever made of it");
    }
}
