package dev.lockstep.sim;

/**
 * A {@link SimNode} was asked to do what its state does not allow: pause a node that is down, restart one that
 * runs, resume one that is not paused. The message names the node, its state and the call; nothing changed.
 */
public final class NodeStateException extends IllegalStateException {
    private static final long serialVersionUID = 1L;
    private final int id;
    private final SimNode.State state;

    NodeStateException(int id, SimNode.State state, String call, String needed) {
        super("node " + id + " is " + state + ": " + call + " needs a node that is " + needed);
        this.id = id;
        this.state = state;
    }

    /**
     * The node's id.
     *
     * @return the id
     */
    public int id() {
        return id;
    }

    /**
     * The node's state when the call was refused.
     *
     * @return the state
     */
    public SimNode.State state() {
        return state;
    }
}
