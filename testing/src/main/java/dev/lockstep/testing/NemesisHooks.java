package dev.lockstep.testing;

import dev.lockstep.testing.ClusterNemesis.Contest;
import dev.lockstep.testing.ClusterNemesis.Disturbance;
import dev.lockstep.testing.ClusterNemesis.VoteHook;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * The hooks a {@link ClusterNemesis} is given (each may be null), and which one each disturbance cannot do without:
 * {@link Disturbance#ELECTION} the election hook, {@link Disturbance#ANSWERED_VOTE} and
 * {@link Disturbance#ANSWERED_VOTES} the contest hook, {@link Disturbance#ACK_THEN_LEADER_LOSS} and
 * {@link Disturbance#OLD_LEADER_RETURNS} the leader hook, {@link Disturbance#GRANTED_VOTES} the vote hook. Without it
 * such a disturbance never finds its moment and disturbs nothing, so the nemesis refuses it ({@link #refusal}) and
 * the strategies and the swarm draw only among the {@link #usable} ones. Every other disturbance has a meaningful
 * fallback: without the leader hook a single-node disturbance draws its target uniformly, and a vote strike that
 * cannot tell the winner crashes and restarts its voters without cutting anyone off.
 *
 * @param leader the leader hook, or null
 * @param election the election hook, or null
 * @param contest the contest hook, or null
 * @param votes the vote hook, or null
 */
record NemesisHooks(IntSupplier leader, IntSupplier election, Supplier<Contest> contest, VoteHook votes) {
    /** Whether the hook {@code disturbance} cannot do without, if any, is given. */
    boolean usable(Disturbance disturbance) {
        return switch (disturbance) {
            case ELECTION -> election != null;
            case ANSWERED_VOTE, ANSWERED_VOTES -> contest != null;
            case ACK_THEN_LEADER_LOSS, OLD_LEADER_RETURNS -> leader != null;
            case GRANTED_VOTES -> votes != null;
            default -> true;
        };
    }

    /** The disturbances of {@code disturbances} whose hooks are given, possibly none. */
    EnumSet<Disturbance> usable(Set<Disturbance> disturbances) {
        EnumSet<Disturbance> usable = EnumSet.noneOf(Disturbance.class);
        for (Disturbance disturbance : disturbances) {
            if (usable(disturbance)) {
                usable.add(disturbance);
            }
        }
        return usable;
    }

    /**
     * Why a nemesis of {@code disturbances} is refused with these hooks, naming each disturbance and the hook it
     * misses, or null if every one has its hook.
     */
    String refusal(Set<Disturbance> disturbances) {
        List<String> missing = new ArrayList<>();
        EnumSet<Disturbance> inOrder = EnumSet.noneOf(Disturbance.class);
        inOrder.addAll(disturbances);
        for (Disturbance disturbance : inOrder) {
            if (!usable(disturbance)) {
                missing.add(missing(disturbance));
            }
        }
        return missing.isEmpty() ? null : String.join("; ", missing);
    }

    private static String missing(Disturbance disturbance) {
        return switch (disturbance) {
            case ELECTION -> "election (ELECTION) needs the election hook, which is null: without it the strike never"
                    + " sees an election and disturbs nothing";
            case ANSWERED_VOTE, ANSWERED_VOTES -> "contest (" + disturbance + ") needs the contest hook, which is null:"
                    + " without it the strike never sees a contested election and disturbs nothing";
            case ACK_THEN_LEADER_LOSS, OLD_LEADER_RETURNS -> "leader (" + disturbance + ") needs the leader hook, which"
                    + " is null: without it the strike never finds a leader to strike and disturbs nothing";
            case GRANTED_VOTES -> "votes (GRANTED_VOTES) needs the vote hook, which is null: without it the strike"
                    + " never sees a vote and disturbs nothing";
            default -> throw new IllegalArgumentException(disturbance + " needs no hook");
        };
    }
}
