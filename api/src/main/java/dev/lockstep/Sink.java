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

    /** Shuts the sending direction down; the peer reads end of stream. Idempotent. */
    @Override
    void close();
}
