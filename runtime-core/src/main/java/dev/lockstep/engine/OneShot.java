package dev.lockstep.engine;

import dev.lockstep.ClosedException;
import dev.lockstep.Poll;
import dev.lockstep.Waker;

/**
 * A single-value channel between threads: one sender publishes a value (or closes without one), one
 * receiver polls it with a waker.
 *
 * <p>Invariants: the outcome is set at most once; a retained receiver waker is woken exactly once when the
 * outcome is set, or released when the receiver replaces it or closes. Waker callbacks always run outside
 * the monitor, so they may re-enter this channel or anything else. The monitor is held only for a few field
 * writes, never across a callback or a wait.
 *
 * @param <T> the value
 */
public final class OneShot<T> {
    private Poll<T> outcome;
    private Waker waker;
    private boolean receiverClosed;
    private final String closedMessage;

    /**
     * A channel whose closure without a value reads as {@link ClosedException} with this message.
     *
     * @param closedMessage the message
     */
    public OneShot(String closedMessage) {
        this.closedMessage = closedMessage;
    }

    /**
     * Publishes a value or failure; no effect if an outcome is already set.
     *
     * @param result the outcome
     * @return true if this call set it
     */
    public boolean send(Poll<T> result) {
        Waker toWake;
        synchronized (this) {
            if (outcome != null) {
                return false;
            }
            outcome = result;
            toWake = waker;
            waker = null;
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
    public synchronized boolean isDone() {
        return outcome != null || receiverClosed;
    }

    /**
     * Whether the receiver closed (the sender may skip its work).
     *
     * @return true if closed
     */
    public synchronized boolean isReceiverClosed() {
        return receiverClosed;
    }

    /**
     * Polls the outcome; installs {@code newWaker} (retaining it unless the installed one is equivalent) while
     * none is set. A throwing {@code retain} propagates and leaves the channel as it was.
     *
     * @param newWaker the waker
     * @return the outcome, or pending
     */
    public Poll<T> poll(Waker newWaker) {
        Waker installed;
        synchronized (this) {
            if (outcome != null) {
                return outcome;
            }
            if (receiverClosed) {
                return Poll.failed(new ClosedException(closedMessage));
            }
            installed = waker;
        }
        if (installed != null && installed.willWake(newWaker)) {
            return Poll.pending();
        }
        Waker retained = newWaker.retain();
        Waker displaced;
        Poll<T> ready = null;
        synchronized (this) {
            if (outcome != null) {
                ready = outcome;
                displaced = retained;
            } else {
                displaced = waker;
                waker = retained;
            }
        }
        if (displaced != null) {
            displaced.release();
        }
        return ready != null ? ready : Poll.pending();
    }

    /** The receiver goes away: its waker is released and later sends are dropped. */
    public void closeReceiver() {
        Waker displaced;
        synchronized (this) {
            receiverClosed = true;
            displaced = waker;
            waker = null;
        }
        if (displaced != null) {
            displaced.release();
        }
    }
}
