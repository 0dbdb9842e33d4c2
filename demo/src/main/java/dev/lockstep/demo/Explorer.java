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
 * do not depend on the number of simulators: each seed's run is decided by its seed alone.
 *
 * <h2>Why one JVM per simulator</h2>
 * Parallel simulators run in child JVMs ({@code Main sweep-worker}), not in threads of this one: runtime-core's
 * supervision tree guards every engine's tree with one JVM-wide monitor ({@code Supervision.class}), so two
 * simulators in one JVM contend on it, which the simulator rightly reports as a determinism leak (and which can
 * leave a monitor owned by a fiber of a finished simulation). Separate JVMs share nothing.
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
     */
    public record Settings(int seeds, long firstSeed, String profile, Workload workload, InjectedBug bug, int threads,
                    boolean stopAtFirstFailure) {
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
     */
    public record Summary(int seedsRun, long simulatedNanos, long lifetimes, long crashes, long partitions, long resets,
                   long storageFailures, long acknowledgedWrites, List<Scenario.Result> failures, long wallNanos) {
        long faultsInjected() {
            return crashes + partitions + resets + storageFailures;
        }
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
     * Runs the sweep: in this JVM with one thread, else in {@code threads} child JVMs, each running every
     * {@code threads}-th seed (see the class documentation for why processes).
     *
     * @param settings what to sweep
     * @param done counts finished seeds, for progress
     * @param onFailure called for each failed seed as it fails (on a helper thread)
     * @return the summary
     * @throws Exception if a child JVM could not be run
     */
    public static Summary run(Settings settings, AtomicInteger done, Consumer<Scenario.Result> onFailure)
            throws Exception {
        faultsFor(settings.profile(), settings.firstSeed()); // Validate the profile before starting anything.
        long start = System.nanoTime();
        Scenario.Result[] results = new Scenario.Result[settings.seeds()];
        int workers = Math.max(1, Math.min(settings.threads(), settings.seeds()));
        if (workers == 1) {
            for (int index = 0; index < settings.seeds(); index++) {
                Scenario.Result result = runSeed(settings, settings.firstSeed() + index);
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
            runInProcesses(settings, workers, results, done, onFailure);
        }
        return summarize(results, System.nanoTime() - start);
    }

    static Scenario.Result runSeed(Settings settings, long seed) {
        Scenario.Spec spec = new Scenario.Spec(seed, faultsFor(settings.profile(), seed), settings.workload(),
                settings.bug());
        try {
            return Scenario.run(spec, 0);
        } catch (RuntimeException | Error unexpected) {
            return new Scenario.Result(spec, "the harness failed: " + unexpected, List.of(), List.of(), 0, 0, 0, 0, 0,
                    0, 0, "");
        }
    }

    /**
     * The child side: runs seeds {@code first + offset}, {@code first + offset + stride}, ... and prints one
     * {@link #encode encoded} line per seed on standard output.
     *
     * @param settings the sweep (its {@code threads} is the stride)
     * @param offset this child's offset
     */
    static void worker(Settings settings, int offset) {
        for (int index = offset; index < settings.seeds(); index += settings.threads()) {
            Scenario.Result result = runSeed(settings, settings.firstSeed() + index);
            System.out.println(encode(index, result));
            System.out.flush();
        }
    }

    private static void runInProcesses(Settings settings, int workers, Scenario.Result[] results, AtomicInteger done,
                                       Consumer<Scenario.Result> onFailure) throws Exception {
        List<Process> processes = new ArrayList<>();
        List<Thread> readers = new ArrayList<>();
        List<String> problems = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int offset = 0; offset < workers; offset++) {
            Process process = new ProcessBuilder(Main.javaCommand("sweep-worker",
                    String.valueOf(settings.seeds()), String.valueOf(settings.firstSeed()), settings.profile(),
                    settings.workload().cliName(), settings.bug().cliName(), String.valueOf(workers),
                    String.valueOf(offset)))
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            processes.add(process);
            readers.add(Thread.ofPlatform().name("lockstep-explore-" + offset).start(() -> {
                try (java.io.BufferedReader lines = new java.io.BufferedReader(new java.io.InputStreamReader(
                        process.getInputStream(), java.nio.charset.StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = lines.readLine()) != null) {
                        if (!line.startsWith("RESULT\t")) {
                            continue;
                        }
                        int index = Integer.parseInt(line.split("\t", 3)[1]);
                        Scenario.Result result = decode(line, settings);
                        synchronized (results) {
                            results[index] = result;
                        }
                        if (!result.passed()) {
                            onFailure.accept(result);
                        }
                        done.incrementAndGet();
                    }
                } catch (java.io.IOException | RuntimeException broken) {
                    problems.add(broken.toString());
                }
            }));
        }
        for (int i = 0; i < workers; i++) {
            int exit = processes.get(i).waitFor();
            readers.get(i).join();
            if (exit != 0) {
                problems.add("sweep worker " + i + " exited with " + exit);
            }
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException("the sweep's worker processes failed: " + problems);
        }
    }

    static String encode(int index, Scenario.Result result) {
        java.util.Base64.Encoder base64 = java.util.Base64.getEncoder();
        return String.join("\t", "RESULT", String.valueOf(index), String.valueOf(result.spec().seed()),
                result.spec().faults().toString(), String.valueOf(result.simulatedNanos()),
                String.valueOf(result.lifetimes()), String.valueOf(result.crashes()),
                String.valueOf(result.partitions()), String.valueOf(result.resets()),
                String.valueOf(result.storageFailures()), String.valueOf(result.acknowledgedWrites()),
                result.digest().isEmpty() ? "-" : result.digest(), result.failure() == null ? "-"
                        : base64.encodeToString(result.failure().getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    static Scenario.Result decode(String line, Settings settings) {
        String[] f = line.split("\t");
        Scenario.Spec spec = new Scenario.Spec(Long.parseLong(f[2]), FaultConfig.parse(f[3]), settings.workload(),
                settings.bug());
        String failure = f[12].equals("-") ? null : new String(java.util.Base64.getDecoder().decode(f[12]),
                java.nio.charset.StandardCharsets.UTF_8);
        return new Scenario.Result(spec, failure, List.of(), List.of(), Long.parseLong(f[4]), Integer.parseInt(f[5]),
                Integer.parseInt(f[6]), Integer.parseInt(f[7]), Integer.parseInt(f[8]), Long.parseLong(f[9]),
                Long.parseLong(f[10]), f[11].equals("-") ? "" : f[11]);
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
        for (Scenario.Result result : results) {
            if (result == null) {
                continue;
            }
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
                wallNanos);
    }

    /**
     * Prints the summary table.
     *
     * @param out where
     * @param summary what
     * @param indent the left margin
     */
    public static void printSummary(PrintStream out, Summary summary, String indent) {
        Table table = new Table()
                .row("seeds run", Table.count(summary.seedsRun()))
                .row("simulated time covered", String.format("%,.1f s", summary.simulatedNanos() / 1e9))
                .row("wall-clock time", String.format("%,.1f s", summary.wallNanos() / 1e9))
                .row("restarts, every key checked after each", Table.count(summary.lifetimes() - summary.seedsRun()))
                .row("acknowledged writes", Table.count(summary.acknowledgedWrites()))
                .row("faults injected", Table.count(summary.faultsInjected()))
                .row("  crashes in the middle of the load", Table.count(summary.crashes()))
                .row("  network partitions", Table.count(summary.partitions()))
                .row("  connection resets", Table.count(summary.resets()))
                .row("  storage failures that hit the service", Table.count(summary.storageFailures()))
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
        String digest = result.digest();
        return result.spec().line() + (digest.length() >= 16 ? ":digest=" + digest.substring(0, 16) : "");
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
