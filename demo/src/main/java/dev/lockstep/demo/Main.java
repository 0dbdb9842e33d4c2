package dev.lockstep.demo;

import dev.lockstep.demo.kv.InjectedBug;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The Java side of the {@code lockstep} command line: {@code demo}, {@code explore} (its options,
 * {@link ExploreCommand}), {@code replay}, {@code scoreboard} ({@link ScoreboardCommand}) and {@code resp}
 * ({@link RespCommand}), and the internal command that runs in a child JVM ({@code serve}, the demo's service).
 * Exit status: {@value #PASSED} when everything passed, {@value #FAILED} when a check or a seed failed,
 * {@value #USAGE} for bad usage (picocli's usage-error code), and for {@code replay} {@value #DIFFERENT_RUN} when
 * the line's digest is not the replay's: the run was not the one that printed the line. Arguments are parsed by
 * picocli, which also gives each command its {@code --help}; numbers are decimal ASCII digits only
 * ({@link Decimal}).
 *
 * <p>With the system property {@value #CHECK_ARGUMENTS_PROPERTY} set to {@code true}, a command checks its
 * arguments and exits ({@value #PASSED}, or {@value #USAGE} with the usage error) without running: the
 * {@code lockstep} script does that before work that would make a bad argument wait (training the JVM's cache).
 */
@Command(name = "lockstep", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        subcommands = {Main.Demo.class, ExploreCommand.class, Main.Replay.class, ScoreboardCommand.class,
                RespCommand.class, Main.Serve.class},
        description = "The Lockstep demo service and its seed sweep.",
        footer = {"", "PROFILE: swarm (each seed draws its fault kinds; the default), none, all, or kinds joined by '+'"
                + " (see --help of explore)", "",
                "Exit status: 0 passed; 1 a check or seed failed; 2 bad usage; 3 (replay) the line's digest is not"
                + " the replay's, so the run differs from the one that printed the line."})
public final class Main implements Callable<Integer> {
    /** Exit status: everything passed (for {@code replay}: the seed passed, and the digest is the line's). */
    static final int PASSED = 0;
    /** Exit status: a check or a seed failed (for {@code replay}: it failed again, with the line's digest). */
    static final int FAILED = 1;
    /** Exit status: bad usage, refused before anything ran. */
    static final int USAGE = 2;
    /** Exit status of {@code replay}: the line's digest is not the replay's, whether it passed or failed. */
    static final int DIFFERENT_RUN = 3;
    /** The system property that makes a command check its arguments and exit without running. */
    static final String CHECK_ARGUMENTS_PROPERTY = "lockstep.checkArguments";

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    /**
     * Runs one command.
     *
     * @param args the command and its arguments
     */
    public static void main(String[] args) {
        int status = commandLine().execute(args);
        System.out.flush();
        System.exit(status);
    }

    static CommandLine commandLine() {
        CommandLine line = new CommandLine(new Main());
        line.setCaseInsensitiveEnumValuesAllowed(true);
        // picocli's own converters take octal (--seeds 010 is 8), a leading '+' and the digits of every script.
        line.registerConverter(Integer.class, Decimal::parseInt);
        line.registerConverter(Integer.TYPE, Decimal::parseInt);
        line.registerConverter(Long.class, Decimal::parseLong);
        line.registerConverter(Long.TYPE, Decimal::parseLong);
        line.registerConverter(Path.class, Main::nonEmptyPath);
        return line;
    }

    /** A path option's value: an empty one would silently mean the current directory. */
    private static Path nonEmptyPath(String text) {
        if (text.isBlank()) {
            throw new CommandLine.TypeConversionException("an empty path ('" + text + "'); name a file or"
                    + " directory, . for this one");
        }
        return Path.of(text);
    }

    /** Whether this run only checks its arguments ({@value #CHECK_ARGUMENTS_PROPERTY}). */
    static boolean checkOnly() {
        return Boolean.getBoolean(CHECK_ARGUMENTS_PROPERTY);
    }

    /**
     * The version {@code --version} prints: the jar manifest's {@code Implementation-Version} and the commit the
     * {@code lockstep} script passes as the system property {@code lockstep.commit}.
     */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = Main.class.getPackage().getImplementationVersion();
            String commit = System.getProperty("lockstep.commit", "");
            return new String[] {"lockstep " + (version == null ? "(unpackaged build)" : version)
                    + (commit.isBlank() ? "" : " (commit " + commit + ")")};
        }
    }

    @Override
    public Integer call() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is needed: demo, explore, replay or"
                + " scoreboard");
    }

    /** Options shared by the commands that sweep seeds. */
    static final class SweepOptions {
        @Option(names = "--inject-bug", paramLabel = "NAME", defaultValue = "none", converter = BugConverter.class,
                completionCandidates = BugNames.class,
                description = "plant a durability bug in the service: ${COMPLETION-CANDIDATES}")
        InjectedBug bug;

        @Option(names = "--first-seed", paramLabel = "S", defaultValue = "1", description = "the first seed (${DEFAULT-VALUE})")
        long firstSeed;

        @Option(names = "--threads", paramLabel = "T", description = "simulators at once (default: one per core)")
        Integer threads;

        int threads(CommandLine line) {
            int value = threads == null ? Runtime.getRuntime().availableProcessors() : threads;
            if (value < 1) {
                throw new CommandLine.ParameterException(line, "--threads must be at least 1, was " + value);
            }
            return value;
        }
    }

    /** The command-line names of the injectable bugs, for the help text. */
    static final class BugNames implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return Arrays.stream(InjectedBug.values()).map(InjectedBug::cliName).iterator();
        }
    }

    /** Reads an {@link InjectedBug} by its command-line name. */
    static final class BugConverter implements CommandLine.ITypeConverter<InjectedBug> {
        @Override
        public InjectedBug convert(String value) {
            try {
                return InjectedBug.parse(value);
            } catch (IllegalArgumentException bad) {
                throw new CommandLine.TypeConversionException(bad.getMessage());
            }
        }
    }

    /** File descriptors the demo's processes use besides one per client connection: the JVM's, rings, files. */
    static final int FILES_BESIDES_CLIENTS = 100;

    /**
     * Refuses a load whose connections would not fit the open-file limit: each of the demo's two processes (the
     * load and the service) holds one descriptor per client, and past the limit connections fail and the service
     * cannot be killed on time (the JDK opens a file to check the pid before it signals).
     *
     * @param limit this process's limit ({@link #openFileLimit}), which the service inherits
     * @throws CommandLine.ParameterException naming the count, the limit and the ways out
     */
    static void enoughOpenFiles(CommandLine line, int clients, long limit) {
        long needed = (long) clients + FILES_BESIDES_CLIENTS;
        if (needed > limit) {
            throw new CommandLine.ParameterException(line, String.format(java.util.Locale.ROOT, "--clients %d needs"
                    + " about %,d open files in each of the demo's two processes, and this one may open %,d"
                    + " (ulimit -n): lower --clients, or raise the limit (ulimit -n %d)", clients, needed, limit,
                    needed));
        }
    }

    /** This process's open-file limit, or {@code Long.MAX_VALUE} where the JVM does not say. */
    static long openFileLimit() {
        if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
            long limit = unix.getMaxFileDescriptorCount();
            return limit > 0 ? limit : Long.MAX_VALUE;
        }
        return Long.MAX_VALUE;
    }

    /**
     * Refuses a sweep whose results would not fit this JVM's heap ({@link Explorer#seedsThatFit}), before anything
     * is allocated: every seed's verdict is kept until the end, and a sweep too long for the heap would otherwise
     * fail hours in, or at once making its list of seeds.
     *
     * @throws CommandLine.ParameterException naming the value and the way out
     */
    static void fitsTheHeap(CommandLine line, int seeds, Shard shard) {
        long fit = Explorer.seedsThatFit(Runtime.getRuntime().maxMemory());
        if (shard.size(seeds) > fit) {
            throw new CommandLine.ParameterException(line, String.format(java.util.Locale.ROOT, "--seeds %d%s is"
                    + " %,d seeds in one process, and this JVM's heap keeps the results of about %,d: cut the sweep"
                    + " with explore --shard K/N (each shard a process, on this machine or others) and join the"
                    + " reports with --merge, or give the JVM more heap (JAVA_TOOL_OPTIONS=-Xmx...)", seeds,
                    shard.count() == 1 ? "" : " --shard " + shard, shard.size(seeds), fit));
        }
    }

    @Command(name = "demo", mixinStandardHelpOptions = true,
            description = {"The demo key-value service: load on runtime-uring, an unclean stop (SIGKILL) and a checked"
                    + " restart, then simulated seeds with crashes, storage faults and partitions."})
    static final class Demo implements Callable<Integer> {
        @CommandLine.Spec
        private CommandLine.Model.CommandSpec spec;

        @CommandLine.Mixin
        private final SweepOptions sweep = new SweepOptions();

        @Option(names = "--quick", description = "all three parts, small: 3 s of load with 16 clients, 8 seeds"
                + " (what CI runs); explicit options still win")
        boolean quick;

        @Option(names = "--seeds", paramLabel = "N", description = "simulated seeds (default 200, quick 8)")
        Integer seeds;

        @Option(names = "--duration", paramLabel = "SECONDS", description = "seconds of load (default 10, quick 3)")
        Integer duration;

        @Option(names = "--clients", paramLabel = "N", description = "load clients (default 64, quick 16)")
        Integer clients;

        @Override
        public Integer call() throws Exception {
            CommandLine line = spec.commandLine();
            int seedCount = atLeast(line, "--seeds", seeds, quick ? 8 : 200, 0);
            seedsFit(line, sweep.firstSeed, seedCount);
            fitsTheHeap(line, seedCount, Shard.ALL);
            int seconds = atLeast(line, "--duration", duration, quick ? 3 : 10, 1);
            int clientCount = atLeast(line, "--clients", clients, quick ? 16 : 64, 1);
            enoughOpenFiles(line, clientCount, openFileLimit());
            int threads = sweep.threads(line);
            if (checkOnly()) {
                return PASSED;
            }
            return demo(System.out, sweep.bug, seedCount, seconds, clientCount, sweep.firstSeed, threads);
        }
    }

    @Command(name = "replay", mixinStandardHelpOptions = true,
            description = "Rerun one failed seed exactly, with a trace of its last events.",
            footer = {"", "Exit status: 0 the seed passed; 1 it failed; 2 bad usage; 3 the line carries a digest"
                    + " and the replay's is different: not the run that printed the line (the code or the simulator"
                    + " changed since). With the line's digest, 1 is an exact replay of the failure."})
    static final class Replay implements Callable<Integer> {
        @Parameters(arity = "1..*", paramLabel = "LINE", description = "what a failed seed printed after 'replay:'"
                + " (with --test: the replay text of a failure of your test)")
        List<String> words;

        @Option(names = "--trace", paramLabel = "N", defaultValue = "40", description = "events of any kind to show")
        int traceLines;

        @CommandLine.Spec
        private CommandLine.Model.CommandSpec spec;

        @CommandLine.Mixin
        private final TestSweepCommand.ReplayOptions userTest = new TestSweepCommand.ReplayOptions();

        @Override
        public Integer call() throws Exception {
            CommandLine line = spec.commandLine();
            if (userTest.asked()) {
                return TestSweepCommand.replay(line.getOut(), line, userTest, String.join(" ", words));
            }
            atLeast(line, "--trace", traceLines, traceLines, 0);
            Scenario.ReplayLine replayLine;
            try {
                replayLine = Scenario.ReplayLine.parse(String.join(" ", words));
            } catch (IllegalArgumentException bad) {
                throw new CommandLine.ParameterException(line, bad.getMessage());
            }
            return checkOnly() ? PASSED : replay(System.out, replayLine, traceLines);
        }
    }

    /** The demo's service in a child JVM, so that the parent can kill it; not for users. */
    @Command(name = "serve", hidden = true)
    static final class Serve implements Callable<Integer> {
        @Parameters(index = "0")
        Path directory;

        @Parameters(index = "1")
        int port;

        @Parameters(index = "2", converter = BugConverter.class)
        InjectedBug bug;

        @Override
        public Integer call() throws Exception {
            UringDemo.serve(directory, port, bug);
            return 0;
        }
    }

    /** Refuses a sweep whose last seed would be past {@link Long#MAX_VALUE} (it would wrap to negative seeds). */
    static void seedsFit(CommandLine line, long firstSeed, int seedCount) {
        if (seedCount > 0 && firstSeed > Long.MAX_VALUE - (seedCount - 1)) {
            throw new CommandLine.ParameterException(line, "--first-seed " + firstSeed + " with --seeds " + seedCount
                    + " goes past the largest seed, " + Long.MAX_VALUE);
        }
    }

    static int atLeast(CommandLine line, String name, Integer value, int fallback, int min) {
        int parsed = value == null ? fallback : value;
        if (parsed < min) {
            throw new CommandLine.ParameterException(line, name + " must be at least " + min + ", was " + parsed);
        }
        return parsed;
    }

    private static int demo(PrintStream out, InjectedBug bug, int seeds, int seconds, int clients, long firstSeed,
                            int threads) throws Exception {
        long start = System.nanoTime();
        int cores = Runtime.getRuntime().availableProcessors();
        out.println("Lockstep demo: one durable key-value service (log segments, CRC32C records, group commit,");
        out.println("torn-tail recovery, a binary protocol over TCP), written once against dev.lockstep, run on both");
        out.println("runtimes.");
        out.println();
        int half = Math.max(1, cores / 2);
        InjectedBug storeBug = bug.replication() ? InjectedBug.NONE : bug;
        InjectedBug replicationBug = bug.replication() ? bug : InjectedBug.NONE;
        UringDemo.Outcome uring = new UringDemo(out, new UringDemo.Settings(Duration.ofSeconds(seconds), clients,
                256, half, half, storeBug)).run();
        out.println();
        boolean simPassed = true;
        if (seeds > 0) {
            out.printf("[3/3] runtime-sim: the same service and load, %d seeds, %d simulator%s at once%n", seeds,
                    Math.min(threads, seeds), Math.min(threads, seeds) == 1 ? "" : "s");
            out.println("      each seed: 2 simulated hosts, 6 clients, swarm testing (the seed draws which faults are"
                    + " on: crashes,");
            out.println("      torn writes, partitions, resets, read/write/sync/metadata errors, a full disk, kernel"
                    + " quirks),");
            out.println("      every key checked after every restart");
            Explorer.Summary summary = sweep(out, new Explorer.Settings(seeds, firstSeed, "swarm", Workload.MIXED,
                    storeBug, threads, false));
            int clusterSeeds = Math.max(1, seeds / 4);
            out.println();
            out.printf("      then the replicated workload, %d seeds: 3 simulated nodes with their own disks and"
                    + " clocks,%n", clusterSeeds);
            out.println("      a Raft cluster, one node at a time crashed, killed, paused or its clock moved, partitions"
                    + " and resets");
            out.println("      as the seed draws; Raft's safety properties checked throughout, a leader and a commit"
                    + " due after the faults");
            Explorer.Summary cluster = sweep(out, new Explorer.Settings(clusterSeeds, firstSeed, "swarm",
                    Workload.REPLICATED, replicationBug, threads, false));
            simPassed = summary.failures().isEmpty() && cluster.failures().isEmpty();
        }
        out.println();
        out.printf("demo finished in %.0f s: runtime-uring %s, runtime-sim %s%n", (System.nanoTime() - start) / 1e9,
                uring.passed() ? "passed" : "FAILED", seeds == 0 ? "skipped" : simPassed ? "passed" : "FAILED");
        if (bug != InjectedBug.NONE) {
            out.println("(injected bug " + bug.cliName() + ": " + bug.description() + ")");
            if (bug.replication()) {
                out.println("it is in the replicated workload's Raft, which runs in the simulator: runtime-uring ran"
                        + " the correct key-value service.");
            } else if (uring.passed()) {
                out.println("runtime-uring did not catch it: a killed process loses nothing from the page cache;"
                        + " a power cut does, and only the simulator makes power cuts, torn writes and failed syncs"
                        + " on demand.");
            }
        }
        return uring.passed() && simPassed ? 0 : 1;
    }

    private static Explorer.Summary sweep(PrintStream out, Explorer.Settings settings) throws Exception {
        AtomicInteger done = new AtomicInteger();
        List<Scenario.Result> failed = Collections.synchronizedList(new ArrayList<>());
        Explorer.Summary summary;
        int total = settings.shard().seeds(settings.firstSeed(), settings.seeds()).length;
        Progress progress = new Progress(out, () -> done.get() / (double) Math.max(1, total),
                () -> String.format("%d/%d seeds  %d failed", done.get(), total, failed.size()));
        try (progress) {
            summary = Explorer.run(settings, done, failed::add);
        }
        Explorer.printSummary(out, summary, "      ", settings.workload());
        List<Scenario.Result> failures = summary.failures();
        for (Scenario.Result result : failures.subList(0, Math.min(10, failures.size()))) {
            Explorer.printFailure(out, result, "      ");
        }
        if (failures.size() > 10) {
            out.println("      ... and " + (failures.size() - 10) + " more failed seeds");
        }
        return summary;
    }

    static int explore(PrintStream out, Explorer.Settings settings, Path report) throws Exception {
        long first = settings.firstSeed();
        int mine = settings.shard().seeds(first, settings.seeds()).length;
        int threads = settings.threads();
        out.printf("exploring seeds %d..%d%s: faults %s, workload %s%s, %d simulator%s at once%n", first,
                first + settings.seeds() - 1, settings.shard().count() == 1 ? ""
                        : ", shard " + settings.shard() + " (" + mine + " seeds)",
                settings.profile() + (settings.workload().replicated()
                        ? " (of which this workload injects " + RaftScenario.injectedKinds() + ")" : ""),
                settings.workload().cliName(),
                settings.bug() == InjectedBug.NONE ? "" : ", injected bug " + settings.bug().cliName(),
                Math.max(1, Math.min(threads, mine)), Math.min(threads, mine) == 1 ? "" : "s");
        Explorer.Summary summary = sweep(out, settings);
        if (report != null) {
            Path written = SweepReport.write(report, SweepReport.of(settings, summary));
            out.println("report: " + written);
        }
        return summary.failures().isEmpty() ? 0 : 1;
    }

    static int mergeReports(PrintStream out, CommandLine line, List<Path> paths, Path report)
            throws Exception {
        SweepReport.Report merged;
        try {
            merged = SweepReport.merge(SweepReport.readAll(paths));
        } catch (IllegalArgumentException bad) {
            throw new CommandLine.ParameterException(line, "cannot merge: " + bad.getMessage());
        }
        out.println("merged " + SweepReport.describe(merged));
        for (SweepReport.Verdict failed : merged.failures()) {
            out.println("  seed " + failed.seed() + " FAILED: " + failed.failure().lines().findFirst().orElse(""));
            out.println("    replay: ./lockstep replay " + failed.replayLine());
        }
        if (report != null) {
            out.println("report: " + SweepReport.write(report, merged));
        }
        return merged.failures().isEmpty() ? 0 : 1;
    }

    static int replay(PrintStream out, Scenario.ReplayLine line, int traceLines) {
        Scenario.Spec spec = line.spec();
        out.println("replaying seed " + spec.seed() + ": faults " + spec.faults() + ", workload "
                + spec.workload().cliName() + ", bug " + spec.bug().cliName());
        out.println("  first run: " + Scenario.config(spec).replayLine());
        Scenario.Result result = Scenario.run(spec, traceLines);
        if (spec.workload().replicated()) {
            out.printf("  %d node restart(s) after %d crash(es) and kill(s), %.3f s simulated, %,d acknowledged"
                    + " commands%n", result.lifetimes() - 1, result.crashes(), result.simulatedNanos() / 1e9,
                    result.acknowledgedWrites());
        } else {
            out.printf("  %d simulator run(s), %d crash(es), %.3f s simulated, %,d acknowledged writes%n",
                    result.lifetimes(), result.crashes(), result.simulatedNanos() / 1e9, result.acknowledgedWrites());
        }
        out.println();
        out.println("last " + result.notable().size() + " notable events (faults, errors, restarts, checks; simulated"
                + " time since the seed's start):");
        for (String event : result.notable()) {
            out.println("  " + event);
        }
        out.println();
        out.println("last " + result.trace().size() + " events of any kind:");
        for (String event : result.trace()) {
            out.println("  " + event);
        }
        out.println();
        if (result.passed()) {
            out.println("result: passed");
        } else {
            out.println("result: FAILED");
            for (String problem : result.failure().lines().toList()) {
                out.println("  " + problem);
            }
        }
        String digest = result.digest();
        out.println("audit digest: " + digest);
        if (line.digest() != null) {
            if (line.sameRun(digest)) {
                out.println("  the same digest as the run that printed this line: an exact replay");
            } else {
                out.println("  DIFFERENT from the digest in the line (" + line.digest() + "): the code or the"
                        + " simulator changed since (exit status " + DIFFERENT_RUN + ")");
                return DIFFERENT_RUN;
            }
        }
        return result.passed() ? PASSED : FAILED;
    }

    static List<String> javaCommand(String... arguments) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        if (Main.class.desiredAssertionStatus()) {
            command.add("-ea"); // a test's child checks the invariants as its test JVM does; the command line's does not
        }
        command.add("--enable-native-access=ALL-UNNAMED");
        command.add("--add-opens");
        command.add("java.base/java.lang=ALL-UNNAMED");
        command.add("-XX:+UseSerialGC");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(Main.class.getName());
        command.addAll(List.of(arguments));
        return command;
    }
}
