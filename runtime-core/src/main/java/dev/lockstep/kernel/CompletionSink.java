package dev.lockstep.kernel;

/** Receives completions from {@link Ring#enter}, on the ring's owning thread. */
@FunctionalInterface
public interface CompletionSink {
    /**
     * One completion: the Java form of a CQE.
     *
     * @param userData the submission's user data
     * @param result non-negative on success, {@code -errno} on failure
     * @param flags io_uring CQE flags, 0 where the kernel has none
     */
    void complete(long userData, int result, int flags);
}
