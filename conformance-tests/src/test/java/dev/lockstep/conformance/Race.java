package dev.lockstep.conformance;

import dev.lockstep.Operation;
import dev.lockstep.Poll;
import dev.lockstep.Waker;
import java.util.concurrent.locks.LockSupport;

/**
 * The Java form of Rust's biased {@code select!} over operations: polls them in order and returns the first
 * that is ready, parking the calling fiber (an untimed park, woken only by the operations' wakers — the same
 * wait {@code await} makes) until one is. The others are left as they are: still registered, their results
 * kept, so a loop that re-polls an unchosen operation loses nothing.
 */
final class Race {
    private Race() {
    }

    /** A ready operation and its outcome. */
    record Winner<T>(int index, Poll<T> poll) {
    }

    /**
     * Waits until one of {@code operations} is ready.
     *
     * @param operations polled in this order; the first ready wins
     * @return the winner's index and outcome (consumed)
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static Winner<Object> first(Operation<?>... operations) {
        Thread self = Thread.currentThread();
        Waker waker = new Waker() {
            @Override
            public void wake() {
                LockSupport.unpark(self);
            }

            @Override
            public boolean willWake(Waker other) {
                return other == this;
            }
        };
        while (true) {
            for (int i = 0; i < operations.length; i++) {
                Poll poll = operations[i].poll(waker);
                if (poll.isReady()) {
                    return new Winner<>(i, poll);
                }
            }
            LockSupport.park(operations);
        }
    }
}
