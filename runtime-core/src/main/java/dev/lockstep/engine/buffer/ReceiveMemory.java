package dev.lockstep.engine.buffer;

import dev.lockstep.ReceiveLimits;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One runner's account of buffered receive memory (see {@link ReceiveLimits}): the capacity of the arrays its
 * pending {@code recv}s fill and the bytes its streams took ahead, charged as they grow and given back as
 * receives return their bytes, fail or close and as streams close.
 *
 * <p>Thread-safe and lock-free: streams of every worker, and plain threads receiving or closing, charge and
 * release one atomic counter. A charge that would pass the bound is refused by the CAS that would have made
 * it, so the count never exceeds the bound through {@link #tryCharge}.
 */
public final class ReceiveMemory {
    private final ReceiveLimits limits;
    private final AtomicLong held = new AtomicLong();

    /**
     * @param limits the bounds
     */
    public ReceiveMemory(ReceiveLimits limits) {
        this.limits = java.util.Objects.requireNonNull(limits, "limits");
    }

    /**
     * The bounds.
     *
     * @return the limits
     */
    public ReceiveLimits limits() {
        return limits;
    }

    /**
     * Bytes of buffered receive memory held now, by every stream of the runner.
     *
     * @return bytes, {@code >= 0}
     */
    public long held() {
        return held.get();
    }

    /**
     * Charges {@code bytes} unless that would pass the per-runner bound.
     *
     * @param bytes {@code >= 0}
     * @return true if charged
     */
    public boolean tryCharge(long bytes) {
        while (true) {
            long was = held.get();
            if (was + bytes > limits.perRunnerBytes()) {
                return false;
            }
            if (held.compareAndSet(was, was + bytes)) {
                return true;
            }
        }
    }

    /**
     * Charges {@code bytes} that replace memory about to be released (a receive's surplus, cut from the array it
     * releases next), so no bound is checked.
     *
     * @param bytes {@code >= 0}
     */
    public void charge(long bytes) {
        held.addAndGet(bytes);
    }

    /**
     * Gives back {@code bytes} charged earlier.
     *
     * @param bytes {@code >= 0}
     */
    public void release(long bytes) {
        held.addAndGet(-bytes);
    }
}
