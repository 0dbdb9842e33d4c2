package dev.lockstep.demo;

import dev.lockstep.demo.kv.InjectedBug;
import dev.lockstep.testing.FaultConfig;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The Java side of the {@code lockstep} command line: {@code demo}, {@code explore} and {@code replay}, and the
 * internal command that runs in a child JVM ({@code serve}, the demo's service). Exit status: 0 when everything
 * passed, 1 when a check or a seed failed, 2 for bad usage.
 */
public final class Main {
    private static final String USAGE = """
            usage:
              demo    [--inject-bug NAME] [--seeds N] [--duration SECONDS] [--clients N]
              explore [--seeds N] [--faults PROFILE] [--workload NAME] [--inject-bug NAME] [--first-seed S] [--threads T]
              replay  LINE [--trace N]

              PROFILE: swarm (each seed draws its fault kinds; the default), none, all, or kinds joined by '+':
                       %s
              NAME (workload): %s
              NAME (bug): %s
            """;

    private Main() {
    }

    /**
     * Runs one command.
     *
     * @param args the command and its arguments
     * @throws Exception on an unexpected failure
     */
    public static void main(String[] args) throws Exception {
        PrintStream out = System.out;
        if (args.length == 0) {
            usage(null);
        }
        int status;
        try {
            status = switch (args[0]) {
                case "demo" -> demo(out, options(args, "--inject-bug", "--seeds", "--duration", "--clients",
                        "--first-seed", "--threads"));
                case "explore" -> explore(out, options(args, "--seeds", "--faults", "--workload", "--inject-bug",
                        "--first-seed", "--threads"));
                case "replay" -> replay(out, args);
                case "serve" -> {
                    UringDemo.serve(Path.of(args[1]), Integer.parseInt(args[2]), InjectedBug.parse(args[3]));
                    yield 0;
                }
                default -> usage("unknown command '" + args[0] + "'");
            };
        } catch (IllegalArgumentException bad) {
            status = usage(bad.getMessage());
        }
        System.out.flush();
        System.exit(status);
    }

    private static int usage(String problem) {
        if (problem != null) {
            System.err.println("lockstep: " + problem);
        }
        StringBuilder faults = new StringBuilder();
        for (dev.lockstep.testing.Fault fault : dev.lockstep.testing.Fault.values()) {
            faults.append(faults.isEmpty() ? "" : ", ").append(fault.cliName());
        }
        StringBuilder workloads = new StringBuilder();
        for (Workload workload : Workload.values()) {
            workloads.append(workloads.isEmpty() ? "" : ", ").append(workload.cliName());
        }
        System.err.print(USAGE.formatted(faults, workloads, InjectedBug.names()));
        System.exit(2);
        return 2;
    }

    private static Map<String, String> options(String[] args, String... known) {
        Map<String, String> options = new LinkedHashMap<>();
        List<String> allowed = List.of(known);
        for (int i = 1; i < args.length; i++) {
            String name = args[i];
            String value;
            int eq = name.indexOf('=');
            if (eq > 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            } else {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("option " + name + " needs a value");
                }
                value = args[++i];
            }
            if (!allowed.contains(name)) {
                throw new IllegalArgumentException("unknown option " + name + " for " + args[0]);
            }
            options.put(name, value);
        }
        return options;
    }

    private static int intOption(Map<String, String> options, String name, int fallback, int min) {
        String value = options.get(name);
        if (value == null) {
            return fallback;
        }
        int parsed;
        try {
            parsed = Integer.parseInt(value);
        } catch (NumberFormatException bad) {
            throw new IllegalArgumentException(name + " needs a number, was '" + value + "'");
        }
        if (parsed < min) {
            throw new IllegalArgumentException(name + " must be at least " + min + ", was " + parsed);
        }
        return parsed;
    }

    private static int demo(PrintStream out, Map<String, String> options) throws Exception {
        long start = System.nanoTime();
        InjectedBug bug = InjectedBug.parse(options.getOrDefault("--inject-bug", "none"));
        int seeds = intOption(options, "--seeds", 200, 0);
        int seconds = intOption(options, "--duration", 10, 1);
        int clients = intOption(options, "--clients", 64, 1);
        int cores = Runtime.getRuntime().availableProcessors();
        int threads = intOption(options, "--threads", cores, 1);
        out.println("Lockstep demo: one durable key-value service (log segments, CRC32C records, group commit,");
        out.println("torn-tail recovery, a binary protocol over TCP), written once against dev.lockstep, run on both");
        out.println("runtimes.");
        out.println();
        int half = Math.max(1, cores / 2);
        UringDemo.Outcome uring = new UringDemo(out, new UringDemo.Settings(Duration.ofSeconds(seconds), clients,
                256, half, half, bug)).run();
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
            Explorer.Summary summary = sweep(out, new Explorer.Settings(seeds,
                    Long.parseLong(options.getOrDefault("--first-seed", "1")), "swarm", Workload.MIXED, bug, threads,
                    false));
            simPassed = summary.failures().isEmpty();
        }
        out.println();
        out.printf("demo finished in %.0f s: runtime-uring %s, runtime-sim %s%n", (System.nanoTime() - start) / 1e9,
                uring.passed() ? "passed" : "FAILED", seeds == 0 ? "skipped" : simPassed ? "passed" : "FAILED");
        if (bug != InjectedBug.NONE) {
            out.println("(injected bug " + bug.cliName() + ": " + bug.description() + ")");
            if (uring.passed()) {
                out.println("runtime-uring did not catch it: a killed process loses nothing from the page cache;"
                        + " a power cut does, and only the simulator makes power cuts, torn writes and failed syncs"
                        + " on demand.");
            }
        }
        return uring.passed() && simPassed ? 0 : 1;
    }

    private static Explorer.Summary sweep(PrintStream out, Explorer.Settings settings) throws Exception {
        AtomicInteger done = new AtomicInteger();
        List<Scenario.Result> failed = java.util.Collections.synchronizedList(new ArrayList<>());
        Explorer.Summary summary;
        Progress progress = new Progress(out, () -> done.get() / (double) settings.seeds(),
                () -> String.format("%d/%d seeds  %d failed", done.get(), settings.seeds(), failed.size()));
        try (progress) {
            summary = Explorer.run(settings, done, failed::add);
        }
        Explorer.printSummary(out, summary, "      ");
        List<Scenario.Result> failures = summary.failures();
        for (Scenario.Result result : failures.subList(0, Math.min(10, failures.size()))) {
            Explorer.printFailure(out, result, "      ");
        }
        if (failures.size() > 10) {
            out.println("      ... and " + (failures.size() - 10) + " more failed seeds");
        }
        return summary;
    }

    private static int explore(PrintStream out, Map<String, String> options) throws Exception {
        int seeds = intOption(options, "--seeds", 100, 1);
        String profile = options.getOrDefault("--faults", "swarm");
        Workload workload = Workload.parse(options.getOrDefault("--workload", "mixed"));
        InjectedBug bug = InjectedBug.parse(options.getOrDefault("--inject-bug", "none"));
        long first;
        try {
            first = Long.parseLong(options.getOrDefault("--first-seed", "1"));
        } catch (NumberFormatException bad) {
            throw new IllegalArgumentException("--first-seed needs a number, was '" + options.get("--first-seed")
                    + "'");
        }
        int threads = intOption(options, "--threads", Runtime.getRuntime().availableProcessors(), 1);
        if (!profile.startsWith("swarm")) {
            FaultConfig.parse(profile);
        }
        out.printf("exploring seeds %d..%d: faults %s, workload %s%s, %d simulator%s at once%n", first,
                first + seeds - 1, profile, workload.cliName(),
                bug == InjectedBug.NONE ? "" : ", injected bug " + bug.cliName(), Math.min(threads, seeds),
                Math.min(threads, seeds) == 1 ? "" : "s");
        Explorer.Summary summary = sweep(out, new Explorer.Settings(seeds, first, profile, workload, bug, threads,
                false));
        return summary.failures().isEmpty() ? 0 : 1;
    }

    private static int replay(PrintStream out, String[] args) {
        if (args.length < 2) {
            throw new IllegalArgumentException("replay needs the line a failure printed");
        }
        List<String> words = new ArrayList<>(List.of(args).subList(1, args.length));
        int traceLines = 40;
        int at = words.indexOf("--trace");
        if (at >= 0) {
            if (at + 1 >= words.size()) {
                throw new IllegalArgumentException("--trace needs a number");
            }
            traceLines = Integer.parseInt(words.get(at + 1));
            words.subList(at, at + 2).clear();
        }
        String line = String.join(" ", words);
        Scenario.Spec spec = Scenario.Spec.parse(line);
        String expectedDigest = null;
        for (String part : line.split(":")) {
            if (part.startsWith("digest=")) {
                expectedDigest = part.substring(7);
            }
        }
        out.println("replaying seed " + spec.seed() + ": faults " + spec.faults() + ", workload "
                + spec.workload().cliName() + ", bug " + spec.bug().cliName());
        out.println("  first run: " + Scenario.config(spec).replayLine());
        Scenario.Result result = Scenario.run(spec, traceLines);
        out.printf("  %d simulator run(s), %d crash(es), %.3f s simulated, %,d acknowledged writes%n",
                result.lifetimes(), result.crashes(), result.simulatedNanos() / 1e9, result.acknowledgedWrites());
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
        if (expectedDigest != null) {
            out.println(digest.startsWith(expectedDigest) ? "  the same digest as the run that printed this line:"
                    + " an exact replay" : "  DIFFERENT from the digest in the line (" + expectedDigest
                    + "): the code or the simulator changed since");
        }
        return result.passed() ? 0 : 1;
    }

    static List<String> javaCommand(String... arguments) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
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
