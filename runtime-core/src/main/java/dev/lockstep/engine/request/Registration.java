package dev.lockstep.engine.request;

import dev.lockstep.ClosedException;
import dev.lockstep.Operation;
import dev.lockstep.Poll;
import dev.lockstep.Waker;
import dev.lockstep.engine.Engine;
import dev.lockstep.engine.task.Fiber;
import dev.lockstep.engine.task.Fibers;
import dev.lockstep.engine.worker.InlineTurns;
import dev.lockstep.engine.worker.Mailbox;
import dev.lockstep.engine.worker.Worker;

/**
 * The {@link Operation} of one request admitted to a worker: the worker and the request's {@link WaiterId}.
 *
 * <p>On the owning worker a poll observes the driver directly; elsewhere the first poll sends a
 * {@link Mailbox.Forward} and observes a channel from then on. A close on the owner closes the request at once
 * (overtaking a forward still queued, which then finds a stale generation); elsewhere it sends
 * {@link Mailbox.Cancel}.
 *
 * <p>Polls of one operation from several threads at once are not supported (hand it over with a
 * happens-before edge: a thread start or join, a queue). A close, though, may come from any thread while
 * another polls or awaits, and close means close: every other poller and awaiter — a fiber on the owner, a
 * fiber on another worker, a plain thread — is woken and reads {@link ClosedException}.
 *
 * <h2>Close racing a poll</h2>
 * {@code finished} and {@code channel} are volatile. A foreign poll publishes its channel, sends its forward,
 * then reads {@code finished}; a close writes {@code finished}, then reads {@code channel}. Of two volatile
 * write-then-read sequences at least one sees the other's write, so either the close closes the channel's
 * receiver, or the poll sees the close and closes it itself — a waiting poller cannot be missed. The request
 * itself is closed by the close's {@link Mailbox.Cancel} (or directly on the owner) whatever the order in
 * which that and the forward reach the owner: a forward to a closed request is answered {@code Closed}, a
 * cancel of a forwarded one closes its channel. A result that reached the channel untaken is closed with it
 * ({@link ResultChannel#closeReceiver(Thread)}), so a connection or blob dropped this way leaks nothing.
 *
 * @param <T> the value
 */
public sealed class Registration<T> implements Operation<T>, PendingSet.Repointable permits Registration.Refused {
    private final Worker owner;
    /**
     * The request's {@link WaiterId} packed as its user data ({@link WaiterId#userData()}), so an operation
     * costs no id object; unused for a refused operation. Final in effect for every registration but a fiber's
     * reusable one ({@link #reusable}), which {@link #reuse} re-points, on its fiber, between two uses.
     */
    private long key;
    /** Whether this is a fiber's reusable registration ({@link #reusable}), never handed to user code. */
    private final boolean reusable;
    /** Whether a call of its fiber has the reusable registration ({@link Fiber#takeReusable}); that fiber's only. */
    private boolean lent;
    private volatile ResultChannel<Object> channel;
    private volatile boolean finished;
    private static final java.lang.invoke.VarHandle FINISHED;

    static {
        try {
            FINISHED = java.lang.invoke.MethodHandles.lookup().findVarHandle(Registration.class, "finished",
                    boolean.class);
        } catch (ReflectiveOperationException impossible) {
            throw new ExceptionInInitializerError(impossible);
        }
    }

    public Registration(Worker owner, long key) {
        this.owner = owner;
        this.key = key;
        this.reusable = false;
    }

    private Registration(Worker owner) {
        this.owner = owner;
        this.key = -1L;
        this.reusable = true;
        this.finished = true;
    }

    /** A refused registration's: no owner, no request. */
    private Registration() {
        this.owner = null;
        this.key = -1L;
        this.reusable = false;
    }

    /**
     * An operation refused by a closing worker, with the message its polls report. A subclass so that the
     * message, which only a refusal has, is no field of every admitted operation: without it an operation is 32
     * bytes rather than 40, the one object a request returning a handle allocates (UringBufferAllocationTest).
     */
    static final class Refused<T> extends Registration<T> {
        private final String message;

        private Refused(String message) {
            this.message = message;
        }
    }

    /**
     * A registration that one fiber reuses for the requests it awaits inside one call and never hands out (the
     * {@code Blob.readFully}, {@code Stream.recvFully}, {@code Sink.sendFully} family): an operation per call
     * without an object per call.
     *
     * <h4>Why reuse is safe here, and what it rules out</h4>
     * A handle given to user code may be kept, polled or closed after its result was taken, so it must name one
     * request for ever; this one is seen only by the engine code of one call on one fiber, which admits a
     * request, re-points the registration at it ({@link #reuse}), awaits it and closes it before returning, so a
     * use never outlives its call and two uses never overlap ({@link Fiber#takeReusable} refuses a nested one).
     * Every field is written and read by that fiber alone — it polls on its own worker, so the registration is
     * never forwarded and has no channel. The one party that reaches a use from elsewhere is a stream's
     * {@link PendingSet}, whose close may run on any thread after the call has moved on to a later use: it
     * therefore closes such a registration by the key it recorded when the use was tracked
     * ({@link Worker#closeRequest}), never through this object, and a key whose use is over names a retired
     * generation, which the owner ignores.
     *
     * @param owner the fiber's home worker
     * @param <T> the value
     * @return the registration, idle until {@link #reuse}
     */
    public static <T> Registration<T> reusable(Worker owner) {
        return new Registration<>(owner);
    }

    /**
     * Points a {@link #reusable} registration at a request just admitted. On its fiber, after the previous use
     * was closed.
     *
     * @param admitted the request's user data
     */
    public void reuse(long admitted) {
        key = admitted;
        FINISHED.setRelease(this, false);
    }

    /** Starts a loan of a reusable registration; false if a call has it already. On its fiber. */
    public boolean lend() {
        if (lent) {
            return false;
        }
        lent = true;
        return true;
    }

    /**
     * Ends the loan {@link Fiber#takeReusable} made, if it made one.
     *
     * @param lentOrNull what {@code takeReusable} returned
     */
    public static void giveBack(Registration<?> lentOrNull) {
        if (lentOrNull != null) {
            lentOrNull.lent = false;
        }
    }

    /**
     * Awaits an operation a call made for itself and closes it whatever happens, so that its request never
     * outlives the call (what makes a {@link #reusable} registration safe to reuse): a failure, an abort or a
     * timeout leaves it closed, and a receive or read not yet complete is cancelled.
     *
     * @param operation the call's operation, or null when the call finished without one
     */
    public static void awaitAndClose(Operation<?> operation) {
        if (operation == null) {
            return;
        }
        try {
            operation.await();
        } finally {
            operation.close();
        }
    }

    /**
     * Whether this is a fiber's {@link #reusable} registration.
     *
     * @return true if so
     */
    @Override
    public boolean isReusable() {
        return reusable;
    }

    /**
     * The request's user data ({@link WaiterId#userData()}), as of now: for a reusable registration, the current
     * use's, which only its fiber may rely on.
     *
     * @return the key
     */
    @Override
    public long userData() {
        return key;
    }

    /**
     * Closes the use {@code use} names, on any thread, without touching this registration's own state (which
     * its fiber may have re-pointed at a later use): see {@link #reusable}.
     *
     * @param use the key of the use to close
     * @param closer the closing thread
     */
    @Override
    public void closeUse(long use, Thread closer) {
        owner.closeRequest(use, closer);
    }

    /**
     * An operation refused by a closing worker: every poll resolves to {@link ClosedException}.
     *
     * @param message the closure message
     * @param <T> the value
     * @return the operation
     */
    public static <T> Registration<T> closed(String message) {
        return new Refused<>(message);
    }

    /**
     * The request's identity, or null for a refused operation.
     *
     * @return the id
     */
    public WaiterId key() {
        return owner == null ? null : WaiterId.fromUserData(key);
    }

    /**
     * The owning worker, or null for a refused operation.
     *
     * @return the worker
     */
    public Worker owner() {
        return owner;
    }

    /**
     * The worker of the calling thread, as {@link Worker#current()} says, without its thread-local lookup when the
     * waker is a fiber's own and this is that fiber's thread (what {@code Fibers.await} passes): a fiber's thread
     * enters its home worker before its task runs and never enters another, so its home is the answer. Any other
     * caller (a plain thread, another fiber holding the waker, a waker of the caller's making) is looked up.
     */
    private static Worker callerWorker(Waker waker) {
        if (waker instanceof Fiber.OwnWaker own) {
            Worker home = own.homeIfCalledByItsFiber();
            if (home != null) {
                return home;
            }
        }
        return Worker.current();
    }

    @Override
    @SuppressWarnings("unchecked")
    public Poll<T> poll(Waker waker) {
        java.util.Objects.requireNonNull(waker, "waker");
        if (owner == null) {
            return Poll.failed(new ClosedException(((Refused<T>) this).message));
        }
        if (finished) {
            return Poll.failed(new ClosedException("this operation's result was already taken, or the"
                    + " operation was closed"));
        }
        ResultChannel<Object> forwarded = channel;
        if (forwarded != null) {
            return (Poll<T>) observed(forwarded.take(waker));
        }
        if (callerWorker(waker) != owner) {
            Engine.checkForeignCaller(owner, "Operation.poll");
            forwarded = new ResultChannel<>(owner + " closed before this operation completed");
            channel = forwarded;
            if (!owner.mailbox().send(new Mailbox.Forward(WaiterId.fromUserData(key), forwarded))) {
                forwarded.closeSender();
            }
            if (finished) {
                // A close ran meanwhile and may not have seen the channel: close its receiver here (see above).
                forwarded.closeReceiver(Thread.currentThread());
                return Poll.failed(new ClosedException("this operation was closed"));
            }
            return (Poll<T>) observed(forwarded.take(waker));
        }
        Waker installed;
        boolean installedOwn = false;
        Waker displacedOwn = null;
        Driver driver = owner.borrow();
        try {
            if (driver == null) {
                return (Poll<T>) observed(Poll.failed(new ClosedException(owner + " is closed")));
            }
            Poll<Object> ready = driver.take(key);
            if (ready != null) {
                return (Poll<T>) observed(ready);
            }
            if (!driver.isLive(key)) {
                return (Poll<T>) observed(Poll.failed(new ClosedException("this operation was closed, or "
                        + owner + " retired")));
            }
            if (owner.isClosing()) {
                driver.close(key, Thread.currentThread());
                return (Poll<T>) observed(Poll.failed(new ClosedException(owner + " is closing")));
            }
            if (!driver.isOpen(key)) {
                // Closed by its key while live (see Driver.isOpen): nothing would wake a waker installed now.
                return (Poll<T>) observed(Poll.failed(new ClosedException("this operation was closed")));
            }
            installed = driver.installedWaker(key);
            if (waker instanceof Fiber.OwnWaker && (installed == null || installed instanceof Fiber.OwnWaker)) {
                // The common case, a fiber awaiting: neither waker's willWake or retain runs user code (see
                // Fiber.OwnWaker), so the waker is installed in this same borrow rather than in a second one.
                if (installed != waker) {
                    displacedOwn = driver.install(key, waker);
                }
                installedOwn = true;
            }
        } finally {
            owner.unborrow();
        }
        if (installedOwn) {
            if (displacedOwn != null) {
                owner.deferRelease(displacedOwn);
            }
            return Poll.pending();
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
            ready = driver == null ? Poll.failed(new ClosedException(owner + " is closed")) : driver.take(key);
            if (ready == null && !driver.isOpen(key)) {
                // Closed while retain() ran outside the borrow: the close found no waker of ours to wake.
                ready = Poll.failed(new ClosedException("this operation was closed, or " + owner + " retired"));
            }
            displaced = ready != null ? retained : driver.install(key, retained);
        } finally {
            owner.unborrow();
        }
        if (displaced != null) {
            owner.defer(displaced::release);
        }
        return ready != null ? (Poll<T>) observed(ready) : Poll.pending();
    }

    /**
     * Before a fiber of the owning worker awaits this operation: if the request usually completes at
     * submission and nothing else of the worker is runnable, the fiber turns the ring itself
     * ({@link InlineTurns#turn}), so that its first poll most likely finds the result and it never parks.
     * Elsewhere (a fiber of another worker), or once polled, forwarded or closed, it does nothing.
     *
     * @param fiber the awaiting fiber, which runs on its home worker (whose identity is compared, with no
     *     thread-local lookup)
     */
    public void completeInPlace(Fiber fiber) {
        if (owner != null && fiber.home() == owner && !finished && channel == null) {
            owner.inlineTurns().turn(key);
        }
    }

    private Poll<Object> observed(Poll<Object> poll) {
        if (poll.isReady()) {
            // A release store, not a volatile one (which costs a full fence per operation): this write is not
            // one of the two sides of the close-racing-a-poll argument above (a close's write of finished, a
            // poll's read of it after publishing its channel). A close on another thread that reads it late
            // only finds the result taken: a forwarded channel already has its outcome, and a Cancel it sends
            // names a retired generation, which the owner ignores.
            FINISHED.setRelease(this, true);
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
        // A waker this thread installed is released; anyone else's is woken, so every other awaiter sees it.
        Thread closer = Thread.currentThread();
        ResultChannel<Object> forwarded = channel;
        if (forwarded != null) {
            forwarded.closeReceiver(closer);
            if (forwarded.hasOutcome()) {
                // The result (or the worker's closure) was published on the channel: the owner retired the slot
                // before it sent, so a Cancel would name a retired slot (whose index may be reused by then).
                return;
            }
        }
        owner.closeRequest(key, closer);
    }

    @Override
    public String toString() {
        return owner == null ? "Operation(closed)" : "Operation(" + owner + ", " + key() + ")";
    }
}
