package dev.lockstep.bench;

import dev.lockstep.Blob;
import dev.lockstep.Handle;
import dev.lockstep.engine.io.DurabilityPermit;
import dev.lockstep.uring.UringRunner;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * Durable appends to one file: each appender writes a 64-byte record at the next offset, then syncs, then
 * counts one durable append. Three cases in interleaved rounds (each round runs every case once, in the same
 * order), so a noisy machine affects them alike:
 *
 * <ol>
 *   <li><b>Lockstep, 64 appenders</b>: 64 fibers on one {@link UringRunner} worker, each
 *       {@code writeAt(...).await(); sync().await()} on one open blob. Their syncs coalesce (group sync): one
 *       {@code fdatasync} completes every sync that was waiting when it was issued.</li>
 *   <li><b>Lockstep, 1 appender</b>: the same with one fiber: one {@code fdatasync} per append.</li>
 *   <li><b>FileChannel, 64 threads</b>: 64 platform threads, each {@code write(buffer, position)} then
 *       {@code force(false)} ({@code fdatasync}) on one shared channel.</li>
 * </ol>
 *
 * <p>Latency is per append, from before the write to after its sync returned. For Lockstep the number of
 * flushes the open issued is read from its {@link DurabilityPermit}, so syncs per flush shows the grouping.
 *
 * <p>Usage: {@code GroupSyncBenchmark [--dir PATH] [--seconds S] [--rounds N] [--appenders N]}; prints a
 * Markdown table. The defaults (a file under {@code /var/tmp/lockstep-bench}, 5 s per case, 3 rounds, 64
 * appenders) are the run recorded in {@code BENCHMARKS.md}; the directory must be on a real disk (on tmpfs an
 * {@code fdatasync} does nothing).
 */
public final class GroupSyncBenchmark {
    private static final int RECORD = 64;
    private static final long HIGHEST_LATENCY_NANOS = TimeUnit.SECONDS.toNanos(30);

    private GroupSyncBenchmark() {
    }

    /** One measured case of one round. */
    record Result(String engine, int appenders, int round, long appends, long flushes, double seconds,
                  double p50Micros, double p99Micros) {
        double perSecond() {
            return appends / seconds;
        }
    }

    record Settings(Path dir, int seconds, int rounds, int appenders) { }

    public static void main(String[] args) throws Exception {
        Settings settings = parse(args);
        Files.createDirectories(settings.dir);
        List<Result> results = new ArrayList<>();
        for (int round = 1; round <= settings.rounds; round++) {
            results.add(lockstep(settings, settings.appenders, round));
            results.add(lockstep(settings, 1, round));
            results.add(fileChannel(settings, settings.appenders, round));
        }
        System.out.println("| round | engine | appenders | durable appends/s | fdatasyncs | appends per fdatasync"
                + " | p50 latency (µs) | p99 latency (µs) |");
        System.out.println("|---:|---|---:|---:|---:|---:|---:|---:|");
        for (Result result : results) {
            System.out.printf(Locale.ROOT, "| %d | %s | %d | %,.0f | %s | %s | %.0f | %.0f |%n", result.round,
                    result.engine, result.appenders, result.perSecond(),
                    result.flushes < 0 ? "(one per append)" : String.format(Locale.ROOT, "%,d", result.flushes),
                    result.flushes <= 0 ? "1" : String.format(Locale.ROOT, "%.1f",
                            (double) result.appends / result.flushes),
                    result.p50Micros, result.p99Micros);
        }
    }

    private static Settings parse(String[] args) {
        Path dir = Path.of("/var/tmp/lockstep-bench");
        int seconds = 5;
        int rounds = 3;
        int appenders = 64;
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--dir" -> dir = Path.of(value);
                case "--seconds" -> seconds = Integer.parseInt(value);
                case "--rounds" -> rounds = Integer.parseInt(value);
                case "--appenders" -> appenders = Integer.parseInt(value);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]
                        + "; known: --dir PATH --seconds S --rounds N --appenders N");
            }
            i++;
        }
        if (seconds < 1 || rounds < 1 || appenders < 1) {
            throw new IllegalArgumentException("seconds, rounds and appenders must be positive, were " + seconds
                    + ", " + rounds + ", " + appenders);
        }
        return new Settings(dir, seconds, rounds, appenders);
    }

    private static Histogram histogram() {
        return new Histogram(HIGHEST_LATENCY_NANOS, 3);
    }

    private static Result lockstep(Settings settings, int appenders, int round) throws IOException {
        Path storage = settings.dir.resolve("lockstep-" + appenders + "-" + round);
        deleteTree(storage);
        long[] outcome = UringRunner.builder().workers(1).ringEntries(256).storage(storage).build().start(ctx -> {
            Blob blob = ctx.open("bench", "appends").await().blob();
            try {
                AtomicLong nextRecord = new AtomicLong();
                AtomicBoolean stop = new AtomicBoolean();
                Histogram[] latencies = new Histogram[appenders];
                List<Handle<Long>> fibers = new ArrayList<>();
                for (int i = 0; i < appenders; i++) {
                    Histogram latency = histogram();
                    latencies[i] = latency;
                    fibers.add(ctx.child("appender" + i).spawn(child -> {
                        byte[] record = new byte[RECORD];
                        long appends = 0;
                        while (!stop.get()) {
                            long started = System.nanoTime();
                            blob.writeAt(nextRecord.getAndIncrement() * RECORD, record).await();
                            blob.sync().await();
                            latency.recordValue(Math.min(HIGHEST_LATENCY_NANOS, System.nanoTime() - started));
                            appends++;
                        }
                        return appends;
                    }));
                }
                long flushesBefore = DurabilityPermit.of(blob).flushes();
                long started = System.nanoTime();
                ctx.sleep(java.time.Duration.ofSeconds(settings.seconds));
                stop.set(true);
                long appends = 0;
                for (Handle<Long> fiber : fibers) {
                    appends += fiber.await();
                }
                long elapsed = System.nanoTime() - started;
                long flushes = DurabilityPermit.of(blob).flushes() - flushesBefore;
                Histogram all = histogram();
                for (Histogram latency : latencies) {
                    all.add(latency);
                }
                return new long[] {appends, flushes, elapsed, all.getValueAtPercentile(50),
                        all.getValueAtPercentile(99)};
            } finally {
                blob.close();
            }
        });
        deleteTree(storage);
        return new Result("Lockstep (1 worker)", appenders, round, outcome[0], outcome[1], outcome[2] / 1e9,
                outcome[3] / 1000.0, outcome[4] / 1000.0);
    }

    private static Result fileChannel(Settings settings, int threads, int round) throws Exception {
        Path file = settings.dir.resolve("filechannel-" + round + ".dat");
        Files.deleteIfExists(file);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            AtomicLong nextRecord = new AtomicLong();
            AtomicBoolean stop = new AtomicBoolean();
            Histogram[] latencies = new Histogram[threads];
            long[] appends = new long[threads];
            Throwable[] failures = new Throwable[threads];
            Thread[] workers = new Thread[threads];
            for (int i = 0; i < threads; i++) {
                int index = i;
                latencies[i] = histogram();
                workers[i] = Thread.ofPlatform().name("appender-" + i).unstarted(() -> {
                    ByteBuffer record = ByteBuffer.allocateDirect(RECORD);
                    try {
                        while (!stop.get()) {
                            long started = System.nanoTime();
                            record.clear();
                            long position = nextRecord.getAndIncrement() * RECORD;
                            while (record.hasRemaining()) {
                                channel.write(record, position + record.position());
                            }
                            channel.force(false);
                            latencies[index].recordValue(Math.min(HIGHEST_LATENCY_NANOS,
                                    System.nanoTime() - started));
                            appends[index]++;
                        }
                    } catch (IOException | RuntimeException failure) {
                        failures[index] = failure;
                    }
                });
            }
            long started = System.nanoTime();
            for (Thread worker : workers) {
                worker.start();
            }
            Thread.sleep(TimeUnit.SECONDS.toMillis(settings.seconds));
            stop.set(true);
            for (Thread worker : workers) {
                worker.join();
            }
            long elapsed = System.nanoTime() - started;
            for (Throwable failure : failures) {
                if (failure != null) {
                    throw new IllegalStateException("a FileChannel appender failed: " + failure, failure);
                }
            }
            Histogram all = histogram();
            for (Histogram latency : latencies) {
                all.add(latency);
            }
            return new Result("FileChannel (write + force(false))", threads, round, Arrays.stream(appends).sum(),
                    -1, elapsed / 1e9, all.getValueAtPercentile(50) / 1000.0,
                    all.getValueAtPercentile(99) / 1000.0);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (var paths = Files.walk(root)) {
            for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
