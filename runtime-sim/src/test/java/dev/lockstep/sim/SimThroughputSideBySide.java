package dev.lockstep.sim;

import java.io.File;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@link SimThroughput} of several builds in one JVM, round after round, each build in a class loader of its own:
 * the builds meet the same machine load, the same JIT threads and the same heap, and every build is measured warm
 * (the rounds before {@code warmUpRounds} are printed but left out of the medians). What BENCHMARKS.md compares a
 * change with, and the simulator with an old commit's. Not a test (surefire runs {@code *Test}); the command is in
 * BENCHMARKS.md.
 *
 * <p>A build is a checkout whose {@code api}, {@code runtime-core} and {@code runtime-sim} classes and
 * {@code runtime-sim} test classes are compiled (its {@code target} folders); the jars on this JVM's class path
 * (the simulator's dependencies) are shared by all builds. Older builds' {@code SimThroughput} took only the scale
 * and printed fewer columns; both are understood.
 *
 * <p>Why hand-written: a JMH benchmark measures one method of one build; this compares whole seeded runs of
 * several builds, and must load a build that JMH never compiled.
 */
public final class SimThroughputSideBySide {

    private SimThroughputSideBySide() {
    }

    /**
     * Runs every build's {@code SimThroughput} {@code rounds} times, alternating builds, and prints each round's
     * rates and then the medians of the warm rounds with each build's ratio to the first.
     *
     * @param args {@code rounds warmUpRounds scale workloads build...}: workloads as {@link SimThroughput} takes
     *             them (comma-separated first words), each build a checkout's root directory
     * @throws Exception if a build cannot be loaded or its run fails
     */
    public static void main(String[] args) throws Exception {
        if (args.length < 5) {
            throw new IllegalArgumentException(
                    "usage: SimThroughputSideBySide rounds warmUpRounds scale workloads build..., got " + List.of(args));
        }
        int rounds = Integer.parseInt(args[0]);
        int warmUp = Integer.parseInt(args[1]);
        if (rounds <= warmUp) {
            throw new IllegalArgumentException("rounds (" + rounds + ") must exceed warmUpRounds (" + warmUp + ")");
        }
        String scale = args[2];
        List<String> workloads = Arrays.asList(args[3].split(","));
        List<SideBySideBuild> builds = new ArrayList<>();
        try {
            for (int i = 4; i < args.length; i++) {
                builds.add(SideBySideBuild.load(new File(args[i]), CLASS_FOLDERS, jar -> true,
                        SimThroughput.class.getName()));
            }
            compare(builds, rounds, warmUp, scale, args[3], workloads);
        } finally {
            SideBySideBuild.closeAll(builds);
        }
    }

    private static final List<String> CLASS_FOLDERS = List.of("runtime-sim/target/test-classes",
            "runtime-sim/target/classes", "runtime-core/target/classes", "api/target/classes");

    private static void compare(List<SideBySideBuild> builds, int rounds, int warmUp, String scale,
            String workloadArgument, List<String> workloads) throws Exception {
        // rates.get(workload + " " + build's position) = {switches per CPU s, I/O operations per CPU s} of each
        // warm round
        Map<String, List<double[]>> rates = new LinkedHashMap<>();
        PrintStream out = System.out;
        out.printf(Locale.ROOT, "%-5s %-24s %-10s %14s %14s%n", "round", "build", "workload", "switches/cpu-s",
                "I/O ops/cpu-s");
        for (int round = 1; round <= rounds; round++) {
            for (int b = 0; b < builds.size(); b++) {
                SideBySideBuild build = builds.get(b);
                // Builds from before the interleaving mode read the scale alone and run every workload.
                for (String line : build.run(scale, "INTERLEAVED", workloadArgument)) {
                    String[] row = parse(line, workloads);
                    if (row == null) {
                        continue;
                    }
                    double switches = Double.parseDouble(row[1]);
                    double io = Double.parseDouble(row[2]);
                    out.printf(Locale.ROOT, "%-5s %-24s %-10s %14.0f %14.0f%s%n", round, build.name(), row[0],
                            switches, io, round <= warmUp ? "  (warm-up)" : "");
                    if (round > warmUp) {
                        rates.computeIfAbsent(row[0] + " " + b, k -> new ArrayList<>())
                                .add(new double[] {switches, io});
                    }
                }
            }
        }
        out.printf(Locale.ROOT, "%nmedians of rounds %d to %d, and the ratio to %s%n", warmUp + 1, rounds,
                builds.get(0).name());
        out.printf(Locale.ROOT, "%-10s %-24s %14s %8s %14s %8s%n", "workload", "build", "switches/cpu-s", "ratio",
                "I/O ops/cpu-s", "ratio");
        for (String workload : workloads) {
            double[] first = null;
            for (int b = 0; b < builds.size(); b++) {
                SideBySideBuild build = builds.get(b);
                List<double[]> measured = rates.get(workload + " " + b);
                if (measured == null) {
                    continue;
                }
                double[] median = {median(measured, 0), median(measured, 1)};
                if (first == null) {
                    first = median;
                }
                out.printf(Locale.ROOT, "%-10s %-24s %14.0f %7.2fx %14.0f %7.2fx%n", workload, build.name(),
                        median[0], median[0] / first[0], median[1], first[1] == 0 ? 0 : median[1] / first[1]);
            }
        }
    }

    /**
     * {@code {workload, switches per CPU s, I/O operations per CPU s}} of a table row of one of {@code workloads},
     * or null for any other line. The two rates are the 11th and 10th columns from the end of today's rows (the
     * step counts and times follow them) and the 4th and 3rd of older builds' (runs and simulated seconds per CPU
     * second follow), told apart by the column count.
     */
    private static String[] parse(String line, List<String> workloads) {
        String[] columns = line.strip().split("\\s+");
        if (columns.length < 8 || !workloads.contains(columns[0])) {
            return null;
        }
        boolean older = !line.contains("interleaved") && !line.contains("service-first");
        int io = columns.length - (older ? 3 : 10);
        return new String[] {columns[0], columns[io - 1], columns[io]};
    }

    private static double median(List<double[]> rows, int column) {
        return SideBySideBuild.median(rows.stream().mapToDouble(row -> row[column]).toArray());
    }
}
