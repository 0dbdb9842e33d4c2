package dev.lockstep.engine;

import dev.lockstep.ClosedException;
import dev.lockstep.Operation;
import dev.lockstep.Poll;
import dev.lockstep.Waker;

/**
 * The {@link Operation} of one request admitted to a worker: the worker and the request's {@link WaiterId}.
 *
 * <p>On the owning worker a poll observes the driver directly; elsewhere the first poll sends a
 * {@link Mailbox.Forward} and observes a channel from then on. A close on the owner closes the request at once
 * (overtaking a forward still queued, which then finds a stale generation); elsewhere it sends
 * {@link Mailbox.Cancel}.
 *
 * <p>An operation may move between threads, but is not for concurrent use by several threads at once: hand it
 * over with a happens-before edge (a thread start or join, a queue).
 *
 * @param <T> the value
 */
public final class Registration<T> implements Operation<T> {
    private final Worker owner;
    private final WaiterId id;
    private final String closedMessage;
    private OneShot<Object> channel;
    private boolean finished;

    Registration(Worker owner, WaiterId id) {
        this.owner = owner;
        this.id = id;
        this.closedMessage = null;
    }

    private Registration(String closedMessage) {
        this.owner = null;
        this.id = null;
        this.closedMessage = closedMessage;
    }

    /**
     * An operation refused by a closing worker: every poll resolves to {@link ClosedException}.
     *
     * @param message the closure message
     * @param <T> the value
     * @return the operation
     */
    public static <T> Registration<T> closed(String message) {
        return new Registration<>(message);
    }

    /**
     * The request's identity, or null for a refused operation.
     *
     * @return the id
     */
    public WaiterId key() {
        return id;
    }

    /**
     * The owning worker, or null for a refused operation.
     *
     * @return the worker
     */
    public Worker owner() {
        return owner;
    }

    @Override
    @SuppressWarnings("unchecked")
    public Poll<T> poll(Waker waker) {
        java.util.Objects.requireNonNull(waker, "waker");
        if (owner == null) {
            return Poll.failed(new ClosedException(closedMessage));
        }
        if (finished) {
            return Poll.failed(new ClosedException("this operation's result was already taken, or the"
                    + " operation was closed"));
        }
        if (channel != null) {
            return (Poll<T>) observed(channel.poll(waker));
        }
        if (Worker.current() != owner) {
            channel = new OneShot<>(owner + " closed before this operation completed");
            if (!owner.mailbox().send(new Mailbox.Forward(id, channel))) {
                channel.closeSender();
            }
            return (Poll<T>) observed(channel.poll(waker));
        }
        Waker installed;
        Driver driver = owner.borrow();
        try {
            if (driver == null) {
                return (Poll<T>) observed(Poll.failed(new ClosedException(owner + " is closed")));
            }
            Poll<Object> ready = driver.take(id);
            if (ready != null) {
                return (Poll<T>) observed(ready);
            }
            if (!driver.isLive(id)) {
                return (Poll<T>) observed(Poll.failed(new ClosedException("this operation was closed, or "
                        + owner + " retired")));
            }
            if (owner.isClosing()) {
                driver.close(id);
                return (Poll<T>) observed(Poll.failed(new ClosedException(owner + " is closing")));
            }
            installed = driver.installedWaker(id);
        } finally {
            owner.unborrow();
        }
        if (installed != null && installed.willWake(waker)) {
            return Poll.pending();
        }
        // retain() is user code: it runs outside the borrow and may register, poll and close other work, or
        // throw — this operation keeps its identity and stays closable either way.
        Waker retained = waker.retain();
        Waker displaced;
        Poll<Object> ready;
        driver = owner.borrow();
        try {
            ready = driver == null ? Poll.failed(new ClosedException(owner + " is closed")) : driver.take(id);
            displaced = ready != null ? retained : driver.install(id, retained);
        } finally {
            owner.unborrow();
        }
        if (displaced != null) {
            owner.defer(displaced::release);
        }
        return ready != null ? (Poll<T>) observed(ready) : Poll.pending();
    }

    private Poll<Object> observed(Poll<Object> poll) {
        if (poll.isReady()) {
            finished = true;
        }
        return poll;
    }

    @Override
    public T await() {
        return Fibers.await(this);
    }

    @Override
    public void close() {
        if (owner == null || finished) {
            return;
        }
        finished = true;
        if (channel != null) {
            channel.closeReceiver();
        }
        if (Worker.current() == owner && !owner.isBorrowed()) {
            Driver driver = owner.borrow();
            try {
                if (driver != null) {
                    driver.close(id);
                }
            } finally {
                owner.unborrow();
            }
        } else {
            owner.mailbox().send(new Mailbox.Cancel(id));
        }
    }

    @Override
    public String toString() {
        return owner == null ? "Operation(closed)" : "Operation(" + owner + ", " + id + ")";
    }
}
