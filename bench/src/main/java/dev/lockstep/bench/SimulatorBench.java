package dev.lockstep.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The simulator's section of {@code ./lockstep bench}: seeds per CPU second of the demo's two sweeps (a 3-node Raft,
 * {@code explore --workload replicated}, and the key-value sweep, {@code explore}'s default) and the simulated I/O
 * operations per CPU second of {@code SimThroughput}.
 *
 * <p>A sweep's rate is measured by the demo's {@code SweepThroughput} (its test sources) in a JVM of its own, one
 * simulator thread: the same seeds several times in a row, the first round cold. The warm rate counts the CPU time
 * of the threads that ran the seeds (the sweeping thread and the simulator threads it waited for, not the JIT's or
 * the collector's) over the second half of the rounds, by when the JIT has compiled what the sweep runs; the cold
 * rate is the first round's seeds per CPU second of the whole process, compilation included, which is what a short
 * sweep costs. The JVMs of the two sweeps alternate, round after round, and each table cell is the median over the
 * rounds. Every JVM of a sweep must report the same digest of its seeds' audit digests; one that differs is noted
 * as a determinism failure.
 */
final class SimulatorBench {
    /** One sweep measured: its workload's command-line name, its title, seeds per round, rounds per JVM. */
    private record Sweep(String workload, String title, int seeds, int roundsPerJvm) {
    }

    /** What one JVM of a sweep measured. */
    private record Run(double warmSeedsPerCpuSecond, double coldSeedsPerCpuSecond, long stepsPerSeed,
                       double cpuNanosPerStep, String digests) {
    }

    private final String java;
    private final boolean quick;
    private final int rounds;
    private final List<String> notes;

    /**
     * @param java the java binary
     * @param quick fewer seeds, and {@code SimThroughput} at a quarter of its runs
     * @param rounds JVMs of each sweep, alternating
     * @param notes where a failed round or a differing digest is noted
     */
    SimulatorBench(String java, boolean quick, int rounds, List<String> notes) {
        this.java = java;
        this.quick = quick;
        this.rounds = rounds;
        this.notes = notes;
    }

    /**
     * Runs the sweeps and {@code SimThroughput} and renders the section.
     *
     * @param demoClasspath the demo's test and main classes with its dependencies, or null to leave the sweeps out
     * @param simClasspath runtime-sim's test and main classes with its dependencies, or null to leave
     *                     {@code SimThroughput} out
     * @return Markdown
     */
    String run(String demoClasspath, String simClasspath) {
        StringBuilder section = new StringBuilder();
        if (demoClasspath != null) {
            section.append(sweeps(demoClasspath)).append('\n');
        }
        if (simClasspath != null) {
            section.append(simThroughput(simClasspath));
        }
        return section.toString();
    }

    private String sweeps(String classpath) {
        List<Sweep> sweeps = List.of(
                new Sweep("replicated", "3-node Raft (`explore --workload replicated`)", quick ? 20 : 40,
                        quick ? 4 : 6),
                new Sweep("mixed", "key-value sweep (`explore`)", quick ? 30 : 60, quick ? 4 : 6));
        Map<Sweep, List<Run>> runs = new HashMap<>();
        for (int round = 1; round <= rounds; round++) {
            for (Sweep sweep : sweeps) {
                System.err.printf(Locale.ROOT, "  simulator seeds per CPU second: %s, round %d of %d%n",
                        sweep.workload(), round, rounds);
                try {
                    runs.computeIfAbsent(sweep, s -> new ArrayList<>()).add(measure(classpath, sweep));
                } catch (RuntimeException failed) {
                    notes.add("simulator seeds per CPU second, " + sweep.workload() + ": a round failed: "
                            + failed.getMessage());
                }
            }
        }
        StringBuilder table = new StringBuilder("### Simulator seeds per CPU second (one simulator thread, swarm "
                + "faults, seeds from 1)\n\n| sweep | seeds a round × rounds a JVM | seeds/CPU-s warm (median) "
                + "| per JVM | seeds/CPU-s cold (first round, JIT included) | steps a seed | CPU ns a step |\n"
                + "|---|---|---:|---|---:|---:|---:|\n");
        for (Sweep sweep : sweeps) {
            List<Run> measured = runs.getOrDefault(sweep, List.of());
            if (measured.isEmpty()) {
                table.append("| ").append(sweep.title()).append(" | failed in every round (see the notes) | | | | | |\n");
                continue;
            }
            Set<String> digests = new LinkedHashSet<>();
            StringBuilder perJvm = new StringBuilder();
            for (Run run : measured) {
                digests.add(run.digests());
                perJvm.append(perJvm.isEmpty() ? "" : ", ").append(String.format(Locale.ROOT, "%.1f",
                        run.warmSeedsPerCpuSecond()));
            }
            if (digests.size() > 1) {
                notes.add("simulator seeds per CPU second, " + sweep.workload() + ": DETERMINISM FAILURE, the JVMs'"
                        + " runs of the same seeds have different digests: " + digests);
            }
            double warm = median(measured.stream().mapToDouble(Run::warmSeedsPerCpuSecond).toArray());
            table.append(String.format(Locale.ROOT, "| %s | %d × %d | %.1f | %s | %.1f | %,d | %.0f |%n",
                    sweep.title(), sweep.seeds(), sweep.roundsPerJvm(), warm, perJvm,
                    median(measured.stream().mapToDouble(Run::coldSeedsPerCpuSecond).toArray()),
                    measured.getFirst().stepsPerSeed(),
                    median(measured.stream().mapToDouble(Run::cpuNanosPerStep).toArray())));
        }
        return table.toString();
    }

    private Run measure(String classpath, Sweep sweep) {
        List<String> output = BenchProcesses.command(java, Bench.HEAP, "--enable-native-access=ALL-UNNAMED", "--add-opens",
                "java.base/java.lang=ALL-UNNAMED",
                "-XX:InlineSmallCode=1000", "-cp", classpath, "dev.lockstep.demo.SweepThroughput",
                String.valueOf(sweep.seeds()), "1", String.valueOf(sweep.roundsPerJvm()), "1", sweep.workload());
        List<Map<String, String>> results = new ArrayList<>();
        for (String line : output) {
            if (line.startsWith("RESULT ")) {
                results.add(BenchProcesses.fields(line));
            }
        }
        if (results.size() != sweep.roundsPerJvm()) {
            throw new IllegalStateException("expected " + sweep.roundsPerJvm() + " RESULT lines, got: "
                    + String.join(" / ", output));
        }
        long seeds = 0;
        long cpu = 0;
        long steps = 0;
        for (Map<String, String> round : results.subList(results.size() / 2, results.size())) {
            seeds += Long.parseLong(round.get("seeds"));
            cpu += Long.parseLong(round.get("cpu"));
            steps += Long.parseLong(round.get("steps"));
        }
        Map<String, String> first = results.getFirst();
        for (Map<String, String> round : results) {
            if (!round.get("digests").equals(first.get("digests"))) {
                throw new IllegalStateException("DETERMINISM FAILURE: rounds of the same seeds in one JVM have"
                        + " different digests: " + first + " / " + round);
            }
        }
        long firstSeeds = Long.parseLong(first.get("seeds"));
        if (cpu <= 0 || seeds == 0 || !first.get("failures").equals("0")) {
            throw new IllegalStateException("no CPU time measured or a seed failed: " + first);
        }
        return new Run(seeds / (cpu / 1e9), firstSeeds / (Long.parseLong(first.get("process")) / 1e9),
                Long.parseLong(first.get("steps")) / Math.max(1, firstSeeds), cpu / (double) steps,
                first.get("digests"));
    }

    private String simThroughput(String classpath) {
        System.err.println("  simulator throughput");
        StringBuilder section = new StringBuilder("### Simulator throughput (SimThroughput"
                + (quick ? ", a quarter of the runs" : "")
                + ", one run: nothing to compare it with side by side)\n\n```\n");
        List<String> output = BenchProcesses.command(java, "--enable-native-access=ALL-UNNAMED", "--add-opens",
                "java.base/java.lang=ALL-UNNAMED", "-cp", classpath,
                "dev.lockstep.sim.SimThroughput", quick ? "0.25" : "1");
        for (String line : forPeople(output)) {
            section.append(line).append('\n');
        }
        section.append("```\n\n");
        return section.append(againstTarget(output)).toString();
    }

    /** The simulated I/O operations per CPU second that the storage and network workloads are to reach. */
    static final double IO_OPS_TARGET = 1_000_000;

    /** SimThroughput's machine-readable line per workload; see its {@code resultLine}. */
    private static final String RESULT = "RESULT ";
    private static final String IO_OPS_KEY = "ioOpsPerCpuSecond=";
    private static final String WORKLOAD_KEY = " workload=";

    /**
     * SimThroughput's storage and network workloads against {@link #IO_OPS_TARGET}, read from its
     * {@code RESULT ioOpsPerCpuSecond=... workload=...} lines (its table's layout is for people).
     *
     * @param output SimThroughput's lines
     * @return a Markdown table, or a line saying which figure was not found
     */
    static String againstTarget(List<String> output) {
        StringBuilder table = new StringBuilder("Against the target of " + String.format(Locale.ROOT, "%,.0f",
                IO_OPS_TARGET) + " simulated I/O operations per CPU second of the simulator's thread:\n\n"
                + "| SimThroughput workload | I/O ops/cpu-s | ÷ target |\n|---|---:|---:|\n");
        int rows = 0;
        for (String line : output) {
            if (!line.startsWith(RESULT)) {
                continue;
            }
            int workloadAt = line.indexOf(WORKLOAD_KEY);
            int rateAt = line.indexOf(IO_OPS_KEY);
            if (workloadAt < 0 || rateAt < 0 || rateAt > workloadAt) {
                return "SimThroughput's result line has no " + IO_OPS_KEY + " before its" + WORKLOAD_KEY + ": "
                        + line + "\n";
            }
            String workload = line.substring(workloadAt + WORKLOAD_KEY.length());
            if (!(workload.startsWith("storage") || workload.startsWith("network"))) {
                continue;
            }
            int rateEnd = line.indexOf(' ', rateAt);
            String figure = line.substring(rateAt + IO_OPS_KEY.length(), rateEnd);
            try {
                double rate = Double.parseDouble(figure);
                table.append(String.format(Locale.ROOT, "| %s | %,.0f | %.2f |%n", workload, rate,
                        rate / IO_OPS_TARGET));
                rows++;
            } catch (NumberFormatException notANumber) {
                return "SimThroughput's result line has no number after " + IO_OPS_KEY + ": " + line + "\n";
            }
        }
        return rows == 0 ? "SimThroughput printed no RESULT line of a storage or network workload\n"
                : table.toString();
    }

    /** SimThroughput's lines for people: its table, without the result lines that repeat its rows. */
    static List<String> forPeople(List<String> output) {
        return output.stream().filter(line -> !line.startsWith(RESULT)).toList();
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }
}
