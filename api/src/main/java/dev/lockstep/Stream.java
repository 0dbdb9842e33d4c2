package dev.lockstep;

/**
 * The receiving side of a connection.
 *
 * <p>A receive returns exactly the bytes asked for, or fails; after a failure or a cancelled receive the
 * stream is poisoned (buffered partial data is discarded) and later receives fail with
 * {@link ClosedException}.
 */
public interface Stream extends AutoCloseable {

    /**
     * The most bytes one receive may ask for: 64 MiB. A longer {@code recv} is refused at the call with
     * {@link IllegalArgumentException} naming the length, on every runtime — a length read from a peer cannot
     * make a worker allocate gigabytes. Receive more in several calls.
     */
    int MAX_RECV_BYTES = 64 << 20;

    /**
     * Receives exactly {@code length} bytes.
     *
     * @param length {@code 0 <= length <= MAX_RECV_BYTES}
     * @return the bytes; fails with {@link RecvFailedException} if the peer closes or resets first
     */
    Operation<byte[]> recv(int length);

    /**
     * Bytes already buffered and not yet received, without consuming them or waiting.
     *
     * @param maxLength at most this many
     * @return possibly empty
     */
    byte[] peek(int maxLength);

    /** Stops receiving. Idempotent. */
    @Override
    void close();
}
