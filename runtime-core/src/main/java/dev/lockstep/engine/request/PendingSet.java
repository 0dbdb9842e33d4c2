package dev.lockstep.engine.request;

import dev.lockstep.Operation;
import dev.lockstep.engine.worker.Spare;
import dev.lockstep.sync.FiberSafeLock;

/**
 * The accepts of one listener, or the receives of one stream, that are admitted and not yet retired, so that
 * closing the listener or stream — from any thread — closes them (close means close). Intrusive: each request
 * carries its own {@link Link}, and a request that is reused keeps its link, so tracking an operation allocates
 * nothing.
 *
 * <h2>Who touches what</h2>
 * <ul>
 *   <li>{@link #track}: the fiber that registered the request, right after its admission, on the request's worker.
 *   <li>{@link #retired}: the request's {@code release}, once per admission, on the same worker (the driver defers
 *       it to the worker's thread; a closing worker's refusal runs it on the registering fiber).
 *   <li>{@link #closeAll}, {@link #isClosed}: any thread.
 * </ul>
 * The list, each link's neighbours, its operation, its {@code retiredUse} and {@link #closed} are guarded by a
 * {@link FiberSafeLock}: every section is a few field writes (and, in {@link #closeAll}, one array), so nothing
 * under it parks, calls out or takes a second lock. {@link Operation#close()} runs outside the lock. A link's
 * {@code use} is written and read only on its request's worker (see {@link Link#begin}).
 *
 * <h2>Why a retired or reused request is never tracked, and no operation escapes a close</h2>
 * The fiber's {@code track} can lose its carrier: a contended {@link FiberSafeLock} yields, and the worker may
 * then retire the request, and even hand it to a later receive, before {@code track} gets the lock. So each
 * admission has a number ({@link Link#begin}, taken before the admission) and {@link #retired} records, under
 * the lock, the number of the use it retires. {@code track} links the request only if its own use has not retired
 * ({@code retiredUse < use}): a use's retirement happens before the request's next {@code begin}, so a link is
 * never made for a use that is over, and a reused request is only ever linked by its current use. Retirement
 * unlinks under the same lock, so a request that left the set is in it under no stale use either.
 *
 * <p>A close and a track are ordered by the lock. If the track came first, the close finds the operation linked
 * and closes it; if the close came first, the track sees {@link #closed} and closes the operation itself. The
 * close snapshots the operations (the handles, never the requests) and closes them after unlocking: a handle
 * whose request retired meanwhile — and was perhaps reused — is closed harmlessly, since a handle names its
 * slot's generation, which changed at the retirement ({@link Registration#close}). A {@link Repointable}
 * operation — a fiber's reusable one, which names a new request at each use — is snapshotted with the key of the
 * use it was tracked for (recorded by {@link #track} under the lock) and closed by that key, so the same holds:
 * a use that retired meanwhile names a retired generation, and the request the fiber has moved on to is never
 * closed by another request's close.
 */
public final class PendingSet {
    /**
     * An operation that its maker re-points at a later request once a use is over ({@link Registration#reusable}):
     * a close that comes after the tracked use may find it naming another request, so the set closes it by the
     * key of the use it tracked ({@link #closeUse}), never through the operation's own close.
     */
    interface Repointable {
        /**
         * Whether this operation is re-pointed between uses; if not, the set closes it as any other.
         *
         * @return true for a reusable operation
         */
        boolean isReusable();

        /**
         * The key of the use it names now; read by the tracking fiber, whose use it is.
         *
         * @return the key
         */
        long userData();

        /**
         * Closes the use that {@code key} names, if it is still live; any thread.
         *
         * @param key a key {@link #userData} returned
         * @param closer the closing thread
         */
        void closeUse(long key, Thread closer);
    }

    /** One request's place in a set. Allocated with the request and reused with it. */
    public static final class Link {
        /** Neighbours in the set, while linked; guarded by the set's lock. */
        private Link previous;
        private Link next;
        /** The operation this link's current use tracks, while linked (non-null exactly then); guarded. */
        private Operation<?> operation;
        /**
         * For a fiber's reusable registration ({@link Registration#reusable}), the key of the use it tracks,
         * recorded at {@link PendingSet#track}: a close names that key, not the registration, which its fiber
         * may have re-pointed at a later request by then; guarded.
         */
        private long trackedKey;
        /** The number of the last use that retired; guarded. */
        private long retiredUse;
        /**
         * The number of the current use. Written by {@link #begin} and read by {@link PendingSet#retired}, both on
         * the request's worker for that use, in program order (a request moves to another worker only through a
         * release and a later take, which a {@link Spare} orders).
         */
        private long use;

        /**
         * Starts a new use of the request, before its admission.
         *
         * @return the use's number, for {@link PendingSet#track}
         */
        public long begin() {
            return ++use;
        }
    }

    private final FiberSafeLock lock;
    /** The linked requests; guarded by {@link #lock}. */
    private Link first;
    private int size;
    /** Set once by {@link #closeAll}; written under the lock, volatile so {@link #isClosed} needs none. */
    private volatile boolean closed;

    /** A set with a lock of its own. */
    public PendingSet() {
        this(new FiberSafeLock());
    }

    /**
     * A set guarded by {@code lock}, which its owner may share with state of its own whose sections, like this
     * set's, are a few field writes that never take a second lock, wake or call out (so sharing nests nothing).
     *
     * @param lock the lock
     */
    public PendingSet(FiberSafeLock lock) {
        this.lock = lock;
    }

    /**
     * Tracks the operation of a request just admitted, or closes it if the set closed meanwhile.
     *
     * @param link the request's link
     * @param use what {@link Link#begin} returned before the admission
     * @param operation the admitted operation (not a refused one: a refused request retired inside its
     *     registration, and its link may serve another use already)
     * @param <O> the operation's type
     * @return {@code operation}
     */
    public <O extends Operation<?>> O track(Link link, long use, O operation) {
        boolean closeIt;
        lock.lock();
        try {
            if (link.retiredUse >= use) {
                // This use retired already (completed and released while the caller waited for the lock).
                return operation;
            }
            closeIt = closed;
            if (!closeIt) {
                link.operation = operation;
                if (operation instanceof Repointable reusable && reusable.isReusable()) {
                    link.trackedKey = reusable.userData(); // the tracking fiber's own current use
                }
                link.previous = null;
                link.next = first;
                if (first != null) {
                    first.previous = link;
                }
                first = link;
                size++;
            }
        } finally {
            lock.unlock();
        }
        if (closeIt) {
            operation.close();
        }
        return operation;
    }

    /**
     * The link's request retired: it leaves the set, and its current use is over.
     *
     * @param link the request's link
     */
    public void retired(Link link) {
        lock.lock();
        try {
            link.retiredUse = link.use;
            if (link.operation != null) {
                unlink(link);
            }
        } finally {
            lock.unlock();
        }
    }

    private void unlink(Link link) {
        if (link.previous != null) {
            link.previous.next = link.next;
        } else {
            first = link.next;
        }
        if (link.next != null) {
            link.next.previous = link.previous;
        }
        link.previous = null;
        link.next = null;
        link.operation = null;
        size--;
    }

    /**
     * Closes the set: every operation in it is closed, and every later {@link #track} closes its own.
     *
     * @return true if this call closed the set, false if it was closed already
     */
    public boolean closeAll() {
        Operation<?>[] toClose;
        long[] keys;
        lock.lock();
        try {
            if (closed) {
                return false;
            }
            closed = true;
            toClose = new Operation<?>[size];
            keys = new long[size];
            int at = 0;
            while (first != null) {
                keys[at] = first.trackedKey;
                toClose[at++] = first.operation;
                unlink(first);
            }
        } finally {
            lock.unlock();
        }
        Thread closer = Thread.currentThread();
        for (int at = 0; at < toClose.length; at++) {
            if (toClose[at] instanceof Repointable reusable && reusable.isReusable()) {
                // By the key of the use that was tracked: the operation may name a later request by now.
                reusable.closeUse(keys[at], closer);
            } else {
                toClose[at].close();
            }
        }
        return true;
    }

    /**
     * Whether {@link #closeAll} ran.
     *
     * @return true once closed
     */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Operations tracked now (for tests).
     *
     * @return the count
     */
    int size() {
        lock.lock();
        try {
            return size;
        } finally {
            lock.unlock();
        }
    }
}
