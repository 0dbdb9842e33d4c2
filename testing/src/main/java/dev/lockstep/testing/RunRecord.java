package dev.lockstep.testing;

import dev.lockstep.sim.Coverage;
import dev.lockstep.sim.SimRunner;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * What one run of a search reached over its lifetimes: the coverage of each lifetime, the draws it made in all
 * (where a branch of it may start) and the simulator's CPU time. Confined to the searching thread.
 */
final class RunRecord {
    private final List<Coverage> lifetimes = new ArrayList<>();
    private long draws;
    private long cpuNanos;

    /** Adds a lifetime's runner once it ran; one that never started adds nothing. */
    void add(SimRunner runner) {
        try {
            lifetimes.add(runner.coverage());
            draws += runner.stats().draws();
            cpuNanos += Math.max(0, runner.simulatorCpuNanos());
        } catch (IllegalStateException neverRan) {
            // its start was refused: nothing reached
        }
    }

    /** Adds the lifetimes of a run a tool made itself: their coverage and the draws they made together. */
    void add(List<Coverage> coverage, long runDraws) {
        lifetimes.addAll(coverage);
        draws += runDraws;
    }

    /** Every signal of every lifetime, with the draw count when the run first reached it. */
    TreeMap<String, Long> signals() {
        TreeMap<String, Long> all = new TreeMap<>();
        for (Coverage coverage : lifetimes) {
            coverage.signals().forEach((signal, draw) -> all.merge(signal, draw, Math::min));
        }
        return all;
    }

    List<Coverage> lifetimes() {
        return lifetimes;
    }

    long draws() {
        return draws;
    }

    long cpuNanos() {
        return cpuNanos;
    }
}
