package dev.lockstep.demo;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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

    /** One build under measurement. */
    private record Build(String name, Method main) {
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
        List<Build> builds = new ArrayList<>();
        for (String root : Arrays.asList(args).subList(4, args.length)) {
            builds.add(load(new File(root)));
        }
        Map<String, List<Round>> measured = new LinkedHashMap<>();
        PrintStream out = System.out;
        String digests = null;
        for (int round = 1; round <= rounds; round++) {
            for (int i = 0; i < builds.size(); i++) {
                Build build = builds.get((i + round) % builds.size());
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
                    measured.computeIfAbsent(build.name(), name -> new ArrayList<>()).add(result);
                }
            }
        }
        out.printf(Locale.ROOT, "%n%s, %s seeds, rounds %d to %d (digests %s): warm median and the median of each"
                + " round's ratio to %s%n", workload, seeds, warmUp + 1, rounds, digests, builds.get(0).name());
        List<Round> first = measured.get(builds.get(0).name());
        for (Build build : builds) {
            List<Round> rows = measured.get(build.name());
            double[] ratios = new double[rows.size()];
            for (int i = 0; i < rows.size(); i++) {
                ratios[i] = rows.get(i).seedsPerCpuSecond() / first.get(i).seedsPerCpuSecond();
            }
            out.printf(Locale.ROOT, "%-24s %8.1f seeds/CPU-s %6.2fx%n", build.name(),
                    median(rows.stream().mapToDouble(Round::seedsPerCpuSecond).toArray()), median(ratios));
        }
    }

    private static Build load(File root) throws ReflectiveOperationException, MalformedURLException {
        List<URL> urls = new ArrayList<>();
        for (String classes : MODULE_CLASSES) {
            File folder = new File(root, classes);
            if (!folder.isDirectory()) {
                throw new IllegalArgumentException(folder + " is not compiled: build " + root + " first");
            }
            urls.add(folder.toURI().toURL());
        }
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (entry.endsWith(".jar") && !new File(entry).getName().startsWith("lockstep-")) {
                urls.add(new File(entry).toURI().toURL());
            }
        }
        ClassLoader loader = new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
        Method main = loader.loadClass(SweepThroughput.class.getName()).getMethod("main", String[].class);
        String name = root.getAbsoluteFile().toPath().normalize().getFileName().toString();
        return new Build(name, main);
    }

    /** One round of one seed thread of the build's sweep: its rate per sweep CPU second, steps and digests. */
    private static Round run(Build build, String seeds, String workload) throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream out = System.out;
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        // The runtimes find their services (Awaiter, SearchHooks) through the context class loader.
        Thread thread = Thread.currentThread();
        ClassLoader context = thread.getContextClassLoader();
        thread.setContextClassLoader(build.main().getDeclaringClass().getClassLoader());
        try {
            build.main().invoke(null, (Object) new String[] {seeds, "1", "1", "1", workload});
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        } finally {
            thread.setContextClassLoader(context);
            System.setOut(out);
        }
        String text = printed.toString(StandardCharsets.UTF_8);
        Matcher result = RESULT.matcher(text);
        if (!result.find()) {
            throw new IllegalStateException(build.name() + "'s sweep printed no RESULT line:\n" + text);
        }
        return new Round(Long.parseLong(result.group(1)) / (Long.parseLong(result.group(2)) / 1e9),
                Long.parseLong(result.group(3)), result.group(5));
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
