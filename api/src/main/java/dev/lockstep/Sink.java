package dev.lockstep;

/**
 * The sending side of a connection.
 *
 * <p>A send delivers every byte or fails; after a failure part of the message may have been delivered, and
 * the sink is poisoned: later sends fail with {@link ClosedException}. Closing a send operation before it
 * completed also poisons the sink (the peer may have seen part of it).
 */
public interface Sink extends AutoCloseable {

    /**
     * The most bytes one send may carry, all chunks together: 64 MiB. A longer {@code send} is refused at the
     * call with {@link IllegalArgumentException} naming the length, on every runtime.
     */
    int MAX_SEND_BYTES = 64 << 20;

    /**
     * Sends the chunks in order.
     *
     * @param chunks the bytes, at most {@link #MAX_SEND_BYTES} in all; copied at the call
     * @return completes when every byte was handed to the kernel; fails with {@link SendFailedException}
     */
    Operation<Void> send(byte[]... chunks);

    /**
     * Sends {@code length} bytes of {@code from}, starting {@code at} bytes into the buffer, without a copy.
     * The buffer is in flight until the operation completes (see {@link IoBuffer}); closing the operation
     * early poisons the sink as it does for {@link #send}.
     *
     * @param from a held buffer of the calling worker
     * @param at where in the buffer, {@code 0 <= at} and {@code at + length <= from.capacity()}
     * @param length {@code 0 <= length <= MAX_SEND_BYTES}
     * @return completes when every byte was handed to the kernel; fails with {@link SendFailedException}
     * @throws IllegalArgumentException naming the value, for a range outside the buffer or a buffer of another
     *     worker or runner
     * @throws ClosedException for a released buffer
     * @throws IllegalStateException for a buffer in flight
     */
    Operation<Void> sendFrom(IoBuffer from, int at, int length);

    /**
     * Sends {@code length} bytes of {@code from}, waiting on the calling task until every byte was handed to
     * the kernel.
     *
     * <p>Equivalent to {@code sendFrom(...).await()}, but the caller never sees the operation, so the runtime makes
     * none per call: on a fiber this call allocates nothing in steady state (the buffer paths' zero-garbage
     * form). While it waits the buffer is in flight exactly as with {@code sendFrom}. It throws what that
     * {@code await} would throw, and on the way out (a failure, the task's abort, an enclosing
     * {@link Clock#timeout}) the request is closed as closing the operation would close it, so nothing it
     * started outlives the call.
     * A send ended early this way poisons the sink as a closed {@code sendFrom} does.
     *
     * @param from a held buffer of the calling worker
     * @param at where in the buffer, {@code 0 <= at} and {@code at + length <= from.capacity()}
     * @param length {@code 0 <= length <= MAX_SEND_BYTES}
     * @throws SendFailedException if the send fails
     */
    default void sendFully(IoBuffer from, int at, int length) {
        sendFrom(from, at, length).await();
    }

    /**
     * Shuts the sending direction down (a half-close, {@code shutdown(SHUT_WR)}): the peer receives every byte
     * sent before it, then end of stream (a receive, one already waiting included, fails with
     * {@link RecvFailedException} saying the peer closed the connection), and may still send: this connection's
     * {@link Stream} goes on receiving until it is closed. A later send is refused with {@link ClosedException}.
     * A reset or a crash of either end is no end of stream: a receive fails with {@code ECONNRESET}. Idempotent.
     */
    @Override
    void close();
}
