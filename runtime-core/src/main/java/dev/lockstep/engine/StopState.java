package dev.lockstep.engine;

import dev.lockstep.Signal;

/**
 * The runtime's stop state: the first stop code, the number of open signals, and who waits on either.
 * Thread-safe; waiters are woken outside the monitor.
 */
final class StopState {
    private Integer code;
    private int holders;
    private final WaitList stopped = new WaitList();
    private final WaitList drained = new WaitList();

    Signal signal() {
        synchronized (this) {
            holders++;
        }
        return new Holder();
    }

    /** Records the code (first wins) and wakes every signal waiter. */
    void stop(int value) {
        synchronized (this) {
            if (code == null) {
                code = value;
            }
        }
        stopped.wakeAll();
    }

    synchronized boolean drained() {
        return holders == 0;
    }

    WaitList drainedList() {
        return drained;
    }

    synchronized Integer code() {
        return code;
    }

    private void release() {
        boolean last;
        synchronized (this) {
            holders--;
            last = holders == 0;
        }
        if (last) {
            drained.wakeAll();
        }
    }

    private final class Holder implements Signal {
        private boolean closed;

        @Override
        public int await() {
            Fibers.awaitUntil(() -> code() != null, stopped);
            return code();
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
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
            }
            release();
        }
    }

    /** The stop as an operation: ready with the code once stop is signalled; woken through the stop wait list. */
    private final class Stopped implements dev.lockstep.Operation<Integer> {
        private final WaitList.Condition condition = new WaitList.Condition(() -> code() != null, stopped);

        @Override
        public dev.lockstep.Poll<Integer> poll(dev.lockstep.Waker waker) {
            dev.lockstep.Poll<Void> poll = condition.poll(waker);
            return poll.isReady() ? dev.lockstep.Poll.ready(code()) : dev.lockstep.Poll.pending();
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
