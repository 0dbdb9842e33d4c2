package dev.lockstep.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The demo's durable store behind the Redis protocol ({@code ./lockstep resp}, one io_uring worker) against
 * {@code redis-server} with {@code appendonly yes}, both driven by {@code redis-benchmark} with its own figures:
 * {@code SET} requests per second, p50 and p99 latency, for {@code appendfsync always} (Lockstep: durable before the
 * reply) and {@code everysec} (Lockstep: synced once a second), 1 and 50 connections, with and without 16
 * pipelined requests, 64-byte and 4 KiB values. CPU per request is the server process's CPU time over the run
 * divided by its requests.
 *
 * <p>The four servers (two durabilities, two servers) start at their first row, each with its own data directory
 * under the benchmark's, are warmed up with a pipelined and a single-connection run that is not measured, and stop
 * after the last round; in each round every row runs once against each server,
 * alternating which goes first. Their data directories are on the benchmark's disk: on tmpfs an {@code fsync} does
 * nothing, and the rows would measure nothing durable.
 */
final class RespBenchmark implements AutoCloseable {
    private static final Duration READY_TIMEOUT = Duration.ofMinutes(5);

    /** One row: connections, pipelined requests per connection, value size. */
    private record Row(int connections, int pipeline, int valueBytes) {
        String title(String fsync) {
            return "Redis protocol SET, appendfsync " + fsync + ": " + connections
                    + (connections == 1 ? " connection" : " connections")
                    + (pipeline == 1 ? ", no pipelining" : ", " + pipeline + " pipelined") + ", "
                    + (valueBytes >= 1024 ? valueBytes / 1024 + " KiB" : valueBytes + " B") + " values";
        }
    }

    private final Path dir;
    private final String lockstep;
    private final String redisServer;
    private final String redisBenchmark;
    private final boolean quick;
    private final Map<String, Process> servers = new LinkedHashMap<>();
    private final Map<String, Integer> ports = new LinkedHashMap<>();
    /** Each started server's data directory (hundreds of MiB of append-only log by the end of a run). */
    private final List<Path> dataDirs = new ArrayList<>();
    private int turn;

    RespBenchmark(Path dir, String lockstep, String redisServer, String redisBenchmark, boolean quick) {
        this.dir = dir;
        this.lockstep = lockstep;
        this.redisServer = redisServer;
        this.redisBenchmark = redisBenchmark;
        this.quick = quick;
    }

    /** The tables: per durability and row, Lockstep first, then redis-server. */
    List<Bench.Comparison> comparisons() {
        List<Row> rows = List.of(new Row(1, 1, 64), new Row(50, 1, 64), new Row(50, 16, 64), new Row(50, 16, 4096));
        List<Bench.Comparison> comparisons = new ArrayList<>();
        for (String fsync : List.of("always", "everysec")) {
            for (Row row : rows) {
                List<Bench.Variant> variants = new ArrayList<>();
                variants.add(new Bench.Variant("Lockstep resp, 1 io_uring worker",
                        () -> measure("lockstep-" + fsync, row)));
                variants.add(new Bench.Variant("redis-server, appendonly yes, appendfsync " + fsync,
                        () -> measure("redis-" + fsync, row)));
                comparisons.add(new Bench.Comparison(row.title(fsync), "SETs/s", variants));
            }
        }
        return comparisons;
    }

    private Bench.Measurement measure(String server, Row row) {
        int port = start(server);
        ProcessHandle handle = servers.get(server).toHandle();
        int requests = requests(row, server.endsWith("always"));
        Duration cpuBefore = handle.info().totalCpuDuration().orElse(Duration.ZERO);
        List<String> csv = run(redisBenchmark, "-h", "127.0.0.1", "-p", Integer.toString(port), "-t", "set",
                "-n", Integer.toString(requests), "-c", Integer.toString(row.connections()), "-P",
                Integer.toString(row.pipeline()), "-d", Integer.toString(row.valueBytes()), "-r", "100000", "--csv");
        Duration cpu = handle.info().totalCpuDuration().orElse(Duration.ZERO).minus(cpuBefore);
        for (String line : csv) {
            // "SET","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms",...
            if (line.startsWith("\"SET\"")) {
                String[] cells = line.replace("\"", "").split(",");
                double rps = Double.parseDouble(cells[1]);
                return new Bench.Measurement(rps, Double.NaN, cpu.toNanos() / 1_000.0 / requests,
                        Double.parseDouble(cells[4]) * 1_000, Double.parseDouble(cells[6]) * 1_000);
            }
        }
        throw new IllegalStateException("redis-benchmark printed no SET line: " + String.join(" / ", csv));
    }

    /** Enough requests for a few seconds of each row on a two-core machine, fewer with --quick. */
    private int requests(Row row, boolean always) {
        int base = row.connections() == 1 ? (always ? 2_000 : 20_000) : row.pipeline() == 1 ? 20_000 : 100_000;
        if (row.valueBytes() > 1024) {
            base /= 2;
        }
        return quick ? base / 4 : base;
    }

    /** Starts {@code server} if it is not running; returns its port. */
    private int start(String server) {
        Integer known = ports.get(server);
        if (known != null) {
            if (!servers.get(server).isAlive()) {
                throw new IllegalStateException(server + " exited with " + servers.get(server).exitValue());
            }
            return known;
        }
        int port = freePort();
        Path data = dir.resolve("resp-" + server + "-" + (++turn));
        List<String> command;
        String fsync = server.substring(server.indexOf('-') + 1);
        try {
            Files.createDirectories(data);
            dataDirs.add(data);
        } catch (IOException failed) {
            throw new IllegalStateException("could not create " + data, failed);
        }
        if (server.startsWith("redis-")) {
            command = List.of(redisServer, "--port", Integer.toString(port), "--bind", "127.0.0.1", "--dir",
                    data.toString(), "--appendonly", "yes", "--appendfsync", fsync, "--save", "",
                    "--daemonize", "no", "--protected-mode", "no", "--logfile", "");
        } else {
            command = List.of(lockstep, "resp", "--port", Integer.toString(port), "--dir", data.toString(),
                    "--fsync", fsync, "--workers", "1");
        }
        Process process;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException failed) {
            throw new IllegalStateException("could not start " + String.join(" ", command) + ": "
                    + failed.getMessage(), failed);
        }
        servers.put(server, process);
        awaitReady(process, server.startsWith("redis-") ? "Ready to accept connections" : "READY ", server);
        ports.put(server, port);
        // Warm-up, not measured: the JVM's JIT compiles the service's paths (its CPU would otherwise count in the
        // first row's), and both servers' logs and page caches are past their first pages.
        for (Row row : List.of(new Row(50, 16, 64), new Row(1, 1, 64))) {
            run(redisBenchmark, "-h", "127.0.0.1", "-p", Integer.toString(port), "-t", "set", "-n",
                    Integer.toString(requests(row, fsync.equals("always"))), "-c", Integer.toString(row.connections()),
                    "-P", Integer.toString(row.pipeline()), "-d", "64", "-r", "100000", "--csv");
        }
        return port;
    }

    private static void awaitReady(Process process, String marker, String server) {
        BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8));
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        List<String> seen = new ArrayList<>();
        try {
            String line;
            while (System.nanoTime() < deadline && (line = lines.readLine()) != null) {
                seen.add(line);
                if (line.contains(marker)) {
                    Thread.ofPlatform().daemon().name("resp-bench-drain").start(() -> drain(lines));
                    return;
                }
            }
        } catch (IOException failed) {
            throw new IllegalStateException(server + " did not start: " + failed.getMessage(), failed);
        }
        process.destroyForcibly();
        throw new IllegalStateException(server + " did not print '" + marker + "': "
                + String.join(" / ", seen.subList(Math.max(0, seen.size() - 10), seen.size())));
    }

    private static void drain(BufferedReader lines) {
        try (lines) {
            while (lines.readLine() != null) {
                // the server's later output is not needed; reading it keeps its pipe from filling
            }
        } catch (IOException closed) {
            // the server stopped
        }
    }

    private static int freePort() {
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return probe.getLocalPort();
        } catch (IOException failed) {
            throw new IllegalStateException("no free loopback port", failed);
        }
    }

    private static List<String> run(String... command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            process.getOutputStream().close();
            List<String> lines = new ArrayList<>();
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    lines.add(line);
                }
            }
            if (!process.waitFor(10, TimeUnit.MINUTES) || process.exitValue() != 0) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " failed: " + String.join(" / ", lines));
            }
            return lines;
        } catch (IOException failed) {
            throw new IllegalStateException("could not run " + command[0] + ": " + failed.getMessage(), failed);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + command[0], interrupted);
        }
    }

    /**
     * Stops every server (the Lockstep ones with their JVM's children: the script execs Java, so one process),
     * then deletes their data directories, whether or not the servers stopped in time.
     *
     * @throws IllegalStateException naming a data directory that could not be deleted
     */
    @Override
    public void close() {
        try {
            for (Process process : servers.values()) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                try {
                    process.waitFor(30, TimeUnit.SECONDS);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        } finally {
            deleteDataDirs();
        }
    }

    private void deleteDataDirs() {
        IllegalStateException failure = null;
        for (Path data : dataDirs) {
            try {
                BenchPrograms.deleteTree(data);
            } catch (IOException | UncheckedIOException failed) {
                IllegalStateException next = new IllegalStateException("could not delete " + data, failed);
                if (failure == null) {
                    failure = next;
                } else {
                    failure.addSuppressed(next);
                }
            }
        }
        dataDirs.clear();
        if (failure != null) {
            throw failure;
        }
    }
}
