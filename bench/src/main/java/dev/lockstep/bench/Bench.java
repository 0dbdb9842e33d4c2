package dev.lockstep.bench;

import static dev.lockstep.bench.BenchProcesses.command;
import static dev.lockstep.bench.BenchProcesses.fields;
import static dev.lockstep.bench.BenchProcesses.measurement;
import static dev.lockstep.bench.BenchProcesses.reader;
import static dev.lockstep.bench.BenchProcesses.resultOf;
import static dev.lockstep.bench.BenchProcesses.waitFor;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * {@code ./lockstep bench [--quick]}: every comparison of Lockstep with its references, side by side, in
 * interleaved rounds (every variant of every comparison once per round, A B C A B C ...), printed as Markdown
 * tables of medians over the rounds with each variant's ratio to Lockstep and its heap allocation per operation.
 *
 * <p>Every variant is a whole program of its own: a JVM running one {@link BenchPrograms} case, a C program
 * (liburing no-ops, the TCP echo client) that the {@code lockstep} script compiled, fio, or
 * {@link DirectReadBenchmark} for one engine. Every JVM this class starts gets the same heap ({@link #HEAP}),
 * touched as it is committed ({@link #PRETOUCH}); the servers of the Redis-protocol and idle-connection rows are
 * started by {@link RespBenchmark} and {@link IdleConnectionBenchmark} without the touch, as the idle rows measure
 * the memory a connection adds to a server's resident set. The TCP echo servers are all measured with the same C
 * client.
 * Allocation is what the measured JVM's threads allocated during its measured window divided by its operations
 * (the counter behind JMH's {@code gc.alloc.rate.norm}); the C NOP program allocates no Java heap (0), fio and
 * {@code DirectReadBenchmark} report none ({@code —}). CPU per operation is the CPU time of the measured
 * program's Java threads (not the JIT's or the collector's) in its window, or the C program's process CPU time,
 * divided by its operations; for the echo servers it is the server's. On a machine shared with other work it is
 * the steadier figure: wall-time rates there depend on how much of a core each program was given.
 *
 * <p>Usage: {@code Bench [--quick] [--rounds N]
 * [--only nop,warm-read,direct-read,append-sync,echo,echo-placement,sim,resp,idle] [--dir DIR] [--nop PATH]
 * [--echo-client PATH] [--fio PATH] [--sim-classpath CP] [--demo-classpath CP] [--lockstep PATH]
 * [--redis-server PATH] [--redis-benchmark PATH] [--out FILE]}; {@link RespBenchmark} has the Redis-protocol rows, {@link IdleConnectionBenchmark} the idle-connection rows. A reference
 * whose program is missing is left out of its table with a note naming what is missing. Timings are figures to
 * compare within one run, never pass/fail checks.
 *
 * <p>This class lists every comparison and its variants (one method per comparison: the benchmark's
 * specification, read as one), schedules the rounds and collects each program's figures; the command line is
 * {@link BenchOptions}'s, running a program and reading its figures {@link BenchProcesses}', the tables
 * {@link BenchTables}', and running one variant {@link BenchPrograms}'.
 */
public final class Bench {
    /** One measurement of one variant. {@code allocPerOp} is NaN where no Java heap is involved. */
    record Measurement(double opsPerSecond, double allocPerOp, double cpuMicrosPerOp, double p50Micros,
                       double p99Micros) {
    }

    /** A row of a table: a variant measured once per round. */
    static final class Variant {
        final String name;
        final Supplier<Measurement> run;
        final List<Measurement> rounds = new ArrayList<>();

        Variant(String name, Supplier<Measurement> run) {
            this.name = name;
            this.run = run;
        }
    }

    /** A table: variants compared with the first, which is Lockstep's. */
    record Comparison(String title, String unit, List<Variant> variants) {
    }

    private final boolean quick;
    private final int rounds;
    private final double warmup;
    private final double seconds;
    private final Path dir;
    private final Map<String, String> tools;
    private final List<String> notes = new ArrayList<>();
    private final String java;
    private final String classpath;

    private Bench(boolean quick, int rounds, Path dir, Map<String, String> tools) {
        this.quick = quick;
        this.rounds = rounds;
        // Lockstep's path (engine, fibers, FFM) needs seconds of JIT compilation before it runs compiled, longer on
        // a shared machine whose compiler threads wait for a core: shorter warm-ups measured the interpreter.
        this.warmup = quick ? 2 : 5;
        this.seconds = quick ? 1.5 : 5;
        this.dir = dir;
        this.tools = tools;
        this.java = ProcessHandle.current().info().command().orElse("java");
        this.classpath = System.getProperty("java.class.path");
    }

    public static void main(String[] args) throws Exception {
        BenchOptions options;
        try {
            options = BenchOptions.parse(args);
        } catch (IllegalArgumentException bad) {
            System.err.println("lockstep bench: " + bad.getMessage());
            System.exit(2);
            return;
        }
        if (Boolean.getBoolean("lockstep.checkArguments")) {
            return; // the lockstep script checks the arguments before it installs the tools they compare with
        }
        Files.createDirectories(options.dir());
        Bench bench = new Bench(options.quick(), options.rounds(), options.dir().toAbsolutePath(), options.tools());
        String report = bench.run(options.only());
        System.out.println(report);
        Path out = options.out();
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, report);
        System.out.println("(also written to " + out + ")");
    }

    private String run(Set<String> only) throws Exception {
        List<Comparison> comparisons = new ArrayList<>();
        if (only.contains("nop")) {
            comparisons.addAll(nop());
        }
        if (only.contains("warm-read")) {
            comparisons.addAll(warmReads());
        }
        if (only.contains("direct-read")) {
            comparisons.addAll(directReads());
        }
        if (only.contains("append-sync")) {
            comparisons.addAll(appendSync());
        }
        RespBenchmark resp = only.contains("resp") ? resp() : null;
        try {
            if (resp != null) {
                comparisons.addAll(resp.comparisons());
            }
            return run(only, comparisons);
        } finally {
            if (resp != null) {
                resp.close();
            }
        }
    }

    private RespBenchmark resp() {
        String lockstep = tool("lockstep", "the lockstep script, to start the Redis-protocol service");
        String server = tool("redis-server", "redis-server (Debian: apt-get install redis-server)");
        String client = tool("redis-benchmark", "redis-benchmark (Debian: apt-get install redis-tools)");
        return lockstep == null || server == null || client == null ? null
                : new RespBenchmark(dir, lockstep, server, client, quick);
    }

    private String run(Set<String> only, List<Comparison> comparisons) throws Exception {
        List<EchoRound> echo = new ArrayList<>(only.contains("echo") ? echo() : List.of());
        List<EchoRound> placement = only.contains("echo-placement") ? echoPlacement() : List.of();
        echo.addAll(placement);
        for (int round = 1; round <= rounds; round++) {
            System.err.printf(Locale.ROOT, "round %d of %d%n", round, rounds);
            for (Comparison comparison : comparisons) {
                for (Variant variant : comparison.variants) {
                    measure(comparison, variant);
                }
            }
            for (EchoRound server : echo) {
                server.run();
            }
        }
        StringBuilder report = new StringBuilder();
        report.append(machine()).append('\n');
        for (Comparison comparison : comparisons) {
            report.append(BenchTables.table(comparison, rounds)).append('\n');
        }
        List<EchoRound> servers = new ArrayList<>(echo);
        servers.removeAll(placement);
        if (!servers.isEmpty()) {
            for (Comparison comparison : echoComparisons(servers)) {
                report.append(BenchTables.table(comparison, rounds)).append('\n');
            }
        }
        if (!placement.isEmpty()) {
            for (Comparison comparison : placementComparisons(placement)) {
                report.append(BenchTables.table(comparison, rounds)).append('\n');
            }
        }
        if (only.contains("sim")) {
            report.append(sim()).append('\n');
        }
        if (only.contains("idle")) {
            // IdleConnectionBenchmark has the servers. 10,000 connections in quick mode too: a smaller burst
            // rarely fills the listen queue, whose overflows are most of a 10,000-connection burst's wall time.
            report.append(IdleConnectionBenchmark.report(java, classpath, IdleConnectionBenchmark.SERVERS,
                    IDLE_CONNECTIONS, rounds, notes)).append('\n');
        }
        for (String note : notes) {
            report.append("- ").append(note).append('\n');
        }
        return report.toString();
    }

    /** Runs one variant once; a failed round is noted and the variant is tried again in the next round. */
    private void measure(Comparison comparison, Variant variant) {
        System.err.printf(Locale.ROOT, "  %s: %s%n", comparison.title, variant.name);
        try {
            variant.rounds.add(variant.run.get());
        } catch (RuntimeException failed) {
            notes.add(comparison.title + ", " + variant.name + ": a round failed: " + failed.getMessage());
        }
    }

    // ---- the comparisons ----

    private List<Comparison> nop() {
        List<Comparison> comparisons = new ArrayList<>();
        for (int depth : new int[] {1, 32}) {
            List<Variant> variants = new ArrayList<>();
            variants.add(new Variant(depth == 1 ? "Lockstep (1 worker, engine ring path)"
                    : "Lockstep (1 worker, engine ring path), " + depth + " fibers with 1 each", () ->
                    javaProgram("nop", Integer.toString(depth), number(warmup), number(seconds))));
            if (depth > 1) {
                variants.add(new Variant("Lockstep (1 worker, engine ring path), 1 fiber with " + depth, () ->
                        javaProgram("nop-one-fiber", Integer.toString(depth), number(warmup), number(seconds))));
            }
            String nop = tool("nop", "the liburing NOP program (needs a C compiler and liburing-dev)");
            if (nop != null) {
                variants.add(new Variant("liburing C", () ->
                        resultOf(command(nop, Integer.toString(depth), number(warmup), number(seconds)))));
            }
            comparisons.add(new Comparison("NOP round trips, " + depth + " in flight", "ops/s", variants));
        }
        return comparisons;
    }

    private List<Comparison> warmReads() {
        int fileMib = quick ? 32 : 128;
        List<Comparison> comparisons = new ArrayList<>();
        for (int parallel : new int[] {1, 32}) {
            List<Variant> variants = new ArrayList<>();
            variants.add(new Variant("Lockstep Blob.readAt, " + fibers(parallel) + " on 1 worker", () ->
                    javaProgram("warm-read", "lockstep", Integer.toString(parallel), Integer.toString(fileMib),
                            dir.toString(), number(warmup), number(seconds))));
            variants.add(new Variant("Lockstep Blob.readFully into an IoBuffer, " + fibers(parallel) + " on 1 worker", () ->
                    javaProgram("warm-read", "lockstep-buffer", Integer.toString(parallel), Integer.toString(fileMib),
                            dir.toString(), number(warmup), number(seconds))));
            variants.add(new Variant("FileChannel.read, " + (parallel == 1 ? "1 platform thread"
                    : parallel + " virtual threads"), () ->
                    javaProgram("warm-read", "filechannel", Integer.toString(parallel), Integer.toString(fileMib),
                            dir.toString(), number(warmup), number(seconds))));
            comparisons.add(new Comparison("4 KiB random reads from the page cache (" + fileMib + " MiB file), "
                    + parallel + " at a time", "reads/s", variants));
        }
        return comparisons;
    }

    private List<Comparison> directReads() {
        int fileMib = quick ? 256 : 1024;
        int measured = (int) Math.max(1, Math.round(seconds));
        int warm = (int) Math.max(1, Math.round(warmup));
        String fio = tool("fio", "fio");
        List<Comparison> comparisons = new ArrayList<>();
        for (int depth : new int[] {1, 32}) {
            List<Variant> variants = new ArrayList<>();
            for (String engine : fio == null ? List.of("lockstep", "lockstep-api", "filechannel")
                    : List.of("lockstep", "lockstep-api", "fio", "filechannel")) {
                String name = switch (engine) {
                    case "lockstep" -> "Lockstep (1 worker, engine ring path)";
                    case "lockstep-api" -> "Lockstep Blob.readFully, OpenOptions.DIRECT (1 worker)";
                    case "fio" -> "fio io_uring";
                    default -> "FileChannel DIRECT, " + (depth == 1 ? "1 thread" : depth + " threads");
                };
                variants.add(new Variant(name, () -> directRead(engine, depth, fileMib, measured, warm, fio)));
            }
            comparisons.add(new Comparison("4 KiB O_DIRECT random reads (" + fileMib + " MiB file), queue depth "
                    + depth, "IOPS", variants));
        }
        return comparisons;
    }

    private Measurement directRead(String engine, int depth, int fileMib, int measured, int warm, String fio) {
        List<String> command = new ArrayList<>(jvm(DirectReadBenchmark.class.getName()));
        command.addAll(List.of("--file", dir.resolve("randread-" + fileMib + "m.dat").toString(), "--size-mib",
                Integer.toString(fileMib), "--seconds", Integer.toString(measured), "--warmup-seconds",
                Integer.toString(warm), "--engines", engine, "--depths", Integer.toString(depth)));
        if (fio != null) {
            command.addAll(List.of("--fio", fio));
        }
        for (String line : command(command.toArray(String[]::new))) {
            // | engine | queue depth | IOPS | p50 latency (µs) | p99 latency (µs) | reads |
            if (line.startsWith("| ") && !line.startsWith("| engine")) {
                String[] cells = line.split("\\|");
                return new Measurement(parseNumber(cells[3]), Double.NaN, Double.NaN, parseNumber(cells[4]),
                        parseNumber(cells[5]));
            }
        }
        throw new IllegalStateException("DirectReadBenchmark printed no result row");
    }

    private List<Comparison> appendSync() {
        String fio = tool("fio", "fio");
        List<Comparison> comparisons = new ArrayList<>();
        for (int writers : new int[] {1, 64}) {
            List<Variant> variants = new ArrayList<>();
            variants.add(new Variant("Lockstep writeAt + sync, " + fibers(writers) + " on 1 worker, 1 blob", () ->
                    javaProgram("append-sync", "lockstep", Integer.toString(writers), dir.toString(),
                            number(warmup), number(seconds))));
            variants.add(new Variant("Lockstep writeAt with WriteOptions.SYNC, " + fibers(writers)
                    + " on 1 worker, 1 blob", () -> javaProgram("append-sync", "lockstep-sync-write",
                    Integer.toString(writers), dir.toString(), number(warmup), number(seconds))));
            variants.add(new Variant("FileChannel write + force(false), " + writers
                    + (writers == 1 ? " thread" : " threads") + ", 1 file", () ->
                    javaProgram("append-sync", "filechannel", Integer.toString(writers), dir.toString(),
                            number(warmup), number(seconds))));
            if (fio != null) {
                variants.add(new Variant("fio psync write + fdatasync, " + writers
                        + (writers == 1 ? " job" : " jobs") + ", 1 file", () -> fioAppend(fio, writers)));
            }
            comparisons.add(new Comparison("4 KiB appends acknowledged after a sync, " + writers
                    + (writers == 1 ? " writer" : " writers"), "acks/s", variants));
        }
        return comparisons;
    }

    private Measurement fioAppend(String fio, int writers) {
        Path file = dir.resolve("fio-log.dat");
        List<String> output = command(fio, "--name=log", "--filename=" + file, "--rw=write", "--bs=4k",
                "--ioengine=psync", "--fdatasync=1", "--numjobs=" + writers, "--thread", "--size=64m",
                "--time_based", "--runtime=" + Math.max(1, Math.round(seconds)),
                "--ramp_time=" + Math.max(1, Math.round(warmup)), "--group_reporting", "--output-format=json");
        String json = String.join("\n", output);
        JsonNode write = new ObjectMapper().readTree(json.substring(json.indexOf('{'))).at("/jobs/0/write");
        if (write.isMissingNode()) {
            throw new IllegalStateException("fio's JSON has no /jobs/0/write");
        }
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // A leftover file is reused by the next run.
        }
        return new Measurement(write.at("/iops").asDouble(), Double.NaN, Double.NaN,
                write.at("/clat_ns/percentile/50.000000").asDouble() / 1000.0,
                write.at("/clat_ns/percentile/99.000000").asDouble() / 1000.0);
    }

    // ---- TCP echo: one server process per (server, size) per round, the same C client for each ----

    private static final int[] ECHO_SIZES = {64, 4096};
    private static final int[] ECHO_CONNECTIONS = {1, 64};
    private static final List<String> ECHO_SERVERS = List.of("lockstep", "lockstep-buffer",
            "netty-io_uring", "netty-epoll", "virtual-threads");

    /** The servers of one message size, each measured at every connection count per round. */
    final class EchoRound {
        final String server;
        final int size;
        final Map<Integer, Variant> byConnections = new LinkedHashMap<>();

        EchoRound(String server, int size) {
            this.server = server;
            this.size = size;
            for (int connections : ECHO_CONNECTIONS) {
                byConnections.put(connections, new Variant(echoName(server), () -> {
                    throw new UnsupportedOperationException("measured by run()");
                }));
            }
        }

        void run() {
            System.err.printf(Locale.ROOT, "  TCP echo %d B: %s%n", size, server);
            Process process;
            try {
                process = new ProcessBuilder(jvm(BenchPrograms.class.getName(), "echo-server", server,
                        Integer.toString(size))).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            } catch (IOException failed) {
                throw new IllegalStateException("could not start the " + server + " echo server", failed);
            }
            try (BufferedReader from = reader(process); PrintWriter to = new PrintWriter(process.outputWriter())) {
                String ready = from.readLine();
                if (ready == null || !ready.startsWith("READY ")) {
                    throw new IllegalStateException(server + " echo server said " + ready);
                }
                String port = ready.substring("READY ".length());
                for (Map.Entry<Integer, Variant> entry : byConnections.entrySet()) {
                    Variant variant = entry.getValue();
                    try {
                        variant.rounds.add(echoRun(port, entry.getKey(), from, to));
                    } catch (RuntimeException failed) {
                        notes.add("TCP echo " + size + " B, " + entry.getKey() + " connections, " + server
                                + ": a round failed: " + failed.getMessage());
                    }
                }
            } catch (IOException failed) {
                throw new IllegalStateException(server + " echo server", failed);
            } finally {
                process.destroy();
                waitFor(process);
            }
        }

        private Measurement echoRun(String port, int connections, BufferedReader from, PrintWriter to)
                throws IOException {
            String client = tools.get("echo-client");
            Process process = new ProcessBuilder(client, "127.0.0.1", port, Integer.toString(connections),
                    Integer.toString(size), number(warmup), number(seconds))
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            long[] before = null;
            Map<String, String> result = null;
            try (BufferedReader clientOut = reader(process)) {
                String line;
                while ((line = clientOut.readLine()) != null) {
                    if (line.equals("MEASURING")) {
                        before = serverCounters(from, to);
                    } else if (line.startsWith("RESULT ") && before != null) {
                        long[] after = serverCounters(from, to);
                        result = fields(line);
                        result.put("alloc", Long.toString(after[0] - before[0]));
                        result.put("cpu", Long.toString(after[1] - before[1]));
                    }
                }
            }
            if (waitFor(process) != 0 || result == null) {
                throw new IllegalStateException("the echo client failed against " + server + " (exit "
                        + process.exitValue() + ")");
            }
            return measurement(result);
        }
    }

    /** The echo server's heap bytes allocated and CPU nanoseconds used so far. */
    private static long[] serverCounters(BufferedReader from, PrintWriter to) throws IOException {
        to.println("alloc");
        to.flush();
        String answer = from.readLine();
        if (answer == null || !answer.startsWith("ALLOC ")) {
            throw new IllegalStateException("the echo server answered " + answer);
        }
        String[] counters = answer.substring("ALLOC ".length()).split(" ");
        return new long[] {Long.parseLong(counters[0]), Long.parseLong(counters[1])};
    }

    private static String echoName(String server) {
        return switch (server) {
            case "lockstep" -> "Lockstep (1 worker)";
            case "lockstep-buffer" -> "Lockstep recvFully / sendFully an IoBuffer (1 worker)";
            case "lockstep-spread" -> "Lockstep, a worker per CPU, default placement (connections spread)";
            case "lockstep-worker0" -> "Lockstep, a worker per CPU, every connection on worker 0 (spawnOn(0))";
            case "netty-io_uring-spread" -> "Netty io_uring, an event loop per CPU (channels spread round-robin)";
            case "netty-io_uring" -> "Netty io_uring (1 event loop, every channel on it)";
            case "netty-epoll" -> "Netty epoll (1 event loop)";
            default -> "blocking sockets on virtual threads";
        };
    }

    private List<EchoRound> echo() {
        if (tool("echo-client", "the C echo client (needs a C compiler)") == null) {
            return List.of();
        }
        List<EchoRound> servers = new ArrayList<>();
        for (int size : ECHO_SIZES) {
            for (String server : ECHO_SERVERS) {
                servers.add(new EchoRound(server, size));
            }
        }
        return servers;
    }

    /**
     * The default placement's effect: one runner with a worker per CPU whose root task accepts and spawns a task
     * per connection, which the default placement spreads round-robin, against the same runner placing every
     * connection on worker 0 with {@code spawnOn(0)}. Netty's io_uring transport with an event loop per CPU
     * (channels spread round-robin) and with one event loop (every channel on it, no other loop) tells what
     * spreading costs on the machine apart from what Lockstep's placement costs.
     */
    private List<EchoRound> echoPlacement() {
        if (tool("echo-client", "the C echo client (needs a C compiler)") == null) {
            return List.of();
        }
        List<EchoRound> servers = new ArrayList<>();
        for (int size : ECHO_SIZES) {
            servers.add(new EchoRound("lockstep-spread", size));
            servers.add(new EchoRound("lockstep-worker0", size));
            servers.add(new EchoRound("netty-io_uring-spread", size));
            servers.add(new EchoRound("netty-io_uring", size));
        }
        return servers;
    }

    private static List<Comparison> placementComparisons(List<EchoRound> servers) {
        List<Comparison> comparisons = new ArrayList<>();
        for (int size : ECHO_SIZES) {
            List<Variant> variants = new ArrayList<>();
            for (EchoRound server : servers) {
                if (server.size == size) {
                    variants.add(server.byConnections.get(64));
                }
            }
            comparisons.add(new Comparison("TCP echo placement, " + size + " B messages, 64 connections, "
                    + Runtime.getRuntime().availableProcessors() + " CPUs: spread over a worker or event loop per CPU,"
                    + " or all on one (one C client, epoll)", "messages/s", variants));
        }
        return comparisons;
    }

    private static List<Comparison> echoComparisons(List<EchoRound> servers) {
        List<Comparison> comparisons = new ArrayList<>();
        for (int size : ECHO_SIZES) {
            for (int connections : ECHO_CONNECTIONS) {
                List<Variant> variants = new ArrayList<>();
                for (EchoRound server : servers) {
                    if (server.size == size) {
                        variants.add(server.byConnections.get(connections));
                    }
                }
                comparisons.add(new Comparison("TCP echo, " + size + " B messages, " + connections
                        + (connections == 1 ? " connection" : " connections") + " (one C client, epoll)",
                        "messages/s", variants));
            }
        }
        return comparisons;
    }

    // ---- the simulator ----

    private String sim() {
        String simClasspath = tool("sim-classpath", "runtime-sim's test classes");
        String demoClasspath = tool("demo-classpath", "the demo's test classes");
        return new SimulatorBench(java, quick, rounds, notes).run(demoClasspath, simClasspath);
    }

    // ---- running programs ----

    /**
     * The heap every measured JVM gets, whatever it runs. Without it the JVM sizes its heap from the machine's
     * memory (a quarter of it), and the {@code byte[]} rows, which allocate a fresh 4 KiB array per read, then
     * measure the machine: a young generation of hundreds of MiB means every new array is memory the caches no
     * longer hold, and on a 24 GiB machine {@code Blob.readAt} ran at about 0.7 of its rate with a 1 GiB heap
     * (docs/archive/benchmarks-history.md, "The bench's heap"). One size for every Java variant keeps runs
     * comparable between machines.
     */
    static final String HEAP = "-Xmx1g";

    /**
     * Every measured JVM touches its heap's memory when it commits it, at start-up and when a collection grows the
     * heap, on the collector's threads. Without it the first use of each young region is a page fault, the
     * kernel's zeroing of that memory, on the thread that allocates: a row that allocates per operation (the
     * {@code byte[]} reads, 4 KiB each) then measures, after a short warm-up, mostly the heap's first touch
     * (BENCHMARKS.md, "Warm reads").
     */
    static final String PRETOUCH = "-XX:+AlwaysPreTouch";

    /** Idle connections each server holds in the idle-connection rows. */
    static final int IDLE_CONNECTIONS = 10_000;

    private List<String> jvm(String mainClass, String... args) {
        List<String> command = new ArrayList<>(List.of(java, HEAP, PRETOUCH, "--enable-native-access=ALL-UNNAMED",
                "--add-opens", "java.base/java.lang=ALL-UNNAMED", "-cp", classpath, mainClass));
        command.addAll(Arrays.asList(args));
        return command;
    }

    private Measurement javaProgram(String... args) {
        return resultOf(command(jvm(BenchPrograms.class.getName(), args).toArray(String[]::new)));
    }

    private String tool(String name, String what) {
        String path = tools.get(name);
        if (path == null || path.isEmpty()) {
            String note = "left out: " + what + " (missing; `./lockstep bench` installs or builds it where it can)";
            if (!notes.contains(note)) {
                notes.add(note);
            }
            return null;
        }
        return path;
    }

    // ---- the report ----

    private String machine() throws IOException {
        String cpu = "unknown CPU";
        for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
            if (line.startsWith("model name")) {
                cpu = line.substring(line.indexOf(':') + 1).trim();
                break;
            }
        }
        String load = Files.readString(Path.of("/proc/loadavg")).trim();
        return String.format(Locale.ROOT, "Machine: %d CPUs (%s), Linux %s, Java %s; load average at the end %s; "
                        + "%s, %d rounds, each run %.1f s measured after %.1f s of warm-up; data in %s (%s); %s%n",
                Runtime.getRuntime().availableProcessors(), cpu, System.getProperty("os.version"),
                System.getProperty("java.runtime.version"), load, quick ? "--quick" : "full", rounds, seconds, warmup,
                Path.of("").toAbsolutePath().relativize(dir.toAbsolutePath()), Files.getFileStore(dir).type(),
                Instant.now());
    }

    private static String number(double value) {
        return String.format(Locale.ROOT, "%.3f", value);
    }

    private static double parseNumber(String cell) {
        return Double.parseDouble(cell.trim().replace(",", ""));
    }

    private static String fibers(int count) {
        return count == 1 ? "1 fiber" : count + " fibers";
    }
}
