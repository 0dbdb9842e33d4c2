package dev.lockstep.testing;

import dev.lockstep.sim.SimControl;
import dev.lockstep.sim.SimNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A network split of a cluster's nodes into two sides, made in one call and healed in one: every node of one side
 * is partitioned from every node of the other, both directions ({@link SimControl#partition}); nodes on the same
 * side still reach each other. {@link #isolate} cuts one node from all the others; {@link #between} makes any
 * split, such as a minority and a majority.
 *
 * <p>{@link #heal()} restores exactly the pairs this split cut, so another split or nemesis that cut one of the
 * same pairs finds it healed too (partitions are per pair of hosts, not counted). Hosts outside the two sides (the
 * controller's, other clients') are not affected. Call from a task of the simulation, as {@link SimControl}'s
 * methods; not thread-safe.
 */
public final class NetworkSplit {
    private final SimControl control;
    private final List<SimNode> side;
    private final List<SimNode> otherSide;
    private boolean healed;

    private NetworkSplit(SimControl control, List<SimNode> side, List<SimNode> otherSide) {
        this.control = control;
        this.side = side;
        this.otherSide = otherSide;
    }

    /**
     * Cuts {@code node} from every other node of {@code nodes}: it reaches none of them and none reaches it.
     *
     * @param control the simulation's control
     * @param node the node to isolate
     * @param nodes the cluster's nodes ({@code node} among them or not)
     * @return the split: {@code node} on one side, the others on the other
     * @throws IllegalArgumentException if no other node is left to cut it from
     */
    public static NetworkSplit isolate(SimControl control, SimNode node, Collection<SimNode> nodes) {
        Objects.requireNonNull(node, "node");
        List<SimNode> others = new ArrayList<>();
        for (SimNode other : nodes) {
            if (other != node) {
                others.add(other);
            }
        }
        if (others.isEmpty()) {
            throw new IllegalArgumentException("cannot isolate " + node + ": it is the only node of " + nodes);
        }
        return between(control, List.of(node), others);
    }

    /**
     * Cuts every node of {@code side} from every node of {@code otherSide}.
     *
     * @param control the simulation's control
     * @param side one side, at least one node
     * @param otherSide the other side, at least one node, none of {@code side}'s
     * @return the split
     * @throws IllegalArgumentException naming the side that is empty, or a node on both sides
     */
    public static NetworkSplit between(SimControl control, Collection<SimNode> side, Collection<SimNode> otherSide) {
        Objects.requireNonNull(control, "control");
        Set<SimNode> one = new LinkedHashSet<>(side);
        Set<SimNode> two = new LinkedHashSet<>(otherSide);
        if (one.isEmpty() || two.isEmpty()) {
            throw new IllegalArgumentException("a split needs a node on each side, was " + one + " | " + two);
        }
        for (SimNode node : one) {
            if (two.contains(node)) {
                throw new IllegalArgumentException(node + " is on both sides of the split " + one + " | " + two);
            }
        }
        for (SimNode a : one) {
            for (SimNode b : two) {
                control.partition(a.address(), b.address());
            }
        }
        return new NetworkSplit(control, List.copyOf(one), List.copyOf(two));
    }

    /**
     * The first side: the isolated node for {@link #isolate}.
     *
     * @return its nodes
     */
    public List<SimNode> side() {
        return side;
    }

    /**
     * The other side.
     *
     * @return its nodes
     */
    public List<SimNode> otherSide() {
        return otherSide;
    }

    /**
     * Whether {@link #heal()} was called.
     *
     * @return true once healed
     */
    public boolean isHealed() {
        return healed;
    }

    /** Restores every pair this split cut; data held across is delivered. A second call does nothing. */
    public void heal() {
        if (healed) {
            return;
        }
        healed = true;
        for (SimNode a : side) {
            for (SimNode b : otherSide) {
                control.heal(a.address(), b.address());
            }
        }
    }

    /**
     * The split as the events of a trace show it.
     *
     * @return e.g. {@code nodes [1] | [2, 3]}
     */
    @Override
    public String toString() {
        return "nodes " + ids(side) + " | " + ids(otherSide);
    }

    static List<Integer> ids(Collection<SimNode> nodes) {
        List<Integer> ids = new ArrayList<>();
        for (SimNode node : nodes) {
            ids.add(node.id());
        }
        return ids;
    }
}
