package dev.lockstep.demo;

import static dev.lockstep.demo.Main.PASSED;
import static dev.lockstep.demo.Main.atLeast;
import static dev.lockstep.demo.Main.checkOnly;
import static dev.lockstep.demo.Main.explore;
import static dev.lockstep.demo.Main.fitsTheHeap;
import static dev.lockstep.demo.Main.mergeReports;
import static dev.lockstep.demo.Main.seedsFit;

import dev.lockstep.demo.Main.SweepOptions;
import dev.lockstep.demo.kv.InjectedBug;
import dev.lockstep.testing.FaultConfig;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code lockstep explore}: its options and their checks (the workload, the fault profile against the workload,
 * the injected bug against the workload, the report directory, the strategy, and {@code --merge} alone), then the
 * sweep ({@link Main#explore}), the merge of shard reports ({@link Main#mergeReports}) or a sweep of a user's test
 * ({@link TestSweepCommand}).
 */
@Command(name = "explore", mixinStandardHelpOptions = true,
        description = "The simulated seed sweep alone, one simulator per core, swarm testing.")
final class ExploreCommand implements Callable<Integer> {
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin
    private final SweepOptions sweep = new SweepOptions();

    @Option(names = "--seeds", paramLabel = "N", defaultValue = "100", description = "seeds (${DEFAULT-VALUE})")
    int seeds;

    @Option(names = "--faults", paramLabel = "PROFILE", defaultValue = "swarm",
            description = "swarm, none, all, or kinds joined by '+'")
    String faults;

    @Option(names = "--workload", paramLabel = "NAME", defaultValue = "mixed", completionCandidates = WorkloadNames.class,
            description = "the clients' workload: ${COMPLETION-CANDIDATES}")
    String workload;

    @Option(names = "--shard", paramLabel = "K/N", defaultValue = "0/1", converter = ShardConverter.class,
            description = "run only shard K (from 0) of N: the seeds whose position in the sweep is K modulo N")
    Shard shard;

    @Option(names = "--report", paramLabel = "DIR",
            description = "write a JUnit XML report (explore.xml or explore-shard-K-of-N.xml) and a .failures"
                    + " file with one replay line per failed seed into DIR (with --test: a text report per"
                    + " method, CLASS#METHOD[-shard-K-of-N].txt)")
    Path report;

    @Option(names = "--merge", paramLabel = "REPORT", arity = "1..*",
            description = "instead of sweeping: merge the shard reports in these files or directories, check"
                    + " that they are exactly one sweep, print its failures (and write it with --report)")
    List<Path> merge;

    @CommandLine.Mixin
    private final TestSweepCommand.ExploreOptions userTest = new TestSweepCommand.ExploreOptions();

    @Override
    public Integer call() throws Exception {
        CommandLine line = spec.commandLine();
        if (userTest.asked()) {
            return TestSweepCommand.explore(line.getOut(), line, userTest,
                    atLeast(line, "--seeds", seeds, seeds, 1), sweep.firstSeed, shard, report, sweep.threads);
        }
        if (merge != null) {
            // A merge reads the sweep from its reports: an option saying what to sweep would be ignored.
            for (String option : List.of("--seeds", "--first-seed", "--faults", "--workload", "--inject-bug",
                    "--shard", "--threads", "--strategy")) {
                if (line.getParseResult().hasMatchedOption(option)) {
                    throw new CommandLine.ParameterException(line, "--merge takes the sweep from its reports;"
                            + " " + option + " cannot be given with it");
                }
            }
            return checkOnly() ? PASSED : mergeReports(System.out, line, merge, report);
        }
        atLeast(line, "--seeds", seeds, seeds, 1);
        seedsFit(line, sweep.firstSeed, seeds);
        fitsTheHeap(line, seeds, shard);
        Workload parsedWorkload;
        try {
            parsedWorkload = Workload.parse(workload);
        } catch (IllegalArgumentException bad) {
            throw new CommandLine.ParameterException(line, bad.getMessage()); // it lists the workloads
        }
        try {
            Explorer.faultsFor(faults, sweep.firstSeed); // swarm, swarm+crash or a profile; else names it
        } catch (IllegalArgumentException bad) {
            // The profile's message lists the kinds; the profiles only explore takes are added.
            throw new CommandLine.ParameterException(line, "--faults " + faults + ": " + bad.getMessage()
                    + "; or swarm, swarm+crash, none, all");
        }
        if (parsedWorkload.replicated() && !faults.startsWith("swarm")
                && !faults.trim().toLowerCase(java.util.Locale.ROOT).startsWith("all")) {
            // Kinds named one by one are what the user wants tested: one this workload never injects would
            // pass every seed without having been tried, so it is refused, as a bug of the other workload is.
            for (dev.lockstep.testing.Fault fault : FaultConfig.parse(faults).enabled()) {
                if (!RaftScenario.injects(fault)) {
                    throw new CommandLine.ParameterException(line, "--faults " + fault.cliName() + " is not"
                            + " injected by --workload " + parsedWorkload.cliName() + ", which injects "
                            + RaftScenario.injectedKinds());
                }
            }
        }
        if (sweep.bug.replication() && !parsedWorkload.replicated()) {
            throw new CommandLine.ParameterException(line, "--inject-bug " + sweep.bug.cliName() + " is a"
                    + " Raft bug: it needs --workload replicated or replicated-5");
        }
        if (!sweep.bug.replication() && sweep.bug != InjectedBug.NONE && parsedWorkload.replicated()) {
            throw new CommandLine.ParameterException(line, "--inject-bug " + sweep.bug.cliName() + " is in the"
                    + " key-value store, which --workload replicated does not run");
        }
        if (report != null && !checkOnly()) {
            // Before the sweep, which may run for hours, rather than when its report is written.
            try {
                java.nio.file.Files.createDirectories(report);
            } catch (java.io.IOException | SecurityException unwritable) {
                throw new CommandLine.ParameterException(line, "--report " + report + ": the directory cannot be"
                        + " made (" + unwritable + ")");
            }
            if (!java.nio.file.Files.isWritable(report)) {
                throw new CommandLine.ParameterException(line, "--report " + report + ": the directory is not"
                        + " writable");
            }
        }
        SearchStrategy chosen;
        try {
            chosen = userTest.strategy == null ? null : SearchStrategy.parse(userTest.strategy);
        } catch (IllegalArgumentException bad) {
            throw new CommandLine.ParameterException(line, "--strategy: " + bad.getMessage());
        }
        if (chosen == SearchStrategy.GUIDED) {
            throw new CommandLine.ParameterException(line, "--strategy guided: the demo's sweep runs seeds that"
                    + " each stand for one run, while the guided explorer chooses each run from the runs before"
                    + " it; it runs with --test, or in the scoreboard");
        }
        if (checkOnly()) {
            return PASSED;
        }
        return explore(System.out, new Explorer.Settings(seeds, sweep.firstSeed, faults, parsedWorkload,
                sweep.bug, sweep.threads(line), false, shard, chosen), report);
    }

    /** The command-line names of the workloads, for the help text. */
    static final class WorkloadNames implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return Arrays.stream(Workload.values()).map(Workload::cliName).iterator();
        }
    }

    /** Reads a {@link Shard} given as {@code K/N}. */
    static final class ShardConverter implements CommandLine.ITypeConverter<Shard> {
        @Override
        public Shard convert(String value) {
            try {
                return Shard.parse(value);
            } catch (IllegalArgumentException bad) {
                throw new CommandLine.TypeConversionException(bad.getMessage());
            }
        }
    }
}
