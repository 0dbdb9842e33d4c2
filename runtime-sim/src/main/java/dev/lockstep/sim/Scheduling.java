package dev.lockstep.sim;

/**
 * How the simulator orders fiber steps and the service turns of its workers ({@link SimConfig#scheduling()}).
 *
 * <p>In production each worker is a thread: while worker 0 is half-way through its service turn (it staged a
 * sync, it has not yet reaped the completion), a fiber on worker 1 may admit a request, and the kernel may
 * complete I/O while a worker thread is busy. Bugs that live between admission on one worker and service on
 * another are only found by a scheduler that explores those interleavings.
 */
public enum Scheduling {
    /**
     * The default. With more than one worker, each step the seeded scheduler picks one action among: a step of
     * any ready fiber whose worker is not in the middle of a service turn, the second half of any worker's
     * service turn ({@link dev.lockstep.engine.EngineHooks#serviceHalf}: a turn is cut in two where the worker is
     * between critical sections: staging, then the {@code enter} that submits and reaps), the first half of a
     * turn of any worker that has work, and letting time pass: the clock jumps to the next ring event or
     * timer although work is runnable, as when every worker thread is busy or descheduled, if that event is no
     * further away than the slowest ring request ({@link KernelBehavior#maxLatencyNanos()}). A worker's
     * own fibers never run inside its turn: they share its thread. With one worker this is the same as
     * {@link #SERVICE_FIRST}: there is no other thread to interleave with.
     */
    INTERLEAVED,
    /**
     * The order of earlier versions, for comparison: every step services every worker that has work, whole
     * turns in index order, then runs one fiber step chosen by the seed. Requests admitted by a fiber are never
     * raced against another worker's half-done turn.
     */
    SERVICE_FIRST
}
