package dev.lockstep.demo.raft;

/**
 * A {@link RaftClient} call that got no answer it can give: no node answered as leader within its tries, or the
 * leader lost its leadership (or the connection broke) after taking a command, whose outcome is then unknown (it may
 * still be committed). The message says which.
 */
public final class RaftUnavailableException extends RuntimeException {
    /**
     * @param message what happened
     */
    public RaftUnavailableException(String message) {
        super(message);
    }
}
