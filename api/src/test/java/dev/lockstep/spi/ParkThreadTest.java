package dev.lockstep.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Operation;
import dev.lockstep.Poll;
import dev.lockstep.Waker;
import org.junit.jupiter.api.Test;

class ParkThreadTest {
    /** Ready on its first poll; keeps the waker that poll was given. */
    private static final class Recording implements Operation<Integer> {
        volatile Waker waker;

        @Override
        public Poll<Integer> poll(Waker given) {
            waker = given;
            return Poll.ready(7);
        }

        @Override
        public Integer await() {
            return Awaiter.parkThread(this);
        }

        @Override
        public void close() {
        }
    }

    /**
     * An operation that keeps the waker of one wait of a thread (an interrupted one, say) must see the waker of the
     * thread's next wait as equivalent, or it lists a second copy; a waker of another thread is not equivalent.
     */
    @Test
    void theWakersOfOneThreadsWaitsAreEquivalentAndAnotherThreadsAreNot() throws InterruptedException {
        Recording first = new Recording();
        Recording second = new Recording();
        Recording elsewhere = new Recording();
        assertEquals(7, Awaiter.parkThread(first));
        assertEquals(7, Awaiter.parkThread(second));
        Thread other = Thread.ofPlatform().start(() -> Awaiter.parkThread(elsewhere));
        other.join();
        assertTrue(first.waker.willWake(second.waker), "two waits of one thread polled with unequivalent wakers");
        assertTrue(second.waker.willWake(first.waker));
        assertFalse(first.waker.willWake(elsewhere.waker), "a waker of another thread was taken as this thread's");
        assertFalse(first.waker.willWake(() -> { }));
    }
}
