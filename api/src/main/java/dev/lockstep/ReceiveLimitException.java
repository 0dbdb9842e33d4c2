package dev.lockstep;

/**
 * A receive refused by a {@link ReceiveLimits} bound: one longer than the per-connection bound, or one whose
 * received bytes would take the runner past its per-runner bound. The stream is poisoned, as after any failed
 * receive; nothing was corrupted and the memory it held is given back. The message names the bound, the
 * requested size and the peer.
 */
public final class ReceiveLimitException extends NetworkException {
    private final long bound;
    private final long requested;

    /**
     * @param message what was refused, naming the bound, the requested size and the peer
     * @param bound the bound in bytes
     * @param requested the bytes the receive asked for
     */
    public ReceiveLimitException(String message, long bound, long requested) {
        super(message, null);
        this.bound = bound;
        this.requested = requested;
    }

    /**
     * The bound that refused the receive.
     *
     * @return bytes
     */
    public long bound() {
        return bound;
    }

    /**
     * The length of the refused receive.
     *
     * @return bytes
     */
    public long requested() {
        return requested;
    }
}
