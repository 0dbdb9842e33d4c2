package dev.lockstep.demo;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code lockstep scoreboard}: runs the {@link Scoreboard} and prints its table. */
@Command(name = "scoreboard", mixinStandardHelpOptions = true,
        description = {"How fast the search finds planted bugs: every mutant of the key-value store and of the Raft,"
                + " and each protocol unmutated (a failure there is a false alarm), each swept over disjoint seed"
                + " ranges until its first failure or its CPU budget; prints found, seeds and CPU seconds to the"
                + " first failure (medians over the ranges) and each failure's replay line."})
final class ScoreboardCommand implements Callable<Integer> {
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = "--quick", description = "3 nodes only, 5 CPU seconds per range: a few minutes on two cores;"
            + " explicit options still win")
    boolean quick;

    @Option(names = "--budget", paramLabel = "CPU-SECONDS", description = "CPU time one range may spend before it"
            + " gives up (default 60, quick 5)")
    Double budget;

    @Option(names = "--strategy", paramLabel = "NAME", defaultValue = "combined",
            description = "how seeds become runs: ${COMPLETION-CANDIDATES} (default ${DEFAULT-VALUE})",
            completionCandidates = StrategyNames.class)
    String strategy;

    @Option(names = "--nodes", paramLabel = "N[,N]", split = ",", description = "the Raft's cluster sizes, 3 and/or"
            + " 5 (default 3,5, quick 3)")
    List<Integer> nodes;

    @Option(names = "--mutants", paramLabel = "NAME[,NAME]", split = ",", description = "only these rows: mutants"
            + " by their --inject-bug names, 'none' for the unmutated protocols (default: every row)")
    List<String> mutants;

    @Option(names = "--ranges", paramLabel = "N", defaultValue = "3", description = "disjoint seed ranges per"
            + " mutant, the medians' sample (${DEFAULT-VALUE})")
    int ranges;

    @Option(names = "--threads", paramLabel = "T", description = "simulators at once (default: one per core)")
    Integer threads;

    /** The strategies' names, for the help text. */
    static final class StrategyNames implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return SearchStrategy.BY_NAME.keySet().iterator();
        }
    }

    @Override
    public Integer call() throws Exception {
        CommandLine line = spec.commandLine();
        SearchStrategy chosen;
        try {
            chosen = SearchStrategy.parse(strategy);
        } catch (IllegalArgumentException bad) {
            throw new CommandLine.ParameterException(line, "--strategy: " + bad.getMessage());
        }
        double cpuBudget = budget == null ? (quick ? 5 : 60) : budget;
        if (!(cpuBudget > 0) || Double.isInfinite(cpuBudget)) {
            throw new CommandLine.ParameterException(line, "--budget must be a positive number of CPU seconds, was "
                    + cpuBudget);
        }
        if (ranges < 1) {
            throw new CommandLine.ParameterException(line, "--ranges must be at least 1, was " + ranges);
        }
        int simulators = threads == null ? Runtime.getRuntime().availableProcessors() : threads;
        if (simulators < 1) {
            throw new CommandLine.ParameterException(line, "--threads must be at least 1, was " + simulators);
        }
        List<Scoreboard.Target> rows;
        try {
            rows = Scoreboard.rows(nodes == null ? (quick ? List.of(3) : List.of(3, 5)) : nodes, mutants);
        } catch (IllegalArgumentException bad) {
            throw new CommandLine.ParameterException(line, bad.getMessage());
        }
        if (Main.checkOnly()) {
            return Main.PASSED;
        }
        Scoreboard.Settings settings = new Scoreboard.Settings(rows, chosen, cpuBudget, Scoreboard.RANGE_STRIDE - 1,
                ranges, simulators);
        System.out.printf(Locale.ROOT, "scoreboard: %d rows x %d seed ranges, strategy %s (%s), at most %.0f CPU s"
                + " per range, %d simulator%s at once%n", rows.size(), ranges, chosen.name(), chosen.description(),
                cpuBudget, simulators, simulators == 1 ? "" : "s");
        AtomicInteger done = new AtomicInteger();
        int jobs = rows.size() * ranges;
        List<Scoreboard.Row> results;
        try (Progress progress = new Progress(System.out, () -> done.get() / (double) jobs,
                () -> done.get() + "/" + jobs + " ranges")) {
            results = Scoreboard.run(settings, done);
        }
        Scoreboard.print(System.out, settings, results);
        boolean falseAlarm = results.stream().anyMatch(r -> r.target().bug() == dev.lockstep.demo.kv.InjectedBug.NONE
                && r.found() > 0);
        return falseAlarm ? Main.FAILED : Main.PASSED;
    }
}
