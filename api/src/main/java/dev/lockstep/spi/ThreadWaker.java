package dev.lockstep.spi;

import dev.lockstep.Waker;
import java.util.concurrent.locks.LockSupport;

/**
 * Unparks one plain thread: the waker of {@link Awaiter#parkThread}. Any two wakers of the same thread are
 * equivalent ({@link #willWake}), so an operation that stored one from an earlier wait of the thread does not list
 * a second copy for a later wait.
 *
 * @param thread the thread to unpark
 */
record ThreadWaker(Thread thread) implements Waker {
    @Override
    public void wake() {
        LockSupport.unpark(thread);
    }

    @Override
    public boolean willWake(Waker other) {
        return other instanceof ThreadWaker(Thread otherThread) && otherThread == thread;
    }
}
