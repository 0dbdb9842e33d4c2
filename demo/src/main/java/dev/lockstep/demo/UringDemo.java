package dev.lockstep.demo;

import dev.lockstep.Listener;
import dev.lockstep.demo.kv.InjectedBug;
import dev.lockstep.demo.kv.KvServer;
import dev.lockstep.demo.kv.KvOptions;
import dev.lockstep.demo.kv.KvStore;
import dev.lockstep.demo.kv.Records;
import dev.lockstep.uring.UringRunner;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;

/**
 * Parts 1 and 2 of {@code ./lockstep demo}: the service on runtime-uring in a child JVM, a load generator on
 * runtime-uring in this one, an unclean stop (SIGKILL while requests are in flight) and a restart that checks
 * every acknowledged write.
 */
final class UringDemo {
    static final String PARTITION = "kv";
    static final int VALUE_BYTES = 128;

    /** The settings of one run. */
    record Settings(Duration duration, int clients, int keysPerClient, int serverWorkers, int clientWorkers,
                    InjectedBug bug) {
    }

    /** What the run found. */
    record Outcome(boolean passed, long violations) {
    }

    private final PrintStream out;
    private final Settings settings;

    UringDemo(PrintStream out, Settings settings) {
        this.out = out;
        this.settings = settings;
    }

    static KvOptions storeOptions(InjectedBug bug) {
        return KvOptions.defaults(PARTITION).withBug(bug);
    }

    /** The child process: serve until killed. Prints READY, then STATS lines. */
    static void serve(Path data, int workers, InjectedBug bug) {
        UringRunner runner = UringRunner.builder().workers(workers).ringEntries(4096).storage(data).build();
        runner.start(ctx -> {
            Listener listener = ctx.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).await();
            KvServer server = new KvServer(storeOptions(bug), line -> System.err.println("server: " + line));
            ctx.child("server").spawn(c -> server.serve(c, listener));
            while (server.store() == null) {
                ctx.sleep(Duration.ofMillis(2));
            }
            System.out.println("READY " + listener.localAddress().getPort() + " " + server.store().recovery());
            System.out.flush();
            while (true) {
                ctx.sleep(Duration.ofMillis(200));
                KvStore store = server.store();
                if (store != null) {
                    KvStore.Stats stats = store.stats();
                    System.out.println("STATS " + stats.puts() + " " + stats.deletes() + " " + stats.syncs());
                    System.out.flush();
                }
            }
        });
    }

    Outcome run() throws Exception {
        Path base = Files.createTempDirectory("lockstep-demo-");
        Path data = base.resolve("data");
        Files.createDirectories(data);
        Path serverLog = base.resolve("server.log");
        Duration duration = settings.duration();
        out.printf("[1/3] runtime-uring: the service in its own JVM (%d io_uring worker%s), data in %s%n",
                settings.serverWorkers(), settings.serverWorkers() == 1 ? "" : "s", data);
        out.printf("      load: %d clients over loopback (%d io_uring worker%s), puts 60%% / gets 35%% / deletes 5%%,"
                + " %d B values, for %d s%n", settings.clients(), settings.clientWorkers(),
                settings.clientWorkers() == 1 ? "" : "s", VALUE_BYTES, duration.toSeconds());
        if (settings.bug() != InjectedBug.NONE) {
            out.println("      injected bug: " + settings.bug().cliName() + " (" + settings.bug().description() + ")");
        }

        Process server = new ProcessBuilder(Main.javaCommand("serve", data.toString(),
                String.valueOf(settings.serverWorkers()), settings.bug().cliName()))
                .redirectError(serverLog.toFile()).start();
        AtomicLong serverPuts = new AtomicLong();
        AtomicLong serverWrites = new AtomicLong();
        AtomicLong serverSyncs = new AtomicLong();
        AtomicReference<String> ready = new AtomicReference<>();
        Thread reader = Thread.ofPlatform().daemon().name("lockstep-server-reader").start(() -> {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(server.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    if (line.startsWith("READY ")) {
                        synchronized (ready) {
                            ready.set(line.substring(6));
                            ready.notifyAll();
                        }
                    } else if (line.startsWith("STATS ")) {
                        String[] parts = line.split(" ");
                        serverPuts.set(Long.parseLong(parts[1]));
                        serverWrites.set(Long.parseLong(parts[1]) + Long.parseLong(parts[2]));
                        serverSyncs.set(Long.parseLong(parts[3]));
                    }
                }
            } catch (IOException closed) {
                // The server was killed.
            }
        });
        String readyLine;
        synchronized (ready) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (ready.get() == null && server.isAlive() && System.nanoTime() < deadline) {
                ready.wait(100);
            }
            readyLine = ready.get();
        }
        if (readyLine == null) {
            server.destroyForcibly();
            out.println("      the service did not start; its log (" + serverLog + "):");
            out.println(Files.readString(serverLog).indent(8));
            return new Outcome(false, 0);
        }
        int port = Integer.parseInt(readyLine.split(" ")[0]);
        InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);

        Model model = new Model(settings.clients(), settings.keysPerClient(), VALUE_BYTES);
        LoadClient.Meter meter = new LoadClient.Meter(true);
        LoadClient.Shape shape = new LoadClient.Shape(60, 5, Duration.ofSeconds(5), Duration.ofMillis(20),
                Duration.ZERO);
        long[] window = new long[3];
        long[] lastSample = {System.nanoTime(), 0};
        double[] rate = {0};
        AtomicLong startNanos = new AtomicLong(System.nanoTime());
        Progress progress = new Progress(out,
                () -> (System.nanoTime() - startNanos.get()) / (double) duration.toNanos(),
                () -> {
                    long now = System.nanoTime();
                    long done = meter.completed();
                    if (now - lastSample[0] >= 500_000_000L) {
                        rate[0] = (done - lastSample[1]) * 1e9 / (now - lastSample[0]);
                        lastSample[0] = now;
                        lastSample[1] = done;
                    }
                    return String.format("%4.1f s  %,9d requests  %,7.0f req/s",
                            Math.min(duration.toNanos(), now - startNanos.get()) / 1e9, done, rate[0]);
                });
        UringRunner loadRunner = UringRunner.builder().workers(settings.clientWorkers()).ringEntries(4096).build();
        long inFlightAtKill;
        try (progress) {
            inFlightAtKill = loadRunner.start(ctx -> {
                startNanos.set(System.nanoTime());
                for (int i = 0; i < settings.clients(); i++) {
                    int client = i;
                    SplittableRandom random = new SplittableRandom(client * 0x9E3779B97F4A7C15L + 1);
                    ctx.child("client" + i).spawnOn(i % ctx.workers(), c -> new LoadClient(c, address,
                            model.client(client), shape, random, meter, System::nanoTime, null).run());
                }
                ctx.sleep(duration);
                window[0] = meter.completed();
                window[1] = System.nanoTime() - startNanos.get();
                window[2] = meter.errors();
                // The unclean stop: SIGKILL, with every client mid-request. No close, no final sync.
                server.destroyForcibly();
                ctx.sleep(Duration.ofMillis(100));
                return 0L;
            });
        }
        if (!server.waitFor(2, TimeUnit.SECONDS)) {
            // The JDK reads the pid's start time from /proc before it signals, and signals nothing if it cannot:
            // with no fd to spare (the clients had taken them all) the kill above did nothing. The clients'
            // connections are closed now, so signal again, and do not wait for ever.
            server.destroyForcibly();
            if (!server.waitFor(10, TimeUnit.SECONDS)) {
                out.println("      the service (pid " + server.pid() + ") could not be killed; its data is in " + data);
                return new Outcome(false, 0);
            }
            out.println("      (the service was killed after the load: this process had no file descriptor to spare"
                    + " for the kill during it)");
        }
        reader.join(1000);
        long settled = settle(data.resolve(PARTITION));
        inFlightAtKill = model.unknownWrites();

        Histogram puts = meter.putLatency.getIntervalHistogram();
        Histogram gets = meter.getLatency.getIntervalHistogram();
        double seconds = window[1] / 1e9;
        Table table = new Table()
                .row("", "requests", "per second", "p50", "p90", "p99", "p99.9", "max")
                .row("puts", Table.count(meter.puts()), Table.count(Math.round(meter.puts() / seconds)),
                        Table.millis(puts.getValueAtPercentile(50)), Table.millis(puts.getValueAtPercentile(90)),
                        Table.millis(puts.getValueAtPercentile(99)), Table.millis(puts.getValueAtPercentile(99.9)),
                        Table.millis(puts.getMaxValue()))
                .row("gets", Table.count(meter.gets()), Table.count(Math.round(meter.gets() / seconds)),
                        Table.millis(gets.getValueAtPercentile(50)), Table.millis(gets.getValueAtPercentile(90)),
                        Table.millis(gets.getValueAtPercentile(99)), Table.millis(gets.getValueAtPercentile(99.9)),
                        Table.millis(gets.getMaxValue()))
                .row("deletes", Table.count(meter.deletes()), Table.count(Math.round(meter.deletes() / seconds)))
                .row("all", Table.count(window[0]), Table.count(Math.round(window[0] / seconds)));
        out.print(table.render("      "));
        long syncs = serverSyncs.get();
        if (syncs > 0) {
            out.printf("      group commit: %,d acknowledged writes in %,d syncs (%.1f writes per fdatasync)%n",
                    serverWrites.get(), syncs, serverWrites.get() / (double) syncs);
        }
        out.printf("      failed requests during the load (error, timeout or broken connection): %,d%n", window[2]);

        out.println();
        out.println("[2/3] unclean stop and restart");
        out.printf("      killed the service with SIGKILL after %.1f s, %d writes in flight: no close, no final"
                + " sync%n", seconds, inFlightAtKill);
        out.printf("      waited %d ms for the files to stop changing (a killed process's in-flight io_uring writes%n"
                + "      can still land after it is gone)%n", settled);
        String torn = tearTail(data.resolve(PARTITION));
        if (torn != null) {
            out.println("      imitated a write torn by a power cut: " + torn);
        }
        long[] counts = new long[4];
        AtomicReference<KvStore.Recovery> recovery = new AtomicReference<>();
        UringRunner.builder().workers(1).storage(data).build().start(ctx -> {
            try (KvStore store = KvStore.open(ctx, storeOptions(settings.bug()))) {
                recovery.set(store.recovery());
                for (int c = 0; c < model.clients(); c++) {
                    Model.Client client = model.client(c);
                    for (int k = 0; k < client.keys(); k++) {
                        boolean unknown = client.hasUnknown(k);
                        Model.Verdict verdict = client.check(k, store.get(client.key(k)), "after restart");
                        counts[verdict.ordinal()]++;
                        if (unknown) {
                            counts[3]++;
                        }
                    }
                }
            }
            return null;
        });
        out.println("      restarted: recovery found " + recovery.get());
        List<String> violations = model.violations();
        long keys = (long) settings.clients() * settings.keysPerClient();
        if (violations.isEmpty()) {
            out.printf("      checked all %,d keys against %,d acknowledged puts and %,d deletes: every acknowledged"
                    + " write is there%n", keys, model.ackedPuts(), model.ackedDeletes());
            out.printf("      (%,d keys had a write in flight at the kill: %,d of those writes landed, %,d did not;"
                    + " both are allowed)%n", counts[3], counts[1], counts[3] - counts[1]);
            deleteTree(base);
        } else {
            out.printf("      FAILED: %d violation(s) among %,d keys; data kept in %s%n", violations.size(), keys,
                    data);
            for (String violation : violations.subList(0, Math.min(10, violations.size()))) {
                out.println("        " + violation);
            }
        }
        return new Outcome(violations.isEmpty(), violations.size());
    }

    /**
     * Waits until no file in {@code dir} changes size or modification time for 200 ms (at most 5 s). A killed
     * process's io_uring requests still in flight are completed (or cancelled) by the kernel after the process
     * has exited and released its storage hold; a restart that reads the files before then races them.
     *
     * @return the milliseconds waited
     */
    private static long settle(Path dir) throws IOException, InterruptedException {
        long start = System.nanoTime();
        String last = snapshot(dir);
        int quiet = 0;
        while (quiet < 4 && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5)) {
            Thread.sleep(50);
            String now = snapshot(dir);
            quiet = now.equals(last) ? quiet + 1 : 0;
            last = now;
        }
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    private static String snapshot(Path dir) throws IOException {
        StringBuilder state = new StringBuilder();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.sorted().toList()) {
                state.append(file.getFileName()).append(':').append(Files.size(file)).append(':')
                        .append(Files.getLastModifiedTime(file).toMillis()).append(';');
            }
        }
        return state.toString();
    }

    /**
     * Appends the first half of a record to the newest segment, as a power cut in the middle of a write could
     * leave it: what recovery must cut off.
     */
    private static String tearTail(Path partition) throws IOException {
        Path newest = null;
        long newestId = -1;
        try (Stream<Path> files = Files.list(partition)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String name;
                try {
                    name = new String(HexFormat.of().parseHex(file.getFileName().toString()), StandardCharsets.UTF_8);
                } catch (IllegalArgumentException notABlob) {
                    continue;
                }
                long id = Records.segmentIdOf(name);
                if (id > newestId) {
                    newestId = id;
                    newest = file;
                }
            }
        }
        if (newest == null) {
            return null;
        }
        byte[] record = Records.encode(Records.PUT, Long.MAX_VALUE, "torn".getBytes(StandardCharsets.UTF_8),
                new byte[VALUE_BYTES]);
        byte[] half = java.util.Arrays.copyOf(record, record.length / 2);
        Files.write(newest, half, StandardOpenOption.APPEND);
        return "appended " + half.length + " of a record's " + record.length + " bytes to "
                + Records.segmentName(newestId);
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
