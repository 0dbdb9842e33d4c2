package dev.lockstep;

/**
 * Bounds on the memory a runner holds for bytes received from peers and not yet returned to the caller: the
 * array a {@link Stream#recv} fills and the bytes received beyond what was asked (kept for the next receive
 * and {@link Stream#peek}). Both runtimes take them ({@code UringRunner.Builder.receiveLimits},
 * {@code SimConfig.Builder.receiveLimits}) and enforce them the same way.
 *
 * <p>That memory grows with the bytes that actually arrived, never with the length asked for: a {@code recv(n)}
 * reserves nothing for bytes still to come, and its array grows, at most doubling, as they arrive. So a peer
 * that announces a large frame and sends nothing costs nothing beyond the receive's kernel buffer.
 *
 * <ul>
 *   <li>{@code perConnectionBytes}: a {@code recv} of more is refused with {@link ReceiveLimitException} (the
 *       operation fails, the stream is poisoned), and a stream never holds more than this many received bytes.
 *   <li>{@code perRunnerBytes}: when a receive's array would have to grow past the bytes the whole runner
 *       (one simulated node, in a {@code SimCluster}) holds for all its streams, that receive fails with
 *       {@link ReceiveLimitException} and its stream is poisoned; other streams go on. The memory comes back
 *       as receives return their bytes and streams close.
 * </ul>
 *
 * <p>Not counted: a buffer the caller passes to {@link Stream#recvInto} (the caller's own), and the native
 * memory each pending {@code recv} receives through, between 16 and 64 KiB from its worker's
 * {@link BufferPool} (which keeps it for reuse until the runner ends).
 *
 * @param perConnectionBytes in {@code [1, Stream.MAX_RECV_BYTES]}; default {@link Stream#MAX_RECV_BYTES}
 * @param perRunnerBytes at least 1; default {@link #DEFAULT_PER_RUNNER_BYTES}
 */
public record ReceiveLimits(int perConnectionBytes, long perRunnerBytes) {
    /** The default per-runner bound: 256 MiB, four maximal receives at once. */
    public static final long DEFAULT_PER_RUNNER_BYTES = 256L << 20;
    /** Every stream may receive up to {@link Stream#MAX_RECV_BYTES}; a runner holds at most 256 MiB. */
    public static final ReceiveLimits DEFAULT = new ReceiveLimits(Stream.MAX_RECV_BYTES, DEFAULT_PER_RUNNER_BYTES);

    /**
     * Checks both bounds.
     *
     * @throws IllegalArgumentException naming the bad bound and its value
     */
    public ReceiveLimits {
        if (perConnectionBytes < 1 || perConnectionBytes > Stream.MAX_RECV_BYTES) {
            throw new IllegalArgumentException("ReceiveLimits.perConnectionBytes must be in [1, Stream.MAX_RECV_BYTES ("
                    + Stream.MAX_RECV_BYTES + ")], was " + perConnectionBytes);
        }
        if (perRunnerBytes < 1) {
            throw new IllegalArgumentException("ReceiveLimits.perRunnerBytes must be at least 1, was "
                    + perRunnerBytes);
        }
    }
}
