package dev.lockstep;

/**
 * Starts a root task and runs the runtime until the root task finishes.
 *
 * <p>When {@code start} returns, every task spawned by the root has been aborted, every worker has retired,
 * and every file descriptor, native buffer and fiber the runtime owned has been released — on runtime-uring
 * including the blobs, listeners and connections the tasks never closed, which are closed then. Operations and
 * handles that escaped the root observe {@link ClosedException} when polled afterwards.
 *
 * <p>A runner is single use: a second {@code start} throws {@link ClosedException}. {@code start} must not
 * be called from a fiber of a runtime.
 *
 * <p>Interruption: interrupting the thread in {@code start} aborts every task, as a runtime failure does, and
 * {@code start} throws {@link AbortedException} with the interrupt status set once the workers have retired — or,
 * if a fiber is stuck where no abort reaches it (a spin, a monitor), after a bounded grace period, naming what was
 * left running and closing nothing under it. A caller's deadline therefore always gets {@code start} back. Both
 * runtimes answer the same way; the simulator, whose loop runs on a thread of its own while the caller's thread
 * waits for it, aborts at its next step.
 *
 * <p>Inside the run, {@code Thread.interrupt()} of a task's fiber ends none of its waits: every Lockstep wait in a
 * task (an operation's, a handle's, a sleep, a channel's) parks the fiber properly and returns or throws as it
 * otherwise would, with the interrupt status still set; a plain thread's wait on an operation of the run is ended
 * by an interrupt with {@link AbortedException} ({@link Operation} says exactly how). Both runtimes answer the
 * same way.
 */
public interface Runner {

    /**
     * Runs {@code root} to completion.
     *
     * @param root the root task
     * @param <T> the root's value
     * @return what the root returned
     * @throws LockstepException a runtime failure: the runner was already used ({@link ClosedException})
     * @throws RuntimeException a failure of the runtime itself — a waker callback run by a worker threw, a
     *     worker's ring failed — rethrown once every worker has fully retired; if several happened, the first,
     *     with the later ones {@linkplain Throwable#getSuppressed() suppressed}. A request that fails on its own
     *     (even by running out of memory while it is prepared) fails only that request, typed. Otherwise,
     *     whatever the root threw, rethrown unchanged; a checked exception from the
     *     root is wrapped in {@link ExitedException} with it as the cause
     */
    <T> T start(Task<T> root);
}
