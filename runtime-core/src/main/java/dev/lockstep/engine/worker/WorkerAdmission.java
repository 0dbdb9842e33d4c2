package dev.lockstep.engine.worker;

import dev.lockstep.ClosedException;
import dev.lockstep.engine.Engine;
import dev.lockstep.engine.request.Driver;
import dev.lockstep.engine.request.Registration;
import dev.lockstep.engine.request.Request;
import dev.lockstep.engine.request.ResultChannel;
import dev.lockstep.engine.request.WaiterId;

/**
 * How requests enter and leave one worker's {@link Driver}: admission under the worker's critical section, with
 * the refusal a closing or retired worker answers ({@link ClosedException}, the request released outside the
 * section), and the close of an admitted request, at once on the worker or through its {@link Mailbox} from
 * elsewhere. The {@link Worker} holds the state; this class decides how a request is let in or called back.
 */
final class WorkerAdmission {
    private final Worker worker;

    WorkerAdmission(Worker worker) {
        this.worker = worker;
    }

    /**
     * Admits {@code request} for a caller already known to be on the worker ({@link Worker#registerCurrent}).
     *
     * @param request the request
     * @param <T> the operation's value
     * @return the operation, or a refused one if the worker is closing
     */
    <T> Registration<T> registerCurrent(Request request) {
        Driver slab = worker.borrow();
        try {
            if (!worker.isClosing() && slab != null) {
                return new Registration<>(worker, slab.admit(request, null, worker.nowNanos()));
            }
        } finally {
            worker.unborrow();
        }
        return refuse(request);
    }

    /**
     * {@link #registerCurrent(Request)} that re-points {@code reuse}, a fiber's reusable registration of this
     * worker ({@link Registration#reusable}), at the admitted request instead of making a new one; with
     * {@code reuse} null, or of another worker, it makes one. A refused request gets a new refused operation.
     *
     * @param request the request
     * @param reuse the calling fiber's idle reusable registration, or null
     * @param <T> the operation's value
     * @return the operation
     */
    @SuppressWarnings("unchecked")
    <T> Registration<T> registerCurrent(Request request, Registration<?> reuse) {
        if (reuse == null || reuse.owner() != worker) {
            return registerCurrent(request);
        }
        Driver slab = worker.borrow();
        try {
            if (!worker.isClosing() && slab != null) {
                reuse.reuse(slab.admit(request, null, worker.nowNanos()));
                return (Registration<T>) reuse;
            }
        } finally {
            worker.unborrow();
        }
        return refuse(request);
    }

    private <T> Registration<T> refuse(Request request) {
        // Described before the release, which may hand the request to a recycler.
        String refused = "worker " + worker.index() + " is closed: " + request.describe() + " refused";
        request.release(worker.ring());
        return Registration.closed(refused);
    }

    /**
     * Admits a sync whose result goes to a channel nobody has to poll ({@link Worker#registerDetached}): returns
     * at once, even with a full ring. A closing worker publishes {@link ClosedException} on the channel.
     *
     * @param request the sync
     * @return the channel
     */
    ResultChannel<Object> registerDetached(Request request) {
        if (Worker.current() != worker) {
            worker.checkOwner("registering " + request.describe());
        }
        ResultChannel<Object> channel = new ResultChannel<>("worker " + worker.index() + " closed before "
                + request.describe() + " finished");
        Driver slab = worker.borrow();
        try {
            if (!worker.isClosing() && slab != null) {
                slab.admit(request, channel, worker.nowNanos());
                return channel;
            }
        } finally {
            worker.unborrow();
        }
        request.release(worker.ring());
        channel.closeSender();
        return channel;
    }

    /**
     * Closes the request an operation of this worker names, from any thread: at once on this worker outside
     * its critical section, through the {@link Mailbox} elsewhere. A key whose request retired names a retired
     * generation, which is ignored, so a late close cannot reach a later request in the same slot.
     *
     * @param key the request's user data ({@link WaiterId#userData()})
     * @param closer the closing thread: a waker it installed itself is released, any other is woken
     */
    void closeRequest(long key, Thread closer) {
        if (Worker.current() == worker && !worker.isBorrowed()) {
            Driver slab = worker.borrow();
            try {
                if (slab != null) {
                    slab.close(key, closer);
                }
            } finally {
                worker.unborrow();
            }
        } else {
            Engine.checkForeignCaller(worker, "Operation.close");
            worker.mailbox().send(new Mailbox.Cancel(WaiterId.fromUserData(key)));
        }
    }
}
