package dev.lockstep.demo;

import dev.lockstep.demo.kv.InjectedBug;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The training run of the JVM's ahead-of-time cache for the demo's commands (JDK 25's AOT cache: the classes a
 * sweep loads, linked, with the method profiles the run gathered), which the {@code lockstep} script runs once per
 * build in record mode: a few seeds of each kind of sweep the commands run, the key-value store's
 * ({@link Workload#MIXED}, the default of {@code explore} and {@code demo}) and the 3-node Raft's
 * ({@link Workload#REPLICATED}, the search's and most of the scoreboard's), each with its default strategy, on
 * one simulator thread. A cache trained on one of them leaves the other's code to be loaded and profiled afresh
 * (BENCHMARKS.md). Not a command: it prints nothing and exits 0, or throws if a sweep fails to run; a failed
 * seed is no error here (the cache records what ran, not a verdict).
 */
public final class AotTraining {
    /** Seeds of each workload: enough for every class of a sweep to load and its hot methods to be profiled. */
    static final int SEEDS = 4;

    private AotTraining() {
    }

    /**
     * Runs the training sweeps.
     *
     * @param args none
     * @throws Exception if a sweep cannot run
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 0) {
            throw new IllegalArgumentException("AotTraining takes no arguments, got " + String.join(" ", args));
        }
        for (Workload workload : new Workload[] {Workload.MIXED, Workload.REPLICATED}) {
            Explorer.run(new Explorer.Settings(SEEDS, 1, "swarm", workload, InjectedBug.NONE, 1, false),
                    new AtomicInteger(), failed -> { });
        }
    }
}
