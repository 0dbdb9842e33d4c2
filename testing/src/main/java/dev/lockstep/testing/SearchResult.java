package dev.lockstep.testing;

import dev.lockstep.sim.Coverage;
import java.util.Collections;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a {@link SearchStrategy#search} found.
 *
 * @param strategy the strategy's name
 * @param runs the runs made, the failing one included
 * @param failure the first failure, whose {@link SimulationTestFailure#replay()} reruns it; null if none
 * @param cpuNanos the simulator's CPU time over every run
 * @param neverSatisfied the {@code sometimes} labels evaluated in some run and true in none: states the runs did
 *                       not reach
 * @param signals how many distinct signals the runs reached
 */
public record SearchResult(String strategy, long runs, SimulationTestFailure failure, long cpuNanos,
                           SortedSet<String> neverSatisfied, int signals) {
    /** Copies the labels, unmodifiable. */
    public SearchResult {
        neverSatisfied = Collections.unmodifiableSortedSet(new TreeSet<>(neverSatisfied));
    }

    /**
     * Whether a run failed.
     *
     * @return whether {@link #failure()} is set
     */
    public boolean found() {
        return failure != null;
    }

    /**
     * The text {@link Simulations#replay} reruns the failure from.
     *
     * @return it, or null if nothing failed
     */
    public String replayText() {
        return failure == null ? null : failure.replay();
    }

    /** Sums runs as a search goes. Confined to the searching thread. */
    static final class Tally {
        long runs;
        long cpuNanos;
        private final TreeMap<String, Boolean> sometimes = new TreeMap<>();
        private final TreeSet<String> signals = new TreeSet<>();

        void add(RunRecord record) {
            runs++;
            cpuNanos += record.cpuNanos();
            for (Coverage coverage : record.lifetimes()) {
                coverage.sometimes().forEach((label, count) -> sometimes.merge(label, count.satisfied() > 0,
                        Boolean::logicalOr));
                if (signals.size() < Coverage.MAX_ENTRIES * 10) {
                    signals.addAll(coverage.signals().keySet());
                }
            }
        }

        SearchResult result(String strategy, long runsMade, SimulationTestFailure failure) {
            TreeSet<String> never = new TreeSet<>();
            sometimes.forEach((label, satisfied) -> {
                if (!satisfied) {
                    never.add(label);
                }
            });
            return new SearchResult(strategy, runsMade, failure, cpuNanos, never, signals.size());
        }
    }
}
