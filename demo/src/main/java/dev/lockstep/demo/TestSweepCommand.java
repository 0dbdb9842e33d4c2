package dev.lockstep.demo;

import dev.lockstep.testing.SimulationTestFailure;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The options and the work of {@code explore --test} and {@code replay --test}: a user's own
 * {@code @SimulationTest} methods swept or one of their failures rerun ({@link TestSweep}).
 */
final class TestSweepCommand {
    private TestSweepCommand() {
    }

    /** What {@code explore} takes to sweep a user's test. */
    static final class ExploreOptions {
        @Option(names = "--test", paramLabel = "CLASS[#METHOD]", description = "instead of the demo: sweep this"
                + " @SimulationTest method of your own (every one of the class without #METHOD), from --classpath")
        String test;

        @Option(names = "--classpath", paramLabel = "PATH", description = "with --test: the directories and jars of"
                + " your tests and what they use, joined by ':' (Maven: target/test-classes:target/classes and the"
                + " output of dependency:build-classpath)")
        String classPath;

        @Option(names = "--strategy", paramLabel = "NAME", description = "with --test: how runs are chosen:"
                + " combined (the default), random, pct, faultpoints or guided; without it, how the demo's seeds"
                + " become runs"
                + " beside their faults: random, pct, faultpoints, targeted, nemesis-swarm or combined (the default:"
                + " combined for the replicated workloads, random for the others, as the scoreboard shows best)")
        String strategy;

        @Option(names = "--stop-at-first-failure", description = "with --test: skip the runs after the first that"
                + " failed")
        boolean stopAtFirstFailure;

        boolean asked() {
            return test != null || classPath != null || stopAtFirstFailure;
        }
    }

    /** What {@code replay} takes to rerun a failure of a user's test. */
    static final class ReplayOptions {
        @Option(names = "--test", paramLabel = "CLASS#METHOD", description = "the LINE is the replay text of a"
                + " failure of this @SimulationTest method of your own, from --classpath")
        String test;

        @Option(names = "--classpath", paramLabel = "PATH", description = "with --test: the class path of your tests")
        String classPath;

        @Option(names = "--digest", paramLabel = "HEX", description = "with --test: the start of the audit digest the"
                + " failure printed; a replay that ends elsewhere exits with 3")
        String digest;

        boolean asked() {
            return test != null || classPath != null || digest != null;
        }
    }

    /** The options of {@code explore} a sweep of the demo takes and a sweep of a user's test does not. */
    private static final List<String> DEMO_ONLY = List.of("--faults", "--workload", "--inject-bug", "--merge");

    /**
     * {@code explore --test}: checks the options, then sweeps.
     *
     * @return the exit status: {@link Main#PASSED}, or {@link Main#FAILED} when a run failed, a method could not
     *     run, or nothing ran
     * @throws CommandLine.ParameterException naming a bad or missing option
     */
    static int explore(PrintWriter out, CommandLine line, ExploreOptions options, int seeds, long firstSeed,
                       Shard shard, Path report, Integer threads) throws Exception {
        CommandLine.ParseResult parsed = line.getParseResult();
        if (options.test == null || options.classPath == null) {
            throw new CommandLine.ParameterException(line, "--test and --classpath go together: --test names your"
                    + " @SimulationTest method, --classpath where it is");
        }
        for (String option : DEMO_ONLY) {
            if (parsed.hasMatchedOption(option)) {
                throw new CommandLine.ParameterException(line, option + " is the demo's; with --test the method's"
                        + " @SimulationTest says its faults and workload");
            }
        }
        String strategy = options.strategy == null ? dev.lockstep.testing.SearchStrategy.NAMES.getFirst()
                : options.strategy;
        if (!dev.lockstep.testing.SearchStrategy.NAMES.contains(strategy)) {
            throw new CommandLine.ParameterException(line, "--strategy " + strategy + " is unknown; known: "
                    + String.join(", ", dev.lockstep.testing.SearchStrategy.NAMES));
        }
        boolean seedsGiven = parsed.hasMatchedOption("--seeds");
        boolean firstSeedGiven = parsed.hasMatchedOption("--first-seed");
        if (seedsGiven && shard.index() >= seeds) {
            throw new CommandLine.ParameterException(line, "--shard " + shard + " of --seeds " + seeds + " has no"
                    + " seeds");
        }
        if (threads != null && threads < 1) {
            throw new CommandLine.ParameterException(line, "--threads must be at least 1, was " + threads);
        }
        TestSweep.Target target = target(line, options.test, options.classPath);
        if (Main.checkOnly()) {
            return Main.PASSED;
        }
        if (report != null) {
            // Before the sweep, which may run for hours, rather than when its report is written.
            try {
                java.nio.file.Files.createDirectories(report);
            } catch (java.io.IOException | SecurityException unwritable) {
                throw new CommandLine.ParameterException(line, "--report " + report + ": the directory cannot be"
                        + " made (" + unwritable + ")");
            }
        }
        Map<String, String> parameters = TestSweep.sweepParameters(seedsGiven ? seeds : null,
                firstSeedGiven ? firstSeed : null, strategy, options.stopAtFirstFailure, shard, report, threads);
        out.println("exploring " + options.test + " (" + target.methods().size() + " method"
                + (target.methods().size() == 1 ? "" : "s") + "): " + parameters);
        String classPath = options.classPath;
        TestSweep.Outcome outcome = TestSweep.run(out, new TestSweep.Request(options.test, classPath, parameters),
                method -> "./lockstep replay --test " + method + " --classpath " + classPath);
        out.printf("%d run%s: %d passed, %d failed, %d not run%n", outcome.passed() + outcome.failed(),
                outcome.passed() + outcome.failed() == 1 ? "" : "s", outcome.passed(), outcome.failed(),
                outcome.notRun());
        if (report != null) {
            out.println("report: " + report.toAbsolutePath() + " (a file per method)");
        }
        if (outcome.passed() + outcome.failed() == 0 && outcome.problems().isEmpty()) {
            out.println("nothing ran");
            return Main.FAILED;
        }
        return outcome.failed() == 0 && outcome.problems().isEmpty() ? Main.PASSED : Main.FAILED;
    }

    /**
     * {@code replay --test}: reruns the run of the replay text once.
     *
     * @return {@link Main#FAILED} when it failed again with the digest given (or none was given),
     *     {@link Main#PASSED} when it passed and no digest was given, {@link Main#DIFFERENT_RUN} when a digest was
     *     given and the run did not end with it
     * @throws CommandLine.ParameterException naming a bad or missing option
     */
    static int replay(PrintWriter out, CommandLine line, ReplayOptions options, String replayText) throws Exception {
        if (options.test == null || options.classPath == null) {
            throw new CommandLine.ParameterException(line, "--test and --classpath go together: --test names the"
                    + " @SimulationTest method that failed, --classpath where it is");
        }
        if (options.digest != null && !Scenario.ReplayLine.isHex(options.digest, Scenario.ReplayLine.DIGEST_DIGITS)
                && !Scenario.ReplayLine.isHex(options.digest, Scenario.ReplayLine.WHOLE_DIGEST_DIGITS)) {
            throw new CommandLine.ParameterException(line, "--digest " + options.digest + " is not the "
                    + Scenario.ReplayLine.DIGEST_DIGITS + " lower-case hex digits a failure prints");
        }
        TestSweep.Target target = target(line, options.test, options.classPath);
        if (target.methods().size() != 1 || !options.test.contains("#")) {
            throw new CommandLine.ParameterException(line, "--test " + options.test + ": name the one method,"
                    + " CLASS#METHOD");
        }
        if (Main.checkOnly()) {
            return Main.PASSED;
        }
        out.println("replaying " + options.test + ": " + replayText);
        TestSweep.Outcome outcome = TestSweep.run(out, new TestSweep.Request(options.test, options.classPath,
                Map.of("lockstep.replay", replayText)), null);
        if (!outcome.problems().isEmpty()) {
            return Main.USAGE; // the replay text was refused, or the class could not be made: printed above
        }
        if (outcome.failed() == 0) {
            out.println("result: passed");
            if (options.digest != null) {
                out.println("  the run that printed the digest " + options.digest + " failed: this one is different"
                        + " (exit status " + Main.DIFFERENT_RUN + ")");
                return Main.DIFFERENT_RUN;
            }
            return Main.PASSED;
        }
        out.println("result: FAILED");
        SimulationTestFailure failure = outcome.failures().isEmpty() ? null : outcome.failures().getFirst();
        if (failure != null) {
            failure.getMessage().lines().forEach(text -> out.println("  " + text));
            if (failure.digest() != null) {
                out.println("audit digest: " + failure.digest());
                if (options.digest != null) {
                    if (failure.digest().startsWith(options.digest)) {
                        out.println("  the same digest as the run that printed this line: an exact replay");
                    } else {
                        out.println("  DIFFERENT from the digest given (" + options.digest + "): the code or the"
                                + " simulator changed since (exit status " + Main.DIFFERENT_RUN + ")");
                        return Main.DIFFERENT_RUN;
                    }
                }
            }
        }
        return Main.FAILED;
    }

    private static TestSweep.Target target(CommandLine line, String test, String classPath) throws Exception {
        try (java.net.URLClassLoader loader = TestSweep.loader(classPath)) {
            return TestSweep.target(test, loader);
        } catch (IllegalArgumentException bad) {
            throw new CommandLine.ParameterException(line, bad.getMessage());
        }
    }
}
