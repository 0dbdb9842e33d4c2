package dev.lockstep.sim;

/**
 * The replay line of a failed simulated run, attached to a root task's exception as a suppressed exception so
 * that the printed stack trace ends with the line that reruns the run. It has no stack trace of its own.
 */
public final class ReplayNote extends RuntimeException {
    /**
     * @param message when the run failed, its seed, and the replay line
     */
    public ReplayNote(String message) {
        super(message, null, false, false);
    }
}
