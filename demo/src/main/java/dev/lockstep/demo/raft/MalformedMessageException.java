package dev.lockstep.demo.raft;

/**
 * A message from a peer or a client that is not one of the protocol's ({@link Messages}): a frame length out of
 * range, an unknown type, a count that does not match the frame. The connection it came on is closed; the node's
 * state is untouched.
 */
public final class MalformedMessageException extends RuntimeException {
    /**
     * @param message what is wrong, naming the bad value
     */
    public MalformedMessageException(String message) {
        super(message);
    }
}
