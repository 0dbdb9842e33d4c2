package dev.lockstep.sync;

import dev.lockstep.ClosedException;
import dev.lockstep.Operation;
import java.util.ArrayDeque;
import java.util.Objects;

/**
 * A bounded multi-producer, multi-consumer queue between tasks, whose waiting goes through Lockstep: a full
 * channel makes {@link #send} pending, an empty one makes {@link #receive} pending, and both are
 * {@link Operation}s (await, poll, close, race with {@link Select}, bound with {@code Clock.timeout}). In the
 * simulator every hand-over is decided by the order of the calls, so runs replay.
 *
 * <p><b>Order.</b> Values are received in the order their sends were accepted; waiting senders are accepted, and
 * waiting receivers served, first come first served.
 *
 * <p><b>Closing the channel</b> ({@link #close()}): later sends, and sends still waiting, fail with
 * {@link ClosedException} and their values are not in the channel; values already accepted stay receivable; once
 * they are drained, receives fail with {@link ClosedException}.
 *
 * <p><b>Closing an operation.</b> A pending send leaves the line and its value is not sent; a send that was
 * accepted stays sent. A pending receive leaves the line; a receive that was handed a value nobody observed gives
 * the value back to the front of the channel (to the next waiting receiver, or ahead of the buffered values), so
 * no accepted value is ever lost.
 *
 * <p><b>Threads.</b> Any fiber of any worker and plain threads may send and receive; the state is guarded by one
 * lock held only for queue updates (see {@link Waiting}).
 *
 * @param <T> the values, never null
 */
public final class Channel<T> implements AutoCloseable {
    private final FiberSafeLock lock = new FiberSafeLock();
    private final int capacity;
    private final ArrayDeque<T> buffer;
    private final ArrayDeque<Send> senders = new ArrayDeque<>();
    private final ArrayDeque<Receive> receivers = new ArrayDeque<>();
    private boolean closed;

    private Channel(int capacity) {
        this.capacity = capacity;
        this.buffer = new ArrayDeque<>(Math.min(capacity, 64));
    }

    /**
     * A channel that holds up to {@code capacity} values not yet received.
     *
     * @param capacity at least 1
     * @param <T> the values
     * @return an open, empty channel
     * @throws IllegalArgumentException naming the value if it is less than 1
     */
    public static <T> Channel<T> bounded(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("a channel's capacity must be at least 1, was " + capacity);
        }
        return new Channel<>(capacity);
    }

    /**
     * Sends a value: ready at once while there is room, else once a receive makes room.
     *
     * @param value the value, not null
     * @return an operation that completes when the channel accepted the value
     * @throws NullPointerException if the value is null
     */
    public Operation<Void> send(T value) {
        Objects.requireNonNull(value, "value");
        Send send = new Send(value);
        Wakes wakes = new Wakes();
        lock.lock();
        try {
            if (closed) {
                wakes.wake(send.completeLocked(null, closedFailure("send to")));
            } else if (!receivers.isEmpty()) {
                wakes.wake(receivers.pollFirst().completeLocked(value, null));
                wakes.wake(send.completeLocked(null, null));
            } else if (buffer.size() < capacity) {
                buffer.addLast(value);
                wakes.wake(send.completeLocked(null, null));
            } else {
                senders.addLast(send);
            }
        } finally {
            lock.unlock();
        }
        wakes.run();
        return send;
    }

    /**
     * Sends a value if there is room now.
     *
     * @param value the value, not null
     * @return true if the channel accepted it, false if it is full
     * @throws ClosedException if the channel is closed
     */
    public boolean trySend(T value) {
        Objects.requireNonNull(value, "value");
        Wakes wakes = new Wakes();
        boolean accepted;
        lock.lock();
        try {
            if (closed) {
                throw closedFailure("send to");
            }
            if (!receivers.isEmpty()) {
                wakes.wake(receivers.pollFirst().completeLocked(value, null));
                accepted = true;
            } else if (buffer.size() < capacity) {
                buffer.addLast(value);
                accepted = true;
            } else {
                accepted = false;
            }
        } finally {
            lock.unlock();
        }
        wakes.run();
        return accepted;
    }

    /**
     * Receives the next value: ready at once if one is buffered, else once one is sent.
     *
     * @return an operation whose value is the value received; it fails with {@link ClosedException} if the
     *     channel is closed and drained
     */
    public Operation<T> receive() {
        Receive receive = new Receive();
        Wakes wakes = new Wakes();
        lock.lock();
        try {
            T value = takeLocked(wakes);
            if (value != null) {
                wakes.wake(receive.completeLocked(value, null));
            } else if (closed) {
                wakes.wake(receive.completeLocked(null, closedFailure("receive from")));
            } else {
                receivers.addLast(receive);
            }
        } finally {
            lock.unlock();
        }
        wakes.run();
        return receive;
    }

    /**
     * Receives a value if one is buffered now.
     *
     * @return the value, or null if the channel is empty
     * @throws ClosedException if the channel is closed and drained
     */
    public T tryReceive() {
        Wakes wakes = new Wakes();
        T value;
        lock.lock();
        try {
            value = takeLocked(wakes);
            if (value == null && closed) {
                throw closedFailure("receive from");
            }
        } finally {
            lock.unlock();
        }
        wakes.run();
        return value;
    }

    /**
     * Values buffered and not yet received.
     *
     * @return from 0 to the capacity (one more, briefly, after an unobserved receive gave its value back)
     */
    public int size() {
        lock.lock();
        try {
            return buffer.size();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Whether {@link #close()} was called.
     *
     * @return true once closed
     */
    public boolean isClosed() {
        lock.lock();
        try {
            return closed;
        } finally {
            lock.unlock();
        }
    }

    /** Closes the channel for sending; see the class documentation. Idempotent, from any thread. */
    @Override
    public void close() {
        Wakes wakes = new Wakes();
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            while (!senders.isEmpty()) {
                wakes.wake(senders.pollFirst().completeLocked(null, closedFailure("send to")));
            }
            // Receivers wait only while the buffer is empty, so nothing more will reach them.
            while (!receivers.isEmpty()) {
                wakes.wake(receivers.pollFirst().completeLocked(null, closedFailure("receive from")));
            }
        } finally {
            lock.unlock();
        }
        wakes.run();
    }

    /** The next buffered value, refilling the buffer from the first waiting sender; null if empty. */
    private T takeLocked(Wakes wakes) {
        T value = buffer.pollFirst();
        if (value != null && !senders.isEmpty() && buffer.size() < capacity) {
            Send next = senders.pollFirst();
            buffer.addLast(next.value);
            wakes.wake(next.completeLocked(null, null));
        }
        return value;
    }

    private ClosedException closedFailure(String what) {
        return new ClosedException("cannot " + what + " a closed channel (capacity " + capacity + ")");
    }

    private final class Send extends Waiting<Void> {
        private final T value;

        Send(T value) {
            super(Channel.this.lock);
            this.value = value;
        }

        @Override
        void cancelLocked(Wakes wakes) {
            senders.remove(this);
        }

        @Override
        String describe() {
            return "a send to a channel";
        }
    }

    private final class Receive extends Waiting<T> {
        Receive() {
            super(Channel.this.lock);
        }

        @Override
        void cancelLocked(Wakes wakes) {
            receivers.remove(this);
        }

        @Override
        void dropLocked(T won, Wakes wakes) {
            if (!receivers.isEmpty()) {
                wakes.wake(receivers.pollFirst().completeLocked(won, null));
            } else {
                buffer.addFirst(won);
            }
        }

        @Override
        String describe() {
            return "a receive from a channel";
        }
    }
}
