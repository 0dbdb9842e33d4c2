package dev.lockstep.engine.task;

import dev.lockstep.engine.Engine;
import dev.lockstep.sync.FiberSafeLock;
import dev.lockstep.Signal;

/**
 * The runtime's stop state: the first stop code, the number of open signals, and who waits on either.
 * Thread-safe; waiters are woken outside the lock (a {@link FiberSafeLock}: see there why not a
 * monitor).
 */
public final class StopState {
    /** Guards code, holders and each holder's closed flag. */
    private final FiberSafeLock lock = new FiberSafeLock();
    private Integer code;
    private int holders;
    /**
     * Set once the run is over ({@link Engine#endRun}: every fiber has finished, after the aborted ones ran their
     * finally blocks): no holder left can close its signal any more, so waits for a drain or a stop that has not
     * come end with ClosedException.
     */
    private boolean shutDown;
    private final WaitList stopped = new WaitList();
    private final WaitList drained = new WaitList();

    public Signal signal() {
        lock.lock();
        try {
            holders++;
        } finally {
            lock.unlock();
        }
        return new Holder();
    }

    /** Records the code (first wins) and wakes every signal waiter. */
    public void stop(int value) {
        lock.lock();
        try {
            if (code == null) {
                code = value;
            }
        } finally {
            lock.unlock();
        }
        stopped.wakeAll();
    }

    /** Ends every wait on this state that can no longer be satisfied: the run is over. */
    public void shutDown() {
        lock.lock();
        try {
            shutDown = true;
        } finally {
            lock.unlock();
        }
        stopped.wakeAll();
        drained.wakeAll();
    }

    public boolean isShutDown() {
        lock.lock();
        try {
            return shutDown;
        } finally {
            lock.unlock();
        }
    }

    /** Whether a stop wait is over: drained, or the run ended (the caller then checks {@link #drained()}). */
    public boolean drainedOrShutDown() {
        lock.lock();
        try {
            return holders == 0 || shutDown;
        } finally {
            lock.unlock();
        }
    }

    private boolean stoppedOrShutDown() {
        lock.lock();
        try {
            return code != null || shutDown;
        } finally {
            lock.unlock();
        }
    }

    private Integer codeOrClosed() {
        Integer value = code();
        if (value == null) {
            throw new dev.lockstep.ClosedException("the runtime shut down before stop was signalled");
        }
        return value;
    }

    public boolean drained() {
        lock.lock();
        try {
            return holders == 0;
        } finally {
            lock.unlock();
        }
    }

    public WaitList drainedList() {
        return drained;
    }

    public Integer code() {
        lock.lock();
        try {
            return code;
        } finally {
            lock.unlock();
        }
    }

    private void release() {
        boolean last;
        lock.lock();
        try {
            holders--;
            last = holders == 0;
        } finally {
            lock.unlock();
        }
        if (last) {
            drained.wakeAll();
        }
    }

    private final class Holder implements Signal {
        private boolean closed;

        @Override
        public int await() {
            Fibers.awaitUntil(StopState.this::stoppedOrShutDown, stopped);
            return codeOrClosed();
        }

        @Override
        public Integer poll() {
            return code();
        }

        @Override
        public dev.lockstep.Operation<Integer> asOperation() {
            return new Stopped();
        }

        @Override
        public void close() {
            lock.lock();
            try {
                if (closed) {
                    return;
                }
                closed = true;
            } finally {
                lock.unlock();
            }
            release();
        }
    }

    /** The stop as an operation: ready with the code once stop is signalled; woken through the stop wait list. */
    private final class Stopped implements dev.lockstep.Operation<Integer> {
        private final WaitList.Condition condition = new WaitList.Condition(StopState.this::stoppedOrShutDown,
                stopped);

        @Override
        public dev.lockstep.Poll<Integer> poll(dev.lockstep.Waker waker) {
            dev.lockstep.Poll<Void> poll = condition.poll(waker);
            if (!poll.isReady()) {
                return dev.lockstep.Poll.pending();
            }
            Integer value = code();
            return value != null ? dev.lockstep.Poll.ready(value)
                    : dev.lockstep.Poll.failed(new dev.lockstep.ClosedException("the runtime shut down before stop"
                            + " was signalled"));
        }

        @Override
        public Integer await() {
            return Fibers.await(this);
        }

        @Override
        public void close() {
            condition.close();
        }
    }
}
