package dev.lockstep.sync;

import dev.lockstep.AbortedException;
import dev.lockstep.Operation;
import dev.lockstep.Poll;
import dev.lockstep.Waker;
import dev.lockstep.spi.Awaiter;
import java.util.ServiceLoader;
import java.util.concurrent.locks.LockSupport;

/**
 * Finds the runtime's {@link Awaiter} once. Without a runtime on the class path (a plain unit test of a data
 * structure) an operation is awaited by parking the calling thread, woken by the operation's waker, and an
 * interrupt ends the wait as on a plain thread with a runtime ({@link Operation#await()}).
 */
final class Awaiting {
    private static final Awaiter AWAITER = load();

    private Awaiting() {
    }

    private static Awaiter load() {
        for (Awaiter found : ServiceLoader.load(Awaiter.class, Awaiter.class.getClassLoader())) {
            return found;
        }
        return Awaiting::parkThread;
    }

    static <T> T await(Operation<T> operation) {
        return AWAITER.await(operation);
    }

    private static <T> T parkThread(Operation<T> operation) {
        Thread thread = Thread.currentThread();
        Waker waker = new Waker() {
            @Override
            public void wake() {
                LockSupport.unpark(thread);
            }

            @Override
            public boolean willWake(Waker other) {
                return other == this;
            }
        };
        while (true) {
            Poll<T> poll = operation.poll(waker);
            if (poll.isReady()) {
                return poll.get();
            }
            // Checked before each park, which returns at once while the status is set: never a spin.
            if (thread.isInterrupted()) {
                operation.close();
                throw new AbortedException(thread + " was interrupted while awaiting " + operation
                        + ": the operation is closed");
            }
            LockSupport.park(operation);
        }
    }
}
