package dev.lockstep.engine.request;

import dev.lockstep.sync.FiberSafeLock;
import dev.lockstep.ClosedException;
import dev.lockstep.Poll;
import dev.lockstep.Waker;

/**
 * A single-value channel between threads: one sender publishes a value (or closes without one), one
 * receiver polls it with a waker.
 *
 * <p>Invariants: the outcome is set at most once; a retained receiver waker is woken exactly once when the
 * outcome is set, or when the receiver closes (unless it is the closer's own, which is released), or released
 * when the receiver replaces it. Waker callbacks always run outside the lock, so they may re-enter this
 * channel or anything else. The lock is held only for a few field writes, never across a callback or a
 * wait. It is a {@link FiberSafeLock}, not a monitor: a worker's service turn sends into channels that fibers
 * of the same worker poll, and a fiber queued on a monitor its own carrier then contends would wedge both.
 *
 * <p>Results own their resources until observed: a value {@link #take taken} belongs to the taker; a value
 * sent after the receiver closed, or still untaken when it closes, is closed here ({@link Results#dispose}).
 * Whether a value was taken is decided under the lock, so a take racing a close hands the value to exactly
 * one of them.
 *
 * @param <T> the value
 */
public final class ResultChannel<T> {
    /** Guards every field below. */
    private final FiberSafeLock lock = new FiberSafeLock();
    private Poll<T> outcome;
    private Waker waker;
    /** The thread whose poll installed {@link #waker}. */
    private Thread wakerThread;
    private boolean receiverClosed;
    /** The outcome went to a receiver ({@link #take}) or was disposed of: nobody else may have it. */
    private boolean taken;
    private final String closedMessage;

    /**
     * A channel whose closure without a value reads as {@link ClosedException} with this message.
     *
     * @param closedMessage the message
     */
    public ResultChannel(String closedMessage) {
        this.closedMessage = closedMessage;
    }

    /**
     * Publishes a value or failure; no effect if an outcome is already set. A value nobody will take — the
     * receiver closed already, or an outcome was set before — is disposed of ({@link Results#dispose}).
     *
     * @param result the outcome
     * @return true if this call set it and a receiver may still take it
     */
    public boolean send(Poll<T> result) {
        Waker toWake = null;
        boolean delivered = false;
        lock.lock();
        try {
            if (outcome == null) {
                outcome = result;
                if (receiverClosed) {
                    taken = true;
                } else {
                    delivered = true;
                    toWake = waker;
                    waker = null;
                }
            }
        } finally {
            lock.unlock();
        }
        if (!delivered) {
            Results.dispose(result);
            return false;
        }
        if (toWake != null) {
            toWake.wake();
        }
        return true;
    }

    /**
     * The sender goes away without a value: the receiver reads {@link ClosedException}.
     *
     * @return true if this call set the outcome
     */
    public boolean closeSender() {
        return send(Poll.failed(new ClosedException(closedMessage)));
    }

    /**
     * Whether an outcome was set or the receiver closed.
     *
     * @return true if nothing more will be observed
     */
    boolean isDone() {
        lock.lock();
        try {
            return outcome != null || receiverClosed;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Whether an outcome was published (a value, a failure or the sender's closure), taken or not.
     *
     * @return true once the sender is done
     */
    boolean hasOutcome() {
        lock.lock();
        try {
            return outcome != null;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Whether the receiver closed (the sender may skip its work).
     *
     * @return true if closed
     */
    boolean isReceiverClosed() {
        lock.lock();
        try {
            return receiverClosed;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Polls the outcome; installs {@code newWaker} (retaining it unless the installed one is equivalent) while
     * none is set. A throwing {@code retain} propagates and leaves the channel as it was. A ready outcome is not
     * consumed: every poll sees it again, even after the receiver closed. What an {@link dev.lockstep.Operation}
     * hands to its caller goes through {@link #take} instead, which hands it out once.
     *
     * @param newWaker the waker
     * @return the outcome, or pending
     */
    public Poll<T> poll(Waker newWaker) {
        Waker installed;
        lock.lock();
        try {
            if (outcome != null) {
                return outcome;
            }
            if (receiverClosed) {
                return Poll.failed(new ClosedException(closedMessage));
            }
            installed = waker;
        } finally {
            lock.unlock();
        }
        if (installed != null && installed.willWake(newWaker)) {
            return Poll.pending();
        }
        Waker retained = newWaker.retain();
        Waker displaced;
        Poll<T> ready = null;
        lock.lock();
        try {
            // Both checks again: the lock was let go for retain(), and a send or a closeReceiver that ran
            // meanwhile found no waker to wake. Installing ours now would park the receiver for good.
            if (outcome != null) {
                ready = outcome;
                displaced = retained;
            } else if (receiverClosed) {
                ready = Poll.failed(new ClosedException(closedMessage));
                displaced = retained;
            } else {
                displaced = waker;
                waker = retained;
                wakerThread = Thread.currentThread();
            }
        } finally {
            lock.unlock();
        }
        if (displaced != null) {
            displaced.release();
        }
        return ready != null ? ready : Poll.pending();
    }

    /**
     * Polls like {@link #poll}, but a ready outcome is taken: it is handed to this caller once, and every later
     * take or poll reads {@link ClosedException}. What {@link Registration} uses, so a forwarded result is
     * observed exactly once even when a close races the poll.
     *
     * @param newWaker the waker
     * @return the outcome (taken), or pending
     */
    public Poll<T> take(Waker newWaker) {
        Poll<T> polled = poll(newWaker);
        if (!polled.isReady()) {
            return polled;
        }
        lock.lock();
        try {
            if (taken || receiverClosed) {
                return Poll.failed(new ClosedException(closedMessage));
            }
            taken = true;
        } finally {
            lock.unlock();
        }
        return polled;
    }

    /** The receiver goes away: {@link #closeReceiver(Thread)} from the calling thread. */
    public void closeReceiver() {
        closeReceiver(Thread.currentThread());
    }

    /**
     * The receiver goes away: later sends are dropped, and a value sent and not taken is disposed of. Every
     * other party still waiting on this channel learns it: an installed waker is woken (its poll then reads
     * {@link ClosedException}) unless {@code closer} installed it, in which case it is released.
     *
     * @param closer the closing thread
     */
    void closeReceiver(Thread closer) {
        Waker displaced;
        Thread installer;
        Poll<T> untaken = null;
        lock.lock();
        try {
            receiverClosed = true;
            displaced = waker;
            installer = wakerThread;
            waker = null;
            wakerThread = null;
            if (outcome != null && !taken) {
                untaken = outcome;
            }
            taken = true;
        } finally {
            lock.unlock();
        }
        if (untaken != null) {
            Results.dispose(untaken);
        }
        if (displaced == null) {
            return;
        }
        if (installer == closer) {
            displaced.release();
        } else {
            displaced.wake();
        }
    }
}
