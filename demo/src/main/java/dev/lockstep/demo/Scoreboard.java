package dev.lockstep.demo;

import dev.lockstep.demo.kv.InjectedBug;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How fast a search finds real bugs: each planted bug (a mutant: an {@link InjectedBug} of the key-value store or of
 * the Raft) and each protocol unmutated, swept by a {@link SearchStrategy} over several disjoint seed ranges, each
 * range until its first failure or until its CPU budget is spent. A failure of an unmutated protocol is a false
 * alarm (a bug of the checker, the harness or the simulator), printed as such.
 *
 * <p>One job is one (mutant, nodes, range); jobs run on {@code threads} threads of this JVM, one simulator each,
 * each job's seeds in order on one thread, whose CPU time (its own and its simulators', {@link SweepCpu}) is the
 * job's. A row's seeds and CPU seconds to the first failure are medians over its ranges, a range that found
 * nothing counting as more than any that did.
 */
final class Scoreboard {
    /** Range {@code r} starts at seed {@code 1 + r * RANGE_STRIDE}: disjoint while a range runs fewer seeds. */
    static final long RANGE_STRIDE = 1_000_000_000L;

    /**
     * What to measure.
     *
     * @param rows the mutants and unmutated protocols, in the table's order
     * @param strategy how seeds become runs
     * @param budgetCpuSeconds the CPU time one range may spend before it gives up
     * @param maxSeedsPerRange the most seeds one range runs, whatever its budget (below {@link #RANGE_STRIDE})
     * @param ranges disjoint seed ranges per row, at least 1
     * @param threads simulators at once
     */
    record Settings(List<Target> rows, SearchStrategy strategy, double budgetCpuSeconds, long maxSeedsPerRange,
                    int ranges, int threads) {
        Settings {
            rows = List.copyOf(rows);
            if (!(budgetCpuSeconds > 0)) {
                throw new IllegalArgumentException("the CPU budget must be positive, was " + budgetCpuSeconds);
            }
            if (maxSeedsPerRange < 1 || maxSeedsPerRange >= RANGE_STRIDE) {
                throw new IllegalArgumentException("seeds per range must be in [1, " + RANGE_STRIDE + "), was "
                        + maxSeedsPerRange);
            }
            if (ranges < 1 || threads < 1) {
                throw new IllegalArgumentException("ranges and threads must be at least 1, were " + ranges + " and "
                        + threads);
            }
        }
    }

    /**
     * One row: a bug (or none) in one workload.
     *
     * @param bug the mutant, or {@link InjectedBug#NONE} for the unmutated protocol
     * @param workload the workload that runs it (its nodes, for Raft)
     */
    record Target(InjectedBug bug, Workload workload) {
        String protocol() {
            return workload.replicated() ? "raft" : "kv store";
        }

        String nodes() {
            return workload.replicated() ? Integer.toString(workload.nodes()) : "-";
        }
    }

    /**
     * The rows of a scoreboard: the key-value store unmutated and each of its bugs, then at each node count the Raft
     * unmutated and each of its bugs.
     *
     * @param nodes the Raft cluster sizes, each 3 or 5
     * @return the rows
     * @throws IllegalArgumentException naming a node count there is no workload for
     */
    static List<Target> rows(List<Integer> nodes) {
        return rows(nodes, null);
    }

    /**
     * The rows of {@link #rows(List)} whose bug {@code mutants} names ({@code --mutants}).
     *
     * @param nodes the Raft cluster sizes, each 3 or 5
     * @param mutants {@code --inject-bug} names, {@code none} for the unmutated rows; null for every row
     * @return the rows, in the table's order
     * @throws IllegalArgumentException naming a node count there is no workload for, or an unknown mutant
     */
    static List<Target> rows(List<Integer> nodes, List<String> mutants) {
        List<Target> rows = every(nodes);
        if (mutants == null) {
            return rows;
        }
        java.util.Set<InjectedBug> chosen = java.util.EnumSet.noneOf(InjectedBug.class);
        for (String name : mutants) {
            chosen.add(InjectedBug.parse(name.strip()));
        }
        return rows.stream().filter(row -> chosen.contains(row.bug())).toList();
    }

    private static List<Target> every(List<Integer> nodes) {
        List<Target> rows = new ArrayList<>();
        rows.add(new Target(InjectedBug.NONE, Workload.MIXED));
        for (InjectedBug bug : InjectedBug.values()) {
            if (bug.target() == InjectedBug.Target.STORE) {
                rows.add(new Target(bug, Workload.MIXED));
            }
        }
        for (int count : nodes) {
            Workload workload = switch (count) {
                case 3 -> Workload.REPLICATED;
                case 5 -> Workload.REPLICATED_5;
                default -> throw new IllegalArgumentException("--nodes " + count + ": the Raft runs on 3 or 5 nodes");
            };
            rows.add(new Target(InjectedBug.NONE, workload));
            for (InjectedBug bug : InjectedBug.values()) {
                if (bug.target() == InjectedBug.Target.RAFT) {
                    rows.add(new Target(bug, workload));
                }
            }
        }
        return rows;
    }

    /**
     * What one range found.
     *
     * @param firstSeed its first seed
     * @param seeds seeds it ran (to the first failure, if one failed)
     * @param cpuNanos CPU time it spent (to the end of the first failure, if one failed)
     * @param failure the first failure, or null
     */
    record RangeResult(long firstSeed, long seeds, long cpuNanos, Scenario.Result failure) {
        boolean found() {
            return failure != null;
        }
    }

    /**
     * One row's result.
     *
     * @param target the row
     * @param ranges its ranges, in order
     */
    record Row(Target target, List<RangeResult> ranges) {
        int found() {
            return (int) ranges.stream().filter(RangeResult::found).count();
        }

        /** The median over the ranges of {@code value}, a range that found nothing counting as infinite. */
        double median(java.util.function.ToDoubleFunction<RangeResult> value) {
            double[] values = ranges.stream().mapToDouble(r -> r.found() ? value.applyAsDouble(r)
                    : Double.POSITIVE_INFINITY).sorted().toArray();
            int middle = values.length / 2;
            return values.length % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
        }
    }

    private Scoreboard() {
    }

    /**
     * Runs every job.
     *
     * @param settings what to measure
     * @param done counts finished jobs, for progress
     * @return the rows, in the settings' order
     * @throws Exception if a sweeping thread failed or the wait for one was interrupted
     */
    static List<Row> run(Settings settings, AtomicInteger done) throws Exception {
        int jobs = settings.rows().size() * settings.ranges();
        RangeResult[] results = new RangeResult[jobs];
        AtomicInteger next = new AtomicInteger();
        List<String> problems = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        // Each job's slot is written by the one thread that took its index from next, and read after every thread
        // was joined, which orders the writes before the reads.
        for (int t = 0; t < Math.min(settings.threads(), jobs); t++) {
            threads.add(Thread.ofPlatform().name("lockstep-scoreboard-" + t).start(() -> {
                try {
                    for (int job = next.getAndIncrement(); job < jobs; job = next.getAndIncrement()) {
                        Target target = settings.rows().get(job / settings.ranges());
                        long first = 1 + (job % settings.ranges()) * RANGE_STRIDE;
                        results[job] = sweepRange(settings, target, first);
                        done.incrementAndGet();
                    }
                } catch (RuntimeException | Error broken) {
                    broken.printStackTrace();
                    problems.add(broken.toString());
                }
            }));
        }
        for (Thread thread : threads) {
            thread.join();
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException("the scoreboard's threads failed: " + problems);
        }
        List<Row> rows = new ArrayList<>();
        for (int row = 0; row < settings.rows().size(); row++) {
            rows.add(new Row(settings.rows().get(row), List.of(Arrays.copyOfRange(results, row * settings.ranges(),
                    (row + 1) * settings.ranges()))));
        }
        return rows;
    }

    private static RangeResult sweepRange(Settings settings, Target target, long first) {
        if (settings.strategy() == SearchStrategy.GUIDED && target.workload().replicated()) {
            return guidedRange(settings, target, first);
        }
        long start = SweepCpu.now();
        long budget = (long) (settings.budgetCpuSeconds() * 1e9);
        for (long seed = first; seed < first + settings.maxSeedsPerRange(); seed++) {
            Scenario.Spec spec = settings.strategy().spec(seed, target.workload(), target.bug());
            Scenario.Result result = runSeed(spec);
            long spent = SweepCpu.now() - start;
            if (!result.passed()) {
                return new RangeResult(first, seed - first + 1, spent, result);
            }
            if (spent >= budget) {
                return new RangeResult(first, seed - first + 1, spent, null);
            }
        }
        return new RangeResult(first, settings.maxSeedsPerRange(), SweepCpu.now() - start, null);
    }

    /**
     * A range of the guided strategy: the explorer's loop from {@code first}, one run at a time, each a seed and a
     * decision chain, until the first failure or the budget; "seeds" are its runs. Every run's spec carries its
     * chain, so its replay line reruns it.
     */
    private static RangeResult guidedRange(Settings settings, Target target, long first) {
        long start = SweepCpu.now();
        long budget = (long) (settings.budgetCpuSeconds() * 1e9);
        dev.lockstep.testing.GuidedRuns explorer = new dev.lockstep.testing.GuidedRuns(first);
        for (long run = 1; run <= settings.maxSeedsPerRange(); run++) {
            dev.lockstep.testing.GuidedRuns.Choice choice = explorer.next();
            Scenario.Spec fresh = SearchStrategy.RANDOM.spec(choice.seed(), target.workload(), target.bug());
            Scenario.Spec spec = new Scenario.Spec(choice.seed(), fresh.faults(), target.workload(), target.bug(),
                    fresh.nemesis(), fresh.search().withChain(choice.chain()));
            List<dev.lockstep.sim.Coverage> reached = new ArrayList<>();
            long[] draws = {0};
            Scenario.Result result;
            try {
                result = RaftScenario.run(spec, 0, runner -> {
                    reached.add(runner.coverage());
                    draws[0] += runner.stats().draws();
                });
            } catch (RuntimeException | Error unexpected) {
                throw new IllegalStateException("the scoreboard's harness failed on " + spec, unexpected);
            }
            long spent = SweepCpu.now() - start;
            if (!result.passed()) {
                return new RangeResult(first, run, spent, result);
            }
            explorer.observe(choice, reached, draws[0]);
            if (spent >= budget) {
                return new RangeResult(first, run, spent, null);
            }
        }
        return new RangeResult(first, settings.maxSeedsPerRange(), SweepCpu.now() - start, null);
    }

    /**
     * One seed. A failure of the checked run is a result; an exception escaping {@code Scenario.run} is a failure of
     * the harness itself, never credited as a found bug (nor, on an unmutated row, as a false alarm): it stops the
     * scoreboard with the seed named and its stack trace kept.
     */
    private static Scenario.Result runSeed(Scenario.Spec spec) {
        try {
            return Scenario.run(spec, 0);
        } catch (RuntimeException | Error unexpected) {
            throw new IllegalStateException("the scoreboard's harness failed on " + spec, unexpected);
        }
    }

    /**
     * Prints the table, then each found failure's replay line and each false alarm.
     *
     * @param out where
     * @param settings what was measured
     * @param rows the results
     */
    static void print(PrintStream out, Settings settings, List<Row> rows) {
        Table table = new Table().row("mutant", "protocol", "nodes", "strategy", "found", "seeds to 1st failure",
                "CPU s to 1st failure", "seeds run");
        for (Row row : rows) {
            Target target = row.target();
            long run = row.ranges().stream().mapToLong(RangeResult::seeds).sum();
            String name = target.bug() == InjectedBug.NONE ? "(none: unmutated)" : target.bug().cliName();
            table.row(name, target.protocol(), target.nodes(), settings.strategy().name(),
                    row.found() + "/" + row.ranges().size(), medianText(row.median(r -> r.seeds()), "%,.0f"),
                    medianText(row.median(r -> r.cpuNanos() / 1e9), "%,.1f"), Table.count(run));
        }
        out.print(table.render(""));
        out.println();
        for (Row row : rows) {
            for (RangeResult range : row.ranges()) {
                if (!range.found()) {
                    continue;
                }
                String first = range.failure().failure().lines().findFirst().orElse("");
                if (row.target().bug() == InjectedBug.NONE) {
                    out.println("FALSE ALARM: the unmutated " + row.target().protocol() + " failed at seed "
                            + range.failure().spec().seed() + ": " + first);
                } else {
                    out.println(row.target().bug().cliName() + (row.target().workload().replicated() ? " ("
                            + row.target().nodes() + " nodes)" : "") + " found at seed "
                            + range.failure().spec().seed() + ": " + first);
                }
                out.println("  replay: ./lockstep replay " + Explorer.replayLine(range.failure()));
            }
        }
    }

    private static String medianText(double median, String format) {
        return Double.isInfinite(median) ? "not found" : String.format(Locale.ROOT, format, median);
    }
}
