package dev.lockstep.demo;

import dev.lockstep.demo.kv.InjectedBug;
import dev.lockstep.testing.FaultConfig;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The seed sweep: runs {@link Scenario}s for a range of seeds, one simulator per core, and sums up what they did.
 * With the {@code swarm} profile every seed draws its own set of fault kinds ({@link FaultConfig#swarm}). Results
 * do not depend on the number of simulators: each seed's run is decided by its seed alone. Parallel simulators
 * run in threads of this JVM, one simulator per thread.
 */
public final class Explorer {

    /**
     * What to sweep.
     *
     * @param seeds how many seeds
     * @param firstSeed the first seed; seeds are consecutive
     * @param profile {@code swarm}, {@code swarm+crash} (swarm with crashes always on), or a fault profile for
     *                {@link FaultConfig#parse}
     * @param workload the load
     * @param bug the injected bug
     * @param threads simulators run at once
     * @param stopAtFirstFailure stop handing out seeds once one failed
     * @param shard the share of the seeds {@code firstSeed .. firstSeed + seeds - 1} this sweep runs
     * @param strategy how a seed becomes a run beside its faults (the nemesis and search settings; the faults are
     *                 the profile's), or null for the workload's default ({@link #defaultStrategy})
     */
    public record Settings(int seeds, long firstSeed, String profile, Workload workload, InjectedBug bug, int threads,
                    boolean stopAtFirstFailure, Shard shard, SearchStrategy strategy) {
        /** The whole sweep, unsharded, with the workload's default strategy. */
        public Settings(int seeds, long firstSeed, String profile, Workload workload, InjectedBug bug, int threads,
                        boolean stopAtFirstFailure) {
            this(seeds, firstSeed, profile, workload, bug, threads, stopAtFirstFailure, Shard.ALL);
        }

        /** A shard of the sweep, with the workload's default strategy. */
        public Settings(int seeds, long firstSeed, String profile, Workload workload, InjectedBug bug, int threads,
                        boolean stopAtFirstFailure, Shard shard) {
            this(seeds, firstSeed, profile, workload, bug, threads, stopAtFirstFailure, shard, null);
        }

        /** The strategy the sweep runs: the one given, or the workload's default. */
        SearchStrategy strategyOrDefault() {
            return strategy != null ? strategy : defaultStrategy(workload);
        }
    }

    /**
     * The strategy a sweep of {@code workload} runs unless told otherwise: the one the scoreboard shows best for it
     * (SCOREBOARD.md). For the Raft, {@link SearchStrategy#COMBINED}, the fastest on the subtle Raft mutants at 3
     * and 5 nodes; for the key-value store, {@link SearchStrategy#RANDOM}, as the store has no fault points nor
     * cluster and fiber priorities only slowed the search for its torn-tail bug.
     *
     * @param workload the workload
     * @return its default strategy
     */
    static SearchStrategy defaultStrategy(Workload workload) {
        return workload.replicated() ? SearchStrategy.COMBINED : SearchStrategy.RANDOM;
    }

    /**
     * The run of {@code seed}: the faults of the sweep's profile, and the nemesis and search settings its strategy
     * chooses for the seed.
     */
    static Scenario.Spec specFor(Settings settings, long seed) {
        FaultConfig faults = faultsFor(settings.profile(), seed);
        if (settings.workload().replicated()) {
            faults = RaftScenario.applicable(faults); // what its replay line and summary name is what it injects
        }
        Scenario.Spec chosen = settings.strategyOrDefault().spec(seed, settings.workload(), settings.bug());
        return new Scenario.Spec(seed, faults, settings.workload(), settings.bug(), chosen.nemesis(),
                chosen.search());
    }

    /**
     * What the sweep found.
     *
     * @param seedsRun seeds that ran to the end
     * @param simulatedNanos simulated time, summed
     * @param lifetimes simulator runs, summed
     * @param crashes crashes
     * @param partitions partitions
     * @param resets connection resets
     * @param storageFailures storage failures the service hit
     * @param acknowledgedWrites writes acknowledged
     * @param failures the failed seeds, in seed order
     * @param wallNanos wall-clock time of the sweep
     * @param results every seed that ran, in seed order
     */
    public record Summary(int seedsRun, long simulatedNanos, long lifetimes, long crashes, long partitions, long resets,
                   long storageFailures, long acknowledgedWrites, List<Scenario.Result> failures, long wallNanos,
                   List<Scenario.Result> results) {
        long faultsInjected() {
            return crashes + partitions + resets + storageFailures;
        }
    }

    /**
     * Heap a sweep keeps per seed until it ends, an upper bound: the seed, its slot and its result (spec, digest,
     * counts, a failed seed's message). Measured after a full collection, with the summary held and then dropped:
     * about 60 bytes a seed over 3,000 passing seeds of the mixed workload, and 106 over 1,500 seeds of which 447
     * failed (an injected bug), so about 210 a failed seed.
     */
    static final long BYTES_KEPT_PER_SEED = 512;

    /**
     * The most seeds one sweep in this process may run: what a heap of {@code maxHeapBytes} keeps with half of it
     * left for the simulators (a sweep keeps every seed's verdict for its summary and report; a longer sweep is
     * cut into shards, whose reports {@code --merge} joins).
     *
     * @param maxHeapBytes the JVM's {@link Runtime#maxMemory()}
     * @return the count, at least 1
     */
    static long seedsThatFit(long maxHeapBytes) {
        return Math.max(1, maxHeapBytes / 2 / BYTES_KEPT_PER_SEED);
    }

    static FaultConfig faultsFor(String profile, long seed) {
        return switch (profile) {
            case "swarm" -> FaultConfig.swarm(seed);
            case "swarm+crash" -> {
                FaultConfig drawn = FaultConfig.swarm(seed);
                java.util.EnumSet<dev.lockstep.testing.Fault> set = java.util.EnumSet.noneOf(
                        dev.lockstep.testing.Fault.class);
                set.addAll(drawn.enabled());
                set.add(dev.lockstep.testing.Fault.CRASH);
                yield new FaultConfig(set, drawn.intensity());
            }
            default -> FaultConfig.parse(profile);
        };
    }

    /**
     * Runs the sweep: on the calling thread with one thread, else in {@code threads} threads of this JVM, each
     * running one simulator at a time and taking the next seed not yet taken when it finishes one, so that a
     * thread whose seeds were short does not sit idle while another works through long ones.
     *
     * <p>The summary is the same whatever the number of threads: each seed's run depends on its seed alone, and
     * results are kept by the seed's place in the sweep, not by when they finished. With
     * {@link Settings#stopAtFirstFailure()} the sweep ends at the first seed, in sweep order, that failed: every
     * seed before it still runs to the end, and a seed after it that another thread had already started is left
     * out of the summary, as the one-thread sweep would never have run it.
     *
     * @param settings what to sweep
     * @param done counts finished seeds, for progress
     * @param onFailure called for each failed seed as it fails (on a helper thread); with
     *     {@code stopAtFirstFailure} and several threads, a failed seed later than the first may be reported
     *     here before the first one is found, and is then not in the summary
     * @return the summary
     * @throws Exception if a sweep thread failed or the wait for one was interrupted
     */
    public static Summary run(Settings settings, AtomicInteger done, Consumer<Scenario.Result> onFailure)
            throws Exception {
        faultsFor(settings.profile(), settings.firstSeed()); // Validate the profile before starting anything.
        long start = System.nanoTime();
        long[] seeds = settings.shard().seeds(settings.firstSeed(), settings.seeds());
        Scenario.Result[] results = new Scenario.Result[seeds.length];
        int workers = Math.max(1, Math.min(settings.threads(), seeds.length));
        if (workers == 1) {
            for (int index = 0; index < seeds.length; index++) {
                Scenario.Result result = runSeed(settings, seeds[index]);
                results[index] = result;
                if (!result.passed()) {
                    onFailure.accept(result);
                    if (settings.stopAtFirstFailure()) {
                        break;
                    }
                }
                done.incrementAndGet();
            }
        } else {
            runInThreads(settings, seeds, workers, results, done, onFailure);
        }
        return summarize(results, System.nanoTime() - start);
    }

    static Scenario.Result runSeed(Settings settings, long seed) {
        Scenario.Spec spec = specFor(settings, seed);
        try {
            return Scenario.run(spec, 0); // dispatches the replicated workloads to RaftScenario
        } catch (RuntimeException | Error unexpected) {
            return new Scenario.Result(spec, "the harness failed: " + unexpected, List.of(), List.of(), 0, 0, 0, 0, 0,
                    0, 0, "", 0);
        }
    }

    /**
     * The threads' sweep. What the threads share, and why it is enough: {@code next}, the place of the next seed to
     * hand out (each {@code getAndIncrement} gives one thread one place, so every seed runs at most once);
     * {@code firstFailure}, the lowest place of a failed seed so far (lowered with {@code accumulateAndGet}, read
     * before taking a seed: a thread that reads it late only runs a seed that the summary then leaves out); and
     * {@code results}, each slot written by the one thread that ran that seed and read after every thread was
     * joined, which orders the writes before the reads. Nothing of a simulation is shared: each seed builds its
     * own simulator, kernel, file system and engine on its own carrier thread.
     */
    private static void runInThreads(Settings settings, long[] seeds, int workers, Scenario.Result[] results,
                                     AtomicInteger done, Consumer<Scenario.Result> onFailure) throws Exception {
        AtomicInteger next = new AtomicInteger();
        AtomicInteger firstFailure = new AtomicInteger(Integer.MAX_VALUE);
        List<Thread> threads = new ArrayList<>();
        List<String> problems = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int offset = 0; offset < workers; offset++) {
            threads.add(Thread.ofPlatform().name("lockstep-explore-" + offset).start(() -> {
                try {
                    for (int index = next.getAndIncrement(); index < seeds.length
                            && index < firstFailure.get(); index = next.getAndIncrement()) {
                        Scenario.Result result = runSeed(settings, seeds[index]);
                        results[index] = result;
                        if (!result.passed()) {
                            if (settings.stopAtFirstFailure()) {
                                int failed = index;
                                firstFailure.accumulateAndGet(failed, Math::min);
                            }
                            onFailure.accept(result);
                        }
                        done.incrementAndGet();
                    }
                } catch (RuntimeException | Error broken) {
                    problems.add(broken.toString());
                }
            }));
        }
        for (Thread thread : threads) {
            thread.join();
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException("the sweep's threads failed: " + problems);
        }
        // After the first failure in sweep order: not part of a sweep that stops there.
        for (int index = firstFailure.get(); index < results.length - 1; index++) {
            results[index + 1] = null;
        }
    }

    private static Summary summarize(Scenario.Result[] results, long wallNanos) {
        int run = 0;
        long simulated = 0;
        long lifetimes = 0;
        long crashCount = 0;
        long partitions = 0;
        long resets = 0;
        long storage = 0;
        long acked = 0;
        List<Scenario.Result> failures = new ArrayList<>();
        List<Scenario.Result> all = new ArrayList<>();
        for (Scenario.Result result : results) {
            if (result == null) {
                continue;
            }
            all.add(result);
            run++;
            simulated += result.simulatedNanos();
            lifetimes += result.lifetimes();
            crashCount += result.crashes();
            partitions += result.partitions();
            resets += result.resets();
            storage += result.storageFailures();
            acked += result.acknowledgedWrites();
            if (!result.passed()) {
                failures.add(result);
            }
        }
        return new Summary(run, simulated, lifetimes, crashCount, partitions, resets, storage, acked, failures,
                wallNanos, all);
    }

    /**
     * Prints the summary table.
     *
     * @param out where
     * @param summary what
     * @param indent the left margin
     * @param workload what the seeds ran: the restart row says what was checked, which differs between the
     *     key-value store (every key after every restart) and the Raft cluster (its safety properties throughout)
     */
    public static void printSummary(PrintStream out, Summary summary, String indent, Workload workload) {
        String restarts = workload.replicated()
                ? "node restarts, Raft's safety checked throughout" : "restarts, every key checked after each";
        long steps = summary.results().stream().mapToLong(Scenario.Result::schedulerSteps).sum();
        Table table = new Table()
                .row("seeds run", Table.count(summary.seedsRun()))
                .row("simulated time covered", String.format("%,.1f s", summary.simulatedNanos() / 1e9))
                .row("wall-clock time", String.format("%,.1f s", summary.wallNanos() / 1e9))
                .row("simulator steps (what a seed costs)", String.format("%,d, %,d a seed", steps,
                        steps / Math.max(1, summary.seedsRun())))
                .row(restarts, Table.count(summary.lifetimes() - summary.seedsRun()))
                .row("acknowledged writes", Table.count(summary.acknowledgedWrites()))
                .row("faults injected", Table.count(summary.faultsInjected()))
                .row("  crashes in the middle of the load", Table.count(summary.crashes()))
                .row("  network partitions", Table.count(summary.partitions()))
                .row("  connection resets", Table.count(summary.resets()))
                .row("  storage failures that hit the service", workload.replicated()
                        ? "not injected by this workload" : Table.count(summary.storageFailures()))
                .row("failures", Table.count(summary.failures().size()));
        out.print(table.render(indent));
    }

    /**
     * The replay line of a result, with the start of its audit digest so that {@code replay} can confirm it
     * reran the same run.
     *
     * @param result the result
     * @return the line
     */
    static String replayLine(Scenario.Result result) {
        return replayLine(result.spec(), result.digest());
    }

    /**
     * The replay line of a seed's run, as {@link #replayLine(Scenario.Result)} prints it.
     *
     * @param spec what ran
     * @param digest the run's whole audit digest, or empty if the run ended before it had one
     * @return the line
     */
    static String replayLine(Scenario.Spec spec, String digest) {
        int digits = Scenario.ReplayLine.DIGEST_DIGITS;
        return new Scenario.ReplayLine(spec, digest.length() >= digits ? digest.substring(0, digits) : null).line();
    }

    /**
     * Prints one failed seed: its first problem and the line that replays it.
     *
     * @param out where
     * @param result the failed seed
     * @param indent the left margin
     */
    public static void printFailure(PrintStream out, Scenario.Result result, String indent) {
        String first = result.failure().lines().findFirst().orElse("");
        out.println(indent + "seed " + result.spec().seed() + " FAILED (" + result.spec().faults() + "): " + first);
        out.println(indent + "  replay: ./lockstep replay " + replayLine(result));
    }
}
