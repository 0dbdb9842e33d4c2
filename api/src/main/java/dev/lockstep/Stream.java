package dev.lockstep;

/**
 * The receiving side of a connection.
 *
 * <p>A receive returns exactly the bytes asked for, or fails; after a failure or a cancelled receive the
 * stream is poisoned (buffered partial data is discarded) and later receives fail with
 * {@link ClosedException}.
 *
 * <p>Waiting for a receive ({@code recv(n).await()}, {@link #recvFully}) follows {@link Operation}'s rule for
 * interrupts: in a task an interrupt does not end the wait (the status is kept); on a plain thread it ends it with
 * {@link AbortedException}, closing the receive, which poisons the stream as any closed receive does.
 *

 * <h2>Memory</h2>
 * What a stream holds grows with the bytes that arrived, not with the length asked for: {@code recv(n)} reserves
 * no heap for bytes still to come (its array grows, at most doubling, as they arrive), and while it waits it holds
 * no native buffer: the runtime's ring lends one of its own (16 KiB) when bytes arrive, and takes it back once they
 * were copied out; only where a ring lends none (io_uring before Linux 5.19) or all of its buffers are out does a
 * receive read through a native chunk of its worker's pool of 16 to 64 KiB. So an idle connection holds no receive
 * buffer, and a peer that announces a large frame and then sends little or nothing costs about what it sent. The runner's {@link ReceiveLimits} bound it further: a
 * {@code recv} longer than the per-connection bound fails with {@link ReceiveLimitException}, and a receive whose
 * bytes would take the runner past its per-runner bound fails with it too (the stream is poisoned, other
 * streams go on). Closing the stream gives back what it held. {@link #recvInto} receives into the caller's own
 * buffer and holds no memory beyond bytes an earlier {@code recv} took ahead.
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
     * @return the bytes; fails with {@link RecvFailedException} if the peer closes or resets first, and with
     *     {@link ReceiveLimitException} naming the bound and {@code length} when {@code length} is past the
     *     runner's per-connection bound or the bytes received would take the runner past its per-runner bound
     *     (see {@link ReceiveLimits})
     * @throws IllegalArgumentException at the call, naming the length, past {@link #MAX_RECV_BYTES} or negative
     */
    Operation<byte[]> recv(int length);

    /**
     * Receives exactly {@code length} bytes into {@code into}, starting {@code at} bytes into the buffer: bytes
     * already buffered by earlier receives first, then straight from the kernel into the buffer. The buffer is
     * in flight until the operation completes (see {@link IoBuffer}); a failed or cancelled receive poisons the
     * stream as {@link #recv} does and leaves unspecified bytes in the buffer's range.
     *
     * @param into a held buffer of the calling worker
     * @param at where in the buffer, {@code 0 <= at} and {@code at + length <= into.capacity()}
     * @param length {@code 0 <= length <= MAX_RECV_BYTES}
     * @return completes when the bytes are in the buffer; fails with {@link RecvFailedException} if the peer
     *     closes or resets first
     * @throws IllegalArgumentException naming the value, for a range outside the buffer or a buffer of another
     *     worker or runner
     * @throws ClosedException for a released buffer
     * @throws IllegalStateException for a buffer in flight
     */
    Operation<Void> recvInto(IoBuffer into, int at, int length);

    /**
     * Receives exactly {@code length} bytes into {@code into}, waiting on the calling task.
     *
     * <p>Equivalent to {@code recvInto(...).await()}, but the caller never sees the operation, so the runtime makes
     * none per call: on a fiber this call allocates nothing in steady state (the buffer paths' zero-garbage
     * form). While it waits the buffer is in flight exactly as with {@code recvInto}. It throws what that
     * {@code await} would throw, and on the way out (a failure, the task's abort, an enclosing
     * {@link Clock#timeout}) the request is closed as closing the operation would close it, so nothing it
     * started outlives the call.
     * A receive ended early this way poisons the stream as a closed {@code recvInto} does.
     *
     * @param into a held buffer of the calling worker
     * @param at where in the buffer, {@code 0 <= at} and {@code at + length <= into.capacity()}
     * @param length {@code 0 <= length <= MAX_RECV_BYTES}
     * @throws RecvFailedException if the peer closes or resets first
     */
    default void recvFully(IoBuffer into, int at, int length) {
        recvInto(into, at, length).await();
    }

    /**
     * Bytes already buffered and not yet received, without consuming them or waiting.
     *
     * @param maxLength at most this many
     * @return possibly empty
     */
    byte[] peek(int maxLength);

    /**
     * Stops receiving: a pending receive is closed (its awaiter reads {@link ClosedException}) and later
     * receives are refused. Idempotent.
     */
    @Override
    void close();
}
