package dev.lockstep.kernel;

/**
 * The body of a {@link Opcode#BLOCKING_CALL}: synchronous {@link SystemCalls} that may block for as long as a
 * device takes (a directory {@code fsync}), submitted to a {@link Ring} so that they run <em>off</em> the
 * worker that owns the ring, which goes on servicing its timers, completions and fibers meanwhile.
 *
 * <h2>Who runs it</h2>
 * runtime-uring runs it on an offload thread of its kernel and then posts the completion to the submitting
 * ring, waking it; the simulator runs it on its one thread when the request is submitted (in a service turn,
 * or in the step of a fiber that turns its worker's ring itself), charging the
 * latency of each system call inside to this request's completion time instead of the clock, so other
 * workers' time goes on. Either way it runs exactly once per submission, and its completion is delivered to
 * the submitting ring's {@link CompletionSink} like any other.
 *
 * <h2>Memory ordering</h2>
 * Whatever the call writes before it returns happens-before the delivery of its completion on the ring's
 * owning thread (runtime-uring publishes the completion through a concurrent queue), so the call may leave
 * its results in fields of the request that submitted it, for that request to read when it completes.
 *
 * <h2>Contract</h2>
 * The call must not touch the submitting worker's state, must not wait for any worker (it may run while
 * that worker is waiting for it), and must not throw: it catches what it raises and reports it through its
 * own fields. A call that throws anyway completes with {@code -EIO} on runtime-uring and fails the run in the
 * simulator.
 */
@FunctionalInterface
public interface BlockingCall {
    /**
     * Runs the calls.
     *
     * @return the completion's result: {@code >= 0}, or {@code -errno}
     */
    int run();

    /**
     * The application's source line that asked for this call, when the kernel {@linkplain Kernel#callerSite()
     * records one}; for diagnostics only (never part of what the call does).
     *
     * @return what {@link Kernel#callerSite()} returned, or null when not recorded
     */
    default CallSite requestedFrom() {
        return null;
    }
}
