package dev.lockstep.bench;

import dev.lockstep.uring.UringRunner;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Storage metadata through the public API on one {@link UringRunner} worker, for comparing builds side by side:
 * <ol>
 *   <li><b>reopen</b>: {@code open} of an existing, durable blob and {@code close}, in a loop — the open path an
 *       application takes at every start and for every segment it reads;</li>
 *   <li><b>create and remove</b>: {@code open} of a new blob (which syncs the file and its directory), {@code close},
 *       {@code remove} (which syncs the directory), in a loop.</li>
 * </ol>
 * Each case runs for the given time after a warm-up of the same length and prints its rate and the process's CPU
 * time per operation (every thread: the worker, and any thread the runtime hands calls to).
 *
 * <p>It uses only the public API, so the same source runs against an older build's classes with the JDK's
 * source launcher: {@code java -cp OLD_CLASSES bench/src/main/java/dev/lockstep/bench/MetadataBenchmark.java}.
 *
 * <p>Usage: {@code MetadataBenchmark [--dir PATH] [--seconds S]}; the directory (default
 * {@code /var/tmp/lockstep-metadata}) must be on a real disk, or the syncs cost nothing.
 */
public final class MetadataBenchmark {
    private MetadataBenchmark() {
    }

    /**
     * Runs both cases.
     *
     * @param args {@code --dir PATH}, {@code --seconds S}
     * @throws Exception if the storage directory cannot be prepared
     */
    public static void main(String[] args) throws Exception {
        Path dir = Path.of("/var/tmp/lockstep-metadata");
        int seconds = 3;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--dir" -> dir = Path.of(args[i + 1]);
                case "--seconds" -> seconds = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + "; usage: MetadataBenchmark [--dir PATH] [--seconds S]");
            }
        }
        Path root = Files.createDirectories(dir).resolve("root-" + ProcessHandle.current().pid());
        long nanos = TimeUnit.SECONDS.toNanos(seconds);
        String report = UringRunner.builder().workers(1).storage(root).build().start(ctx -> {
            ctx.open("bench", "existing").await().blob().close();
            StringBuilder out = new StringBuilder();
            for (String phase : new String[] {"warm-up", "measured"}) {
                long[] reopen = measure(nanos, () -> ctx.open("bench", "existing").await().blob().close());
                int[] next = {0};
                long[] cycle = measure(nanos, () -> {
                    byte[] name = ("new-" + next[0]++).getBytes(StandardCharsets.UTF_8);
                    ctx.open("bench", name).await().blob().close();
                    ctx.remove("bench", name).await();
                });
                if (phase.equals("measured")) {
                    out.append(line("reopen an existing blob", reopen, nanos));
                    out.append(line("create, close and remove a blob", cycle, nanos));
                }
            }
            return out.toString();
        });
        System.out.print(report);
        try (var entries = Files.walk(root)) {
            entries.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
    }

    /** Runs {@code body} for {@code nanos}; returns the operations and the process CPU nanoseconds they took. */
    private static long[] measure(long nanos, Runnable body) {
        long cpuBefore = processCpuNanos();
        long start = System.nanoTime();
        long operations = 0;
        while (System.nanoTime() - start < nanos) {
            body.run();
            operations++;
        }
        return new long[] {operations, processCpuNanos() - cpuBefore};
    }

    private static String line(String name, long[] measured, long nanos) {
        double perSecond = measured[0] / (nanos / 1e9);
        double cpuMicros = measured[1] / 1e3 / Math.max(1, measured[0]);
        return String.format(Locale.ROOT, "%-34s %,12.0f ops/s %10.2f CPU µs/op %,10d ops%n", name, perSecond,
                cpuMicros, measured[0]);
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }
}
