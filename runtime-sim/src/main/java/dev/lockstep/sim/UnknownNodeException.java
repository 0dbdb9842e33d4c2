package dev.lockstep.sim;

/**
 * A {@link SimCluster} was asked for a node it does not have. The message names the id and the ids there are.
 */
public final class UnknownNodeException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    private final int id;

    UnknownNodeException(int id, int nodes) {
        super("no node " + id + " in this cluster: "
                + (nodes == 0 ? "it has no nodes yet" : "its nodes are 1 to " + nodes));
        this.id = id;
    }

    /**
     * The id that was asked for.
     *
     * @return the bad id
     */
    public int id() {
        return id;
    }
}
