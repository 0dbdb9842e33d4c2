package dev.lockstep.demo;

import dev.lockstep.sim.SideBySideBuild;
import java.io.File;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@link SweepThroughput} of several builds in one JVM, round after round, each build in a class loader of its
 * own: the builds meet the same machine load, the same JIT threads and the same heap, and each round of one build
 * is paired with the next build's round right after it. The same seeds every round; every build must print the
 * same digest of its seeds' digests, or the builds did not make the same decisions and their rates are not
 * compared. Not a test (surefire runs {@code *Test}); the command is in BENCHMARKS.md.
 *
 * <p>A build is a checkout whose modules are compiled (their {@code target/classes} folders, and the demo's
 * {@code target/test-classes}); the jars on this JVM's class path other than Lockstep's own (picocli, JUnit, the
 * histogram) are shared by all builds.
 *
 * <p>The ratio printed is the median over the warm rounds of each round's rate against the first build's rate in
 * the same round, so that a load that changes between rounds moves both sides of a pair.
 */
public final class SweepSideBySide {
    private static final List<String> MODULE_CLASSES = List.of("demo/target/test-classes", "demo/target/classes",
            "testing/target/classes", "runtime-sim/target/classes", "runtime-uring/target/classes",
            "runtime-core/target/classes", "api/target/classes", "property/target/classes");
    private static final Pattern RESULT = Pattern.compile(
            "RESULT round=\\d+ seeds=(\\d+) cpu=(-?\\d+) .*steps=(\\d+) failures=(\\d+) digests=(\\w+)");

    private SweepSideBySide() {
    }

    /** What one round of one build measured. */
    private record Round(double seedsPerCpuSecond, long steps, String digests) {
    }

    /**
     * Runs every build's sweep {@code rounds} times, alternating builds (and which goes first), and prints each
     * round's rate and then each build's warm median and its median paired ratio to the first build.
     *
     * @param args {@code rounds warmUpRounds seeds workload build...}: the workload as {@link Workload#parse} takes
     *             it, each build a checkout's root directory
     * @throws Exception if a build cannot be loaded, its sweep fails, or two builds' digests differ
     */
    public static void main(String[] args) throws Exception {
        if (args.length < 5) {
            throw new IllegalArgumentException(
                    "usage: SweepSideBySide rounds warmUpRounds seeds workload build..., got " + List.of(args));
        }
        int rounds = Integer.parseInt(args[0]);
        int warmUp = Integer.parseInt(args[1]);
        if (rounds <= warmUp) {
            throw new IllegalArgumentException("rounds (" + rounds + ") must exceed warmUpRounds (" + warmUp + ")");
        }
        String seeds = args[2];
        String workload = args[3];
        List<SideBySideBuild> builds = new ArrayList<>();
        try {
            for (String root : Arrays.asList(args).subList(4, args.length)) {
                builds.add(SideBySideBuild.load(new File(root), MODULE_CLASSES,
                        jar -> !jar.getName().startsWith("lockstep-"), SweepThroughput.class.getName()));
            }
            compare(builds, rounds, warmUp, seeds, workload);
        } finally {
            SideBySideBuild.closeAll(builds);
        }
    }

    private static void compare(List<SideBySideBuild> builds, int rounds, int warmUp, String seeds, String workload)
            throws Exception {
        // measured.get(b): the warm rounds of builds.get(b)
        List<List<Round>> measured = new ArrayList<>();
        for (int b = 0; b < builds.size(); b++) {
            measured.add(new ArrayList<>());
        }
        PrintStream out = System.out;
        String digests = null;
        for (int round = 1; round <= rounds; round++) {
            for (int i = 0; i < builds.size(); i++) {
                int b = (i + round) % builds.size();
                SideBySideBuild build = builds.get(b);
                Round result = run(build, seeds, workload);
                if (digests == null) {
                    digests = result.digests();
                } else if (!digests.equals(result.digests())) {
                    throw new IllegalStateException(build.name() + " made other decisions: digests "
                            + result.digests() + " against " + digests);
                }
                out.printf(Locale.ROOT, "round %2d %-24s %8.1f seeds/CPU-s %10d steps%s%n", round, build.name(),
                        result.seedsPerCpuSecond(), result.steps(), round <= warmUp ? "  (warm-up)" : "");
                if (round > warmUp) {
                    measured.get(b).add(result);
                }
            }
        }
        out.printf(Locale.ROOT, "%n%s, %s seeds, rounds %d to %d (digests %s): warm median and the median of each"
                + " round's ratio to %s%n", workload, seeds, warmUp + 1, rounds, digests, builds.get(0).name());
        List<Round> first = measured.get(0);
        for (int b = 0; b < builds.size(); b++) {
            List<Round> rows = measured.get(b);
            double[] ratios = new double[rows.size()];
            for (int i = 0; i < rows.size(); i++) {
                ratios[i] = rows.get(i).seedsPerCpuSecond() / first.get(i).seedsPerCpuSecond();
            }
            out.printf(Locale.ROOT, "%-24s %8.1f seeds/CPU-s %6.2fx%n", builds.get(b).name(),
                    SideBySideBuild.median(rows.stream().mapToDouble(Round::seedsPerCpuSecond).toArray()),
                    SideBySideBuild.median(ratios));
        }
    }

    /** One round of one seed thread of the build's sweep: its rate per sweep CPU second, steps and digests. */
    private static Round run(SideBySideBuild build, String seeds, String workload) throws Exception {
        String text = String.join("\n", build.run(seeds, "1", "1", "1", workload));
        Matcher result = RESULT.matcher(text);
        if (!result.find()) {
            throw new IllegalStateException(build.name() + "'s sweep printed no RESULT line:\n" + text);
        }
        return new Round(Long.parseLong(result.group(1)) / (Long.parseLong(result.group(2)) / 1e9),
                Long.parseLong(result.group(3)), result.group(5));
    }
}
