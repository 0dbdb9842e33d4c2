package dev.lockstep.engine.request;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.ClosedException;
import dev.lockstep.Operation;
import dev.lockstep.Poll;
import dev.lockstep.Waker;
import dev.lockstep.engine.ScriptedKernel;
import dev.lockstep.engine.ThreadedRunner;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A poll installs its waker in two steps: it checks the state, lets the monitor (or the worker's borrow) go while
 * {@link Waker#retain()} runs, then installs the retained copy. A close that lands in that gap finds no waker to
 * wake; the install must see the close and report it, or the poller parks for good. (On runtime-uring this was a
 * fiber awaiting an operation of another worker that a plain thread closed: one in a few thousand rounds of
 * {@code UringFailureSoakTest} hung.) Each test puts the close exactly in the gap, from the retain callback.
 */
class CloseDuringRetainTest {

    /** A waker whose retain runs {@code duringRetain} first, and that counts its wakes and releases. */
    private static final class GapWaker implements Waker {
        private final Runnable duringRetain;
        final AtomicInteger wakes = new AtomicInteger();
        final AtomicInteger releases = new AtomicInteger();

        GapWaker(Runnable duringRetain) {
            this.duringRetain = duringRetain;
        }

        @Override
        public void wake() {
            wakes.incrementAndGet();
        }

        @Override
        public Waker retain() {
            duringRetain.run();
            return this;
        }

        @Override
        public void release() {
            releases.incrementAndGet();
        }
    }

    private static void onOtherThread(Runnable body) {
        Thread thread = Thread.ofPlatform().name("closer").start(body);
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Test
    void receiverClosedByAnotherThreadWhileTheWakerIsRetained() {
        ResultChannel<Object> channel = new ResultChannel<>("closed");
        GapWaker waker = new GapWaker(() -> onOtherThread(channel::closeReceiver));

        Poll<Object> poll = channel.take(waker);

        assertTrue(poll.isReady(), "the poll sees the close that ran while its waker was retained");
        assertThrows(ClosedException.class, poll::get);
        assertEquals(1, waker.releases.get(), "the retained copy nobody will wake is released");
        assertEquals(0, waker.wakes.get());
    }

    @Test
    void valueSentByAnotherThreadWhileTheWakerIsRetained() {
        ResultChannel<Object> channel = new ResultChannel<>("closed");
        GapWaker waker = new GapWaker(() -> onOtherThread(() -> channel.send(Poll.ready("sent"))));

        Poll<Object> poll = channel.take(waker);

        assertTrue(poll.isReady());
        assertEquals("sent", poll.get());
        assertEquals(1, waker.releases.get());
    }

    @Test
    void operationClosedOnItsOwnerWhileTheWakerIsRetained() {
        ThreadedRunner runner = new ThreadedRunner(new ScriptedKernel(), 1, 8, null, "retain-gap");
        boolean closedSeen = runner.start(ctx -> {
            Operation<Void> sleep = ctx.sleeper(Duration.ofHours(1));
            GapWaker waker = new GapWaker(sleep::close);
            Poll<Void> poll = sleep.poll(waker);
            assertEquals(0, waker.wakes.get());
            return poll.isReady() && failsClosed(poll);
        });
        assertTrue(closedSeen, "a close inside retain() reads as closed, not as pending forever");
    }

    private static boolean failsClosed(Poll<?> poll) {
        try {
            poll.get();
            return false;
        } catch (ClosedException expected) {
            return true;
        }
    }
}
