package dev.lockstep.sim;

import dev.lockstep.sim.audit.Generator;
import java.util.SortedMap;

/**
 * What one simulated run reached, for the search ({@link SimRunner#coverage()}): its fault points, its
 * {@code sometimes} assertions and the signals the guided explorer compares between runs. The same for every run
 * of a seed and configuration.
 *
 * <p>Signals are short strings, each a thing a run reached: {@code kind:K} an audit event kind recorded by name
 * (a crash, a partition, a node's lifecycle event, a fault point), {@code node:A>B} one node's event {@code B}
 * right after its event {@code A} (a lifecycle transition), {@code disturbances:K1+K2+...} the combination of
 * disturbance kinds the run saw (crashes, kills, pauses, partitions, resets, clock moves), {@code faultPoint:N} a
 * fault point that fired, {@code sometimes:L} a {@code sometimes} label seen true, {@code reached:L=V} a pair of
 * {@link dev.lockstep.Search#reached}. A run keeps at most {@value #MAX_ENTRIES} of each (signals, points, labels):
 * what comes after is dropped, counted in {@link #dropped()}.
 *
 * @param faultPoints each fault point reached, by name
 * @param sometimes each {@code sometimes} label evaluated, by label
 * @param signals every signal of the run, with the generator's draw count ({@link Generator#draws()}, counted
 *                over every lifetime of a run cut by crashes) when the run first reached it: a run branched at
 *                that draw ({@link DecisionChain}) has reached it too
 * @param dropped how many signals, points or labels were not kept past {@value #MAX_ENTRIES}
 */
public record Coverage(SortedMap<String, FaultPointCount> faultPoints, SortedMap<String, SometimesCount> sometimes,
                       SortedMap<String, Long> signals, long dropped) {
    /** The most signals, points or labels a run keeps of each. */
    public static final int MAX_ENTRIES = 10_000;

    /**
     * One fault point in one run.
     *
     * @param enabled whether it was enabled for the run
     * @param reached how many times it was reached
     * @param fired how many times it fired
     */
    public record FaultPointCount(boolean enabled, long reached, long fired) {
    }

    /**
     * One {@code sometimes} label in one run.
     *
     * @param evaluated how many times it was evaluated
     * @param satisfied how many times its condition was true
     */
    public record SometimesCount(long evaluated, long satisfied) {
    }

    /** Copies the collections, unmodifiable. */
    public Coverage {
        faultPoints = java.util.Collections.unmodifiableSortedMap(new java.util.TreeMap<>(faultPoints));
        sometimes = java.util.Collections.unmodifiableSortedMap(new java.util.TreeMap<>(sometimes));
        signals = java.util.Collections.unmodifiableSortedMap(new java.util.TreeMap<>(signals));
    }
}
