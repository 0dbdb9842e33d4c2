package dev.lockstep.engine.io;

import dev.lockstep.engine.buffer.PooledBuffer;
import dev.lockstep.engine.buffer.ReceiveMemory;
import dev.lockstep.engine.worker.Spare;
import dev.lockstep.engine.buffer.WorkerBuffers;
import dev.lockstep.engine.request.Immediate;
import dev.lockstep.engine.request.PendingSet;
import dev.lockstep.engine.request.Registration;
import dev.lockstep.engine.task.Fibers;
import dev.lockstep.engine.worker.Worker;
import dev.lockstep.engine.worker.WorkerMetrics;
import dev.lockstep.sync.FiberSafeLock;
import dev.lockstep.ClosedException;
import dev.lockstep.IoBuffer;
import dev.lockstep.Operation;
import dev.lockstep.ReceiveLimitException;
import dev.lockstep.RecvFailedException;
import dev.lockstep.Stream;
import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * The receiving side, with a buffer of bytes received beyond what was asked.
 *
 * <p>Memory: a receive into a new array grows its array with the bytes that arrived (never to the length asked
 * for up front), and reads through a buffer the ring selects when data arrives ({@link Ring#selectedBufferBytes()}),
 * so that it holds none while it waits; on a ring that selects none, or once every selected buffer was out
 * ({@code ENOBUFS}), through one native chunk of its own of at most {@link EngineNetwork#MAX_RECEIVE_CHUNK}. The
 * array's capacity and the bytes taken ahead ({@link #buffered}) are charged to the runner's
 * {@link ReceiveMemory}; a read never takes the stream past its per-connection bound, and growth the per-runner
 * bound refuses fails the receive with {@link ReceiveLimitException}.
 */
final class EngineStream implements Stream {
    private final ConnectionSides sides;
    private final ReceiveMemory memory;
    /**
     * What a receive answered at once is called: formatted at the first such receive and kept, since a receive of
     * bytes already buffered (the common case of a protocol that reads a header, then a body) would otherwise
     * format the peer's address on every call, while a connection that only waits never formats it. Written by
     * whichever receiving thread formats it first; two that race write equal strings, safely published (a
     * {@code String}'s fields are final).
     */
    private String receiveName;
    private volatile String poisoned;
    /**
     * Receives admitted and not yet retired; closing the stream closes them (close means close). Guarded by
     * {@link #bufferedLock} too: its sections and the set's are each a few field writes that never nest.
     */
    private final PendingSet pending;
    /**
     * The stream's last retired receive, for its next one ({@link Spare}): a connection receiving message after
     * message, on the buffer path or the array path, makes no request object per message.
     */
    private final Spare<Receive> spare = new Spare<>();

    /**
     * A receive, into the caller's buffer or into a new array: a timeout, a cancellation or an internal failure
     * poisons the stream. Reused through {@link #spare} once retired; every field a use needs is set by
     * {@link #intoBuffer} or {@link #intoArray} before its admission, on the calling fiber, and from then on the
     * request is touched only by the worker it was admitted to, as every request is.
     */
    private final class Receive extends RingRequest {
        /** This receive's place in {@link #pending} while admitted; reused with the request. */
        final PendingSet.Link link = new PendingSet.Link();
        private int length;
        /** Bytes received so far (for a receive into a buffer, including those copied from {@link #buffered}). */
        private int done;
        /** Into the caller's buffer: its memory, and where in it; null for a receive into a new array. */
        private MemorySegment target;
        private int at;
        /**
         * Into a new array: the bytes so far (null before the first submission; its capacity is charged to
         * {@link #memory} while this receive holds it), and the pool of the kernel's buffer.
         */
        private byte[] collected;
        private WorkerBuffers pool;
        /**
         * The ring whose selected buffer the submission in flight asked for ({@link Submission#SELECT_BUFFER}),
         * or null when it brought its own: into a new array, a receive holds no buffer while it waits where the
         * ring selects them.
         */
        private Ring selecting;
        /** Set when every selected buffer was out ({@code ENOBUFS}): from then on this use brings its own. */
        private boolean ownBuffer;

        Receive() {
            super(null);
        }

        /** Readies this receive to fill {@code [at, at + length)} of a buffer the caller marked in flight. */
        void intoBuffer(SharedFd held, PooledBuffer into, int at, int length, int already) {
            reuse(held);
            this.length = length;
            this.done = already;
            this.target = into.memory();
            this.at = at;
            this.collected = null;
            this.pool = null;
            this.selecting = null;
            this.ownBuffer = false;
            this.lent = into;
        }

        /** Readies this receive to return {@code length} bytes in a new array, through {@code pool}'s memory. */
        void intoArray(SharedFd held, WorkerBuffers pool, int length) {
            reuse(held);
            this.length = length;
            this.done = 0;
            this.target = null;
            this.at = 0;
            this.collected = null;
            this.pool = pool;
            this.selecting = null;
            this.ownBuffer = false;
        }

        /**
         * Admits this receive on {@code worker}, the calling fiber's, tracked so that closing the stream closes it;
         * with {@code reuse}, the calling fiber's lent reusable registration, re-pointed at it.
         */
        <T> Operation<T> register(Worker worker, Registration<?> reuse) {
            long use = link.begin();
            Registration<T> operation = worker.registerCurrent(this, reuse);
            if (operation.owner() == null) {
                // Refused by a closing worker: released already inside the registration, and possibly reused.
                return operation;
            }
            return pending.track(link, use, operation);
        }

        @Override
        public void prepare(Submission submission, Ring ring) {
            submission.opcode = Opcode.RECV;
            submission.fd = file.fd();
            if (target != null) {
                submission.buffer = slicedFrom(target, at + done);
                submission.length = length - done;
                return;
            }
            if (collected == null) {
                // Inside the worker's critical section (a fiber's inline turn stages it): see bufferedLock. The
                // bytes taken ahead become the start of this receive's array, charged as they were: buffered is
                // always an array of its own, so it is taken over without a copy.
                bufferedLock.lockWithoutUnmounting();
                try {
                    collected = buffered;
                    done = buffered.length;
                    buffered = NOTHING;
                } finally {
                    bufferedLock.unlock();
                }
            }
            // Read ahead up to a chunk, but never past the per-connection bound (at least one byte: done is below
            // length unless a concurrent receive took bytes ahead meanwhile).
            long room = (long) memory.limits().perConnectionBytes() - done;
            long wanted = Math.min(room, Math.max(length - done, EngineNetwork.RECEIVE_CHUNK));
            int selectable = ownBuffer ? 0 : ring.selectedBufferBytes();
            if (selectable > 0) {
                // The ring picks a buffer of its own when data arrives (complete copies it out and gives it
                // back), so a receive that waits holds none.
                selecting = ring;
                submission.flags = Submission.SELECT_BUFFER;
                submission.length = (int) Math.max(1, Math.min(wanted, selectable));
                return;
            }
            selecting = null;
            pooledBuffer(pool, Math.clamp(length - done, EngineNetwork.RECEIVE_CHUNK,
                    EngineNetwork.MAX_RECEIVE_CHUNK));
            submission.buffer = buffer;
            submission.length = (int) Math.max(1, Math.min(wanted, buffer.byteSize()));
        }

        @Override
        protected WorkerMetrics.Kind meterKind() {
            return WorkerMetrics.Kind.RECEIVE;
        }

        @Override
        public boolean complete(int result, int flags) {
            if ((flags & Ring.COMPLETION_BUFFER) != 0) {
                MemorySegment selected = selecting.selectedBuffer(flags);
                try {
                    return arrived(result, selected);
                } finally {
                    selecting.returnSelected(flags);
                }
            }
            if (result == -Errno.ENOBUFS && selecting != null) {
                // Every selected buffer was out and nothing left the socket: the next submission brings a buffer
                // of its own, so this receive goes on however many buffers other receives hold.
                selecting.selectionExhausted();
                ownBuffer = true;
                return false;
            }
            return arrived(result, buffer);
        }

        @Override
        public boolean complete(int result) {
            return arrived(result, buffer);
        }

        @Override
        public void dropCompletion(int result, int flags) {
            if ((flags & Ring.COMPLETION_BUFFER) != 0) {
                // Closed while the kernel filled a selected buffer: its bytes are dropped, as a cancelled
                // receive's are, and the buffer goes back to the ring.
                selecting.selectedBuffer(flags);
                selecting.returnSelected(flags);
            }
        }

        /**
         * A completion: {@code result} bytes, if positive, in {@code from} (the receive's own buffer or the one
         * the ring selected), unless the bytes went straight into the caller's buffer.
         */
        private boolean arrived(int result, MemorySegment from) {
            if (isTransient(result)) {
                return false;
            }
            if (result <= 0) {
                String why = result == 0 ? "the peer closed the connection" : Errno.describe(-result);
                poisoned = "a failed receive (" + why + ")";
                landLent();
                dropCollected();
                return fail(new RecvFailedException("receive of " + length + " bytes from " + sides.peer
                        + " failed after " + done + " bytes: " + why));
            }
            if (target != null) {
                done += result;
                if (done < length) {
                    return false;
                }
                landLent();
                return succeed(null);
            }
            if (done + result > collected.length) {
                // Grow with what arrived: to what these bytes need, or double (up to the length), so the
                // capacity stays within twice the bytes received and copying stays linear.
                int grown = (int) Math.max(done + result, Math.min(2L * collected.length, length));
                int more = grown - collected.length;
                if (!memory.tryCharge(more)) {
                    poisoned = "a receive refused by the runner's receive-memory bound";
                    long held = memory.held();
                    dropCollected();
                    return fail(new ReceiveLimitException(describe() + " needs " + more
                            + " more bytes of receive memory after " + (done + result)
                            + " arrived, past the runner's bound of " + memory.limits().perRunnerBytes()
                            + " bytes (ReceiveLimits.perRunnerBytes; " + held + " held)",
                            memory.limits().perRunnerBytes(), length));
                }
                collected = Arrays.copyOf(collected, grown);
            }
            MemorySegment.copy(from, ValueLayout.JAVA_BYTE, 0, collected, done, result);
            done += result;
            if (done < length) {
                return false;
            }
            byte[] ahead = done == length ? NOTHING : Arrays.copyOfRange(collected, length, done);
            // collected is this use's own array, never seen elsewhere: when it is exactly the message, it is the
            // result, with no second copy. It leaves the account with the caller; what was read ahead stays.
            byte[] message = collected.length == length ? collected : Arrays.copyOf(collected, length);
            memory.release(collected.length);
            collected = null;
            keepAhead(ahead);
            return succeed(message);
        }

        /**
         * Drops the array of a receive that will not return it, giving its memory back: at a failure, before the
         * awaiter can see it, so a caller that saw its receives fail sees their memory back; at retirement for
         * one that was closed or timed out.
         */
        private void dropCollected() {
            if (collected != null) {
                memory.release(collected.length);
                collected = null;
            }
        }

        @Override
        public void closedEarly() {
            poisoned = "a cancelled receive";
        }

        @Override
        public RuntimeException internalFailure(Throwable cause) {
            poisoned = "a receive that failed inside the runtime";
            return cause instanceof dev.lockstep.LockstepException typed ? typed
                    : new RecvFailedException(describe() + " failed inside the runtime: " + cause, cause);
        }

        @Override
        public Budget budget() {
            return Budget.INBOUND;
        }

        @Override
        public String describe() {
            return "receive of " + length + " bytes from " + sides.peer + (target != null ? " into a buffer" : "");
        }

        /**
         * Retirement: the buffer, the pool memory and the fd go ({@link RingRequest#release}), the receive leaves
         * {@link #pending} — before it can be reused, so the set never holds it under a later use — and it is
         * kept for the stream's next receive unless the kernel may still hold it.
         */
        @Override
        public void release(Ring ring) {
            super.release(ring);
            target = null;
            dropCollected();   // cancelled or closed: its bytes are dropped
            pool = null;
            pending.retired(link);
            if (reusable()) {
                spare.give(this);
            }
        }
    }

    private String receiveName() {
        String name = receiveName;
        if (name == null) {
            name = "receive from " + sides.peer;
            receiveName = name;
        }
        return name;
    }

    /** The stream's kept receive, or a new one, for a call on the calling fiber. */
    private Receive takeReceive() {
        Receive receive = spare.take();
        return receive != null ? receive : new Receive();
    }

    /**
     * Guards {@link #buffered}, the bytes received and not yet returned (a {@link FiberSafeLock}, not the stream's
     * monitor: a fiber must never queue on a lock its carrier may take). Whoever receives or peeks takes it (fibers
     * of any worker, plain threads), and so do this stream's receive requests in {@code prepare} and
     * {@code complete}, which run inside the worker's critical section: on the carrier in a service turn, or on a
     * fiber that turns its worker's ring itself ({@code InlineTurns.turn}). There a contended
     * {@link FiberSafeLock#lock()} would yield and unmount the fiber with the worker's state borrowed, which fails
     * the runner; those two take it with {@link FiberSafeLock#lockWithoutUnmounting()}, which spins for the few
     * array copies a holder does.
     */
    private final FiberSafeLock bufferedLock = new FiberSafeLock();
    private byte[] buffered = NOTHING;
    /** Set by {@link #close()} under {@link #bufferedLock}: bytes a receive takes ahead later are dropped. */
    private boolean bufferedClosed;
    /** The empty {@link #buffered}: shared, since an empty array cannot change. */
    private static final byte[] NOTHING = new byte[0];

    EngineStream(ConnectionSides sides, ReceiveMemory memory) {
        this.sides = sides;
        this.memory = memory;
        this.pending = new PendingSet(bufferedLock);
    }

    /**
     * Keeps bytes a receive read ahead for the next receive, charged to {@link #memory}, unless the stream
     * closed meanwhile. Called from a request's {@code complete}, inside the worker's critical section (see
     * {@link #bufferedLock}).
     */
    private void keepAhead(byte[] ahead) {
        if (ahead.length == 0) {
            return;
        }
        bufferedLock.lockWithoutUnmounting();
        try {
            // Under the lock close() takes too: either close sees these bytes and gives them back, or they are
            // never kept, so the account cannot keep a closed stream's bytes. Bytes are there already only if
            // two receives were pending at once, whose order the socket does not define anyway.
            if (!bufferedClosed) {
                memory.charge(ahead.length);
                if (buffered.length == 0) {
                    buffered = ahead;
                } else {
                    byte[] both = Arrays.copyOf(buffered, buffered.length + ahead.length);
                    System.arraycopy(ahead, 0, both, buffered.length, ahead.length);
                    buffered = both;
                }
            }
        } finally {
            bufferedLock.unlock();
        }
    }

    /** Refuses a receive longer than the per-connection bound: the operation fails and the stream is poisoned. */
    private Operation<byte[]> refusedAsTooLong(Worker worker, int length) {
        int bound = memory.limits().perConnectionBytes();
        poisoned = "a receive refused by the per-connection receive bound";
        String message = "receive of " + length + " bytes from " + sides.peer + " is past the per-connection bound"
                + " of " + bound + " bytes (ReceiveLimits.perConnectionBytes)";
        return worker.register(new Immediate(receiveName(), () -> {
            throw new ReceiveLimitException(message, bound, length);
        }));
    }

    @Override
    public Operation<byte[]> recv(int length) {
        if (length < 0) {
            throw new IllegalArgumentException("receive length must not be negative, was " + length);
        }
        if (length > MAX_RECV_BYTES) {
            throw new IllegalArgumentException("receive length must be at most Stream.MAX_RECV_BYTES ("
                    + MAX_RECV_BYTES + "), was " + length);
        }
        if (sides.isClosed(ConnectionSides.STREAM)) {
            throw new ClosedException("stream from " + sides.peer + " is closed");
        }
        Worker worker = Worker.requireCurrent("Stream.recv");
        if (poisoned != null) {
            return worker.register(new Immediate(receiveName(), () -> {
                throw new ClosedException("stream from " + sides.peer + " is unusable after " + poisoned);
            }));
        }
        if (length > memory.limits().perConnectionBytes()) {
            return refusedAsTooLong(worker, length);
        }
        bufferedLock.lock();
        try {
            if (buffered.length >= length) {
                byte[] ready = Arrays.copyOf(buffered, length);
                buffered = Arrays.copyOfRange(buffered, length, buffered.length);
                memory.release(length);
                return worker.register(new Immediate(receiveName(), () -> ready));
            }
        } finally {
            bufferedLock.unlock();
        }
        SharedFd held = sides.fd.acquire();
        Receive request = takeReceive();
        request.intoArray(held, worker.buffers(), length);
        return request.register(worker, null);
    }

    @Override
    public Operation<Void> recvInto(IoBuffer into, int at, int length) {
        return recvInto(into, at, length, null);
    }

    @Override
    public void recvFully(IoBuffer into, int at, int length) {
        Registration<Object> reuse = Fibers.lendReusable();
        try {
            Registration.awaitAndClose(recvInto(into, at, length, reuse));
        } finally {
            Registration.giveBack(reuse);
        }
    }

    /** {@link #recvInto(IoBuffer, int, int)}, admitted with {@code reuse} when it is not null. */
    private Operation<Void> recvInto(IoBuffer into, int at, int length, Registration<?> reuse) {
        if (length < 0 || length > MAX_RECV_BYTES) {
            throw new IllegalArgumentException("receive length must be in [0, Stream.MAX_RECV_BYTES ("
                    + MAX_RECV_BYTES + ")], was " + length);
        }
        if (sides.isClosed(ConnectionSides.STREAM)) {
            throw new ClosedException("stream from " + sides.peer + " is closed");
        }
        Worker worker = Worker.requireCurrent("Stream.recvInto");
        PooledBuffer buffer = WorkerBuffers.check(worker, into, at, length, "Stream.recvInto");
        if (poisoned != null) {
            return worker.register(new Immediate(receiveName(), () -> {
                throw new ClosedException("stream from " + sides.peer + " is unusable after " + poisoned);
            }));
        }
        MemorySegment target = buffer.memory();
        int already;
        bufferedLock.lock();
        try {
            // Bytes an earlier receive took beyond what it asked for come first. The buffer is held by the
            // caller here (checked above), so copying into it at the call races with no kernel.
            already = Math.min(length, buffered.length);
            MemorySegment.copy(buffered, 0, target, ValueLayout.JAVA_BYTE, at, already);
            if (already > 0) {
                buffered = already == buffered.length ? NOTHING
                        : Arrays.copyOfRange(buffered, already, buffered.length);
                memory.release(already);
            }
        } finally {
            bufferedLock.unlock();
        }
        if (already == length) {
            return worker.register(new Immediate(receiveName(), () -> null));
        }
        // The fd reference first: a stream closed meanwhile throws here, with the buffer still the caller's.
        SharedFd held = sides.fd.acquire();
        buffer.markInFlight();
        Receive request = takeReceive();
        request.intoBuffer(held, buffer, at, length, already);
        return request.register(worker, reuse);
    }

    @Override
    public byte[] peek(int maxLength) {
        bufferedLock.lock();
        try {
            if (maxLength < 0) {
                throw new IllegalArgumentException("peek length must not be negative, was " + maxLength);
            }
            return Arrays.copyOf(buffered, Math.min(maxLength, buffered.length));
        } finally {
            bufferedLock.unlock();
        }
    }

    /**
     * Stops receiving: a pending receive is closed — cancelled in the kernel, its awaiter woken with
     * {@link ClosedException} — and the socket closes once both sides are closed and it retired.
     */
    @Override
    public void close() {
        pending.closeAll();
        bufferedLock.lock();
        try {
            bufferedClosed = true;
            memory.release(buffered.length);
            buffered = NOTHING;
        } finally {
            bufferedLock.unlock();
        }
        sides.closeSide(ConnectionSides.STREAM);
    }
}
