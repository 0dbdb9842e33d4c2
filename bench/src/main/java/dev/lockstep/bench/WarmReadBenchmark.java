package dev.lockstep.bench;

import com.sun.management.ThreadMXBean;
import dev.lockstep.Blob;
import dev.lockstep.IoBuffer;
import dev.lockstep.uring.UringRunner;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Warm 4 KiB random reads (the file is in the page cache) on one thread, three ways in interleaved rounds
 * (A B C, A B C, …) so that the machine's drift hits every engine alike:
 *
 * <ol>
 *   <li><b>buffer</b>: one {@link UringRunner} worker, one fiber, {@link Blob#readInto} into one
 *       {@link IoBuffer} it reuses — the zero-copy path;</li>
 *   <li><b>byte[]</b>: the same runner shape, {@link Blob#readAt(long, int)} returning a new array per read;</li>
 *   <li><b>FileChannel</b>: {@link FileChannel#read(ByteBuffer, long)} into one direct buffer, on one platform
 *       thread.</li>
 * </ol>
 *
 * <p>Every engine reads the same precomputed sequence of block-aligned offsets. Allocation per read is a
 * whole-program figure: {@link ThreadMXBean#getTotalThreadAllocatedBytes()} (every thread, virtual threads'
 * allocation counted on their carriers) across the measured reads, divided by their number; a warm-up of the
 * same engine precedes each measured stretch, in the same runner.
 *
 * <p>Usage: {@code WarmReadBenchmark [--file PATH] [--size-mib N] [--reads N] [--warmup-reads N]
 * [--rounds N] [--engines buffer,byte[],FileChannel]}; prints the rounds and a Markdown table of medians and
 * ratios (an engine left out shows NaN).
 */
public final class WarmReadBenchmark {
    private static final int BLOCK = 4096;
    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

    private WarmReadBenchmark() {
    }

    /** One measured stretch: reads per second and heap bytes allocated per read. */
    record Sample(double readsPerSecond, double bytesPerRead) {
    }

    public static void main(String[] args) throws Exception {
        Path file = Path.of("/tmp/lockstep-bench/warm-64m.dat");
        long mib = 64;
        int reads = 200_000;
        int warmupReads = 50_000;
        int rounds = 5;
        List<String> only = List.of("buffer", "byte[]", "FileChannel");
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--file" -> file = Path.of(args[i + 1]);
                case "--size-mib" -> mib = Long.parseLong(args[i + 1]);
                case "--reads" -> reads = Integer.parseInt(args[i + 1]);
                case "--warmup-reads" -> warmupReads = Integer.parseInt(args[i + 1]);
                case "--rounds" -> rounds = Integer.parseInt(args[i + 1]);
                case "--engines" -> only = List.of(args[i + 1].split(","));
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        long bytes = mib << 20;
        prepare(file, bytes);
        long[] offsets = new long[reads + warmupReads];
        SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] = random.nextLong(bytes / BLOCK) * BLOCK;
        }
        List<String> engines = List.of("buffer", "byte[]", "FileChannel");
        List<List<Sample>> samples = new ArrayList<>();
        for (int e = 0; e < engines.size(); e++) {
            samples.add(new ArrayList<>());
        }
        System.out.println("| round | engine | reads/s | B/read |");
        System.out.println("|---:|---|---:|---:|");
        for (int round = 1; round <= rounds; round++) {
            for (int e = 0; e < engines.size(); e++) {
                if (!only.contains(engines.get(e))) {
                    samples.get(e).add(new Sample(Double.NaN, Double.NaN));
                    continue;
                }
                Sample sample = switch (e) {
                    case 0 -> lockstep(file, offsets, warmupReads, true);
                    case 1 -> lockstep(file, offsets, warmupReads, false);
                    default -> fileChannel(file, offsets, warmupReads);
                };
                samples.get(e).add(sample);
                System.out.printf(Locale.ROOT, "| %d | %s | %,.0f | %,.1f |%n", round, engines.get(e),
                        sample.readsPerSecond, sample.bytesPerRead);
            }
        }
        double[] medians = new double[engines.size()];
        System.out.println();
        System.out.println("| engine | reads/s (median of " + rounds + ") | B/read (median) | vs FileChannel |");
        System.out.println("|---|---:|---:|---:|");
        for (int e = 0; e < engines.size(); e++) {
            medians[e] = median(samples.get(e).stream().mapToDouble(Sample::readsPerSecond).toArray());
        }
        for (int e = 0; e < engines.size(); e++) {
            System.out.printf(Locale.ROOT, "| %s | %,.0f | %,.1f | %.2f× |%n", engines.get(e), medians[e],
                    median(samples.get(e).stream().mapToDouble(Sample::bytesPerRead).toArray()),
                    medians[e] / medians[2]);
        }
        System.out.printf(Locale.ROOT, "%nbuffer vs byte[]: %.2f×%n", medians[0] / medians[1]);
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    private static void prepare(Path file, long bytes) throws IOException {
        Files.createDirectories(file.getParent());
        if (!Files.exists(file) || Files.size(file) != bytes) {
            SplittableRandom random = new SplittableRandom(7);
            byte[] chunk = new byte[1 << 20];
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                for (long written = 0; written < bytes; written += chunk.length) {
                    for (int i = 0; i < chunk.length; i += 8) {
                        long value = random.nextLong();
                        for (int b = 0; b < 8; b++) {
                            chunk[i + b] = (byte) (value >>> (8 * b));
                        }
                    }
                    channel.write(ByteBuffer.wrap(chunk), written);
                }
            }
        }
        // Warm the page cache: every later read is a copy from memory.
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20);
            for (long at = 0; at < bytes; at += buffer.capacity()) {
                buffer.clear();
                channel.read(buffer, at);
            }
        }
    }

    /**
     * One runner whose root task opens the file as a blob (its storage root is the file's directory, the
     * file's name the hex of the blob name) and reads through it.
     */
    private static Sample lockstep(Path file, long[] offsets, int warmupReads, boolean buffer) throws IOException {
        Path root = Files.createTempDirectory("lockstep-warm");
        Path partition = Files.createDirectories(root.resolve("bench"));
        String name = "warm";
        Path blobFile = partition.resolve(java.util.HexFormat.of().formatHex(name.getBytes()));
        Files.createLink(blobFile, file);
        try {
            return UringRunner.builder().workers(1).ringEntries(64).storage(root).build().start(ctx -> {
                try (Blob blob = ctx.open("bench", name).await().blob();
                     IoBuffer into = ctx.buffers().allocate(BLOCK)) {
                    long checksum = 0;
                    for (int i = 0; i < warmupReads; i++) {
                        checksum += read(blob, into, offsets[i], buffer);
                    }
                    long allocatedBefore = THREADS.getTotalThreadAllocatedBytes();
                    long started = System.nanoTime();
                    for (int i = warmupReads; i < offsets.length; i++) {
                        checksum += read(blob, into, offsets[i], buffer);
                    }
                    long elapsed = System.nanoTime() - started;
                    long allocated = THREADS.getTotalThreadAllocatedBytes() - allocatedBefore;
                    if (checksum == 42) {
                        System.out.print("");
                    }
                    int measured = offsets.length - warmupReads;
                    return new Sample(measured * 1e9 / elapsed, (double) allocated / measured);
                }
            });
        } finally {
            Files.deleteIfExists(blobFile);
            try (var entries = Files.walk(root)) {
                entries.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
    }

    private static long read(Blob blob, IoBuffer into, long offset, boolean buffer) {
        if (buffer) {
            blob.readInto(offset, into, 0, BLOCK).await();
            return into.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, offset & (BLOCK - 1));
        }
        return blob.readAt(offset, BLOCK).await()[(int) (offset & (BLOCK - 1)) & (BLOCK - 1)];
    }

    private static Sample fileChannel(Path file, long[] offsets, int warmupReads) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer buffer = ByteBuffer.allocateDirect(BLOCK);
            long checksum = 0;
            for (int i = 0; i < warmupReads; i++) {
                buffer.clear();
                channel.read(buffer, offsets[i]);
                checksum += buffer.get(0);
            }
            long allocatedBefore = THREADS.getTotalThreadAllocatedBytes();
            long started = System.nanoTime();
            for (int i = warmupReads; i < offsets.length; i++) {
                buffer.clear();
                channel.read(buffer, offsets[i]);
                checksum += buffer.get(0);
            }
            long elapsed = System.nanoTime() - started;
            long allocated = THREADS.getTotalThreadAllocatedBytes() - allocatedBefore;
            if (checksum == 42) {
                System.out.print("");
            }
            int measured = offsets.length - warmupReads;
            return new Sample(measured * 1e9 / elapsed, (double) allocated / measured);
        }
    }
}
