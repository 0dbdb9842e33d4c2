package dev.lockstep.bench;

import com.sun.nio.file.ExtendedOpenOption;
import dev.lockstep.Handle;
import dev.lockstep.engine.RawTransfer;
import dev.lockstep.engine.worker.Worker;
import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.SystemCalls;
import dev.lockstep.uring.LinuxSystemCalls;
import dev.lockstep.uring.UringRunner;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * 4 KiB random reads with {@code O_DIRECT} from one file, at queue depth 1 and 32, three ways in one run:
 *
 * <ol>
 *   <li><b>Lockstep</b>: one {@link UringRunner} worker; {@code depth} fibers on it, each registering one read
 *       at a time with {@link Worker#register} and awaiting it. The public {@code Blob} API has no direct-I/O
 *       option and copies into a {@code byte[]}, so this drives the engine below it: a raw {@link RawTransfer}
 *       (runtime-core's test fixture) on an fd opened with {@code O_DIRECT} through {@link LinuxSystemCalls}, reading into a
 *       4096-aligned buffer from an {@link Arena}. It measures the ring path — admission to the driver, the
 *       submission, one {@code io_uring_enter} per loop turn, the completion, the fiber's park and resume —
 *       not the {@code Blob} layer.</li>
 *   <li><b>fio</b> with {@code --ioengine=io_uring --direct=1 --rw=randread --bs=4k --iodepth=N
 *       --numjobs=1} on the same file, as the reference for what the device and kernel give.</li>
 *   <li><b>FileChannel</b> opened with {@link ExtendedOpenOption#DIRECT}: positional reads into an aligned
 *       direct buffer from 1 platform thread (depth 1) or 32 platform threads (depth 32).</li>
 * </ol>
 *
 * <p>Each case runs a warm-up (not recorded) and then a fixed measuring window; latency is taken per read from
 * before the request is issued to after its result is back in the caller (fio: {@code lat}, submission to
 * completion). The file is created once with random contents (so no read hits a hole) and reused.
 *
 * <p>Usage: {@code DirectReadBenchmark [--file PATH] [--size-mib N] [--seconds S] [--warmup-seconds S]
 * [--fio PATH] [--engines lockstep,fio,filechannel] [--depths 1,32]}; prints a Markdown table. The defaults
 * (a 1 GiB file under {@code /tmp/lockstep-bench}, 10 s after a 2 s warm-up, every engine at depths 1 and 32) are
 * the run recorded in {@code BENCHMARKS.md}.
 */
public final class DirectReadBenchmark {
    private static final int BLOCK = 4096;
    private static final long HIGHEST_LATENCY_NANOS = TimeUnit.SECONDS.toNanos(10);

    private DirectReadBenchmark() {
    }

    /** One measured case. */
    record Result(String engine, int depth, long reads, double seconds, double p50Micros, double p99Micros) {
        double iops() {
            return reads / seconds;
        }
    }

    /** Settings from the command line. */
    record Settings(Path file, long bytes, int seconds, int warmupSeconds, String fio, List<String> engines,
                    int[] depths) {
        long blocks() {
            return bytes / BLOCK;
        }
    }

    public static void main(String[] args) throws Exception {
        Settings settings = parse(args);
        prepareFile(settings.file, settings.bytes);
        List<Result> results = new ArrayList<>();
        for (int depth : settings.depths) {
            if (settings.engines.contains("lockstep")) {
                results.add(lockstep(settings, depth));
            }
            if (settings.engines.contains("lockstep-api")) {
                results.add(lockstepApi(settings, depth));
            }
            if (settings.engines.contains("fio")) {
                results.add(fio(settings, depth));
            }
            if (settings.engines.contains("filechannel")) {
                results.add(fileChannel(settings, depth));
            }
        }
        System.out.println(machine(settings));
        System.out.println();
        System.out.println("| engine | queue depth | IOPS | p50 latency (µs) | p99 latency (µs) | reads |");
        System.out.println("|---|---:|---:|---:|---:|---:|");
        for (Result result : results) {
            System.out.printf(Locale.ROOT, "| %s | %d | %,.0f | %.1f | %.1f | %,d |%n", result.engine, result.depth,
                    result.iops(), result.p50Micros, result.p99Micros, result.reads);
        }
    }

    private static Settings parse(String[] args) {
        Path file = Path.of("/tmp/lockstep-bench/randread-1g.dat");
        long mib = 1024;
        int seconds = 10;
        int warmup = 2;
        String fio = "fio";
        List<String> engines = List.of("lockstep", "fio", "filechannel");
        int[] depths = {1, 32};
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--file" -> file = Path.of(value);
                case "--size-mib" -> mib = Long.parseLong(value);
                case "--seconds" -> seconds = Integer.parseInt(value);
                case "--warmup-seconds" -> warmup = Integer.parseInt(value);
                case "--fio" -> fio = value;
                case "--engines" -> engines = List.of(value.split(","));
                case "--depths" -> depths = java.util.Arrays.stream(value.split(",")).mapToInt(Integer::parseInt)
                        .toArray();
                default -> throw new IllegalArgumentException("unknown argument " + args[i] + "; known: --file PATH"
                        + " --size-mib N --seconds S --warmup-seconds S --fio PATH"
                        + " --engines lockstep,fio,filechannel --depths 1,32");
            }
            i++;
        }
        if (mib < 1 || seconds < 1 || warmup < 0) {
            throw new IllegalArgumentException("size, seconds and warm-up must be positive, were " + mib + " MiB, "
                    + seconds + " s, " + warmup + " s");
        }
        return new Settings(file, mib << 20, seconds, warmup, fio, engines, depths);
    }

    /** Creates the file with random bytes unless it already has the asked size. */
    private static void prepareFile(Path file, long bytes) throws IOException {
        if (Files.exists(file) && Files.size(file) == bytes) {
            return;
        }
        Files.createDirectories(file.toAbsolutePath().getParent());
        SplittableRandom random = new SplittableRandom(42);
        byte[] chunk = new byte[1 << 20];
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            for (long written = 0; written < bytes; written += chunk.length) {
                random.nextBytes(chunk);
                ByteBuffer buffer = ByteBuffer.wrap(chunk, 0, (int) Math.min(chunk.length, bytes - written));
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
            }
            channel.force(true);
        }
    }

    private static Histogram histogram() {
        return new Histogram(HIGHEST_LATENCY_NANOS, 3);
    }

    private static Result result(String engine, int depth, Histogram latency, double seconds) {
        return new Result(engine, depth, latency.getTotalCount(), seconds,
                latency.getValueAtPercentile(50) / 1000.0, latency.getValueAtPercentile(99) / 1000.0);
    }

    // ---- Lockstep ----

    private static Result lockstep(Settings settings, int depth) {
        long blocks = settings.blocks();
        Histogram merged = UringRunner.builder().workers(1).ringEntries(64).build().start(ctx -> {
            LinuxSystemCalls system = LinuxSystemCalls.instance();
            int fd = system.open(settings.file.toString(), SystemCalls.O_DIRECT);
            try (Arena arena = Arena.ofShared()) {
                long start = System.nanoTime();
                long measureFrom = start + TimeUnit.SECONDS.toNanos(settings.warmupSeconds);
                long until = measureFrom + TimeUnit.SECONDS.toNanos(settings.seconds);
                List<Handle<Histogram>> readers = new ArrayList<>();
                for (int i = 0; i < depth; i++) {
                    MemorySegment buffer = arena.allocate(BLOCK, BLOCK);
                    SplittableRandom random = new SplittableRandom(1000 + i);
                    // spawn places each reader on the current worker: the one worker.
                    readers.add(ctx.child("reader" + i).spawn(c -> {
                        Worker worker = Worker.current();
                        Histogram latency = histogram();
                        while (true) {
                            long begin = System.nanoTime();
                            if (begin >= until) {
                                return latency;
                            }
                            long offset = random.nextLong(blocks) * BLOCK;
                            // The buffer outlives the read: this fiber awaits it before reusing the buffer, and the
                            // arena is closed after every reader finished.
                            int read = worker.<Integer>register(
                                    new RawTransfer(Opcode.READ, fd, buffer, BLOCK, offset)).await();
                            if (read != BLOCK) {
                                throw new IllegalStateException("direct read of " + BLOCK + " bytes at offset "
                                        + offset + " of fd " + fd + " returned "
                                        + (read < 0 ? Errno.describe(-read) : read + " bytes"));
                            }
                            if (begin >= measureFrom) {
                                latency.recordValue(System.nanoTime() - begin);
                            }
                        }
                    }));
                }
                Histogram all = histogram();
                for (Handle<Histogram> reader : readers) {
                    all.add(reader.await());
                }
                return all;
            } finally {
                system.close(fd);
            }
        });
        return result("Lockstep (1 worker, ring path)", depth, merged, settings.seconds);
    }

    /**
     * The public API: the file hard-linked into a fresh storage root as a blob, opened with
     * {@link dev.lockstep.OpenOptions#DIRECT}, each reader fiber reading into an {@link dev.lockstep.IoBuffer} of
     * its worker's pool with {@code Blob.readFully} (the waiting call: no operation handle per read).
     */
    private static Result lockstepApi(Settings settings, int depth) throws IOException {
        long blocks = settings.blocks();
        Path root = Files.createTempDirectory("lockstep-direct");
        Path link = Files.createDirectories(root.resolve("bench")).resolve(
                java.util.HexFormat.of().formatHex("reads".getBytes(StandardCharsets.UTF_8)));
        Files.createLink(link, settings.file);
        try {
            Histogram merged = UringRunner.builder().workers(1).ringEntries(64).storage(root).build().start(ctx -> {
                try (dev.lockstep.Blob blob = ctx.open("bench", "reads", dev.lockstep.OpenOptions.DIRECT).await()
                        .blob()) {
                    long start = System.nanoTime();
                    long measureFrom = start + TimeUnit.SECONDS.toNanos(settings.warmupSeconds);
                    long until = measureFrom + TimeUnit.SECONDS.toNanos(settings.seconds);
                    List<Handle<Histogram>> readers = new ArrayList<>();
                    for (int i = 0; i < depth; i++) {
                        SplittableRandom random = new SplittableRandom(1000 + i);
                        readers.add(ctx.child("reader" + i).spawn(c -> {
                            Histogram latency = histogram();
                            try (dev.lockstep.IoBuffer buffer = c.buffers().allocate(BLOCK)) {
                                while (true) {
                                    long begin = System.nanoTime();
                                    if (begin >= until) {
                                        return latency;
                                    }
                                    blob.readFully(random.nextLong(blocks) * BLOCK, buffer, 0, BLOCK);
                                    if (begin >= measureFrom) {
                                        latency.recordValue(System.nanoTime() - begin);
                                    }
                                }
                            }
                        }));
                    }
                    Histogram all = histogram();
                    for (Handle<Histogram> reader : readers) {
                        all.add(reader.await());
                    }
                    return all;
                }
            });
            return result("Lockstep (1 worker, Blob.readFully, OpenOptions.DIRECT)", depth, merged, settings.seconds);
        } finally {
            Files.deleteIfExists(link);
            Files.deleteIfExists(link.getParent());
            Files.deleteIfExists(root.resolve(".lockstep-hold"));
            Files.deleteIfExists(root);
        }
    }

    // ---- FileChannel ----

    private static Result fileChannel(Settings settings, int depth) throws Exception {
        long blocks = settings.blocks();
        try (FileChannel channel = FileChannel.open(settings.file, StandardOpenOption.READ,
                ExtendedOpenOption.DIRECT)) {
            long start = System.nanoTime();
            long measureFrom = start + TimeUnit.SECONDS.toNanos(settings.warmupSeconds);
            long until = measureFrom + TimeUnit.SECONDS.toNanos(settings.seconds);
            List<Thread> threads = new ArrayList<>();
            List<Histogram> latencies = new ArrayList<>();
            List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
            for (int i = 0; i < depth; i++) {
                Histogram latency = histogram();
                latencies.add(latency);
                SplittableRandom random = new SplittableRandom(2000 + i);
                threads.add(Thread.ofPlatform().name("filechannel-reader-" + i).start(() -> {
                    ByteBuffer buffer = ByteBuffer.allocateDirect(2 * BLOCK).alignedSlice(BLOCK);
                    try {
                        while (true) {
                            long begin = System.nanoTime();
                            if (begin >= until) {
                                return;
                            }
                            long offset = random.nextLong(blocks) * BLOCK;
                            buffer.clear().limit(BLOCK);
                            int read = channel.read(buffer, offset);
                            if (read != BLOCK) {
                                throw new IllegalStateException("read at " + offset + " returned " + read);
                            }
                            if (begin >= measureFrom) {
                                latency.recordValue(System.nanoTime() - begin);
                            }
                        }
                    } catch (Throwable thrown) {
                        failures.add(thrown);
                    }
                }));
            }
            for (Thread thread : threads) {
                thread.join();
            }
            if (!failures.isEmpty()) {
                throw new IllegalStateException("FileChannel reader failed", failures.getFirst());
            }
            Histogram all = histogram();
            latencies.forEach(all::add);
            return result("FileChannel DIRECT (" + depth + (depth == 1 ? " thread)" : " threads)"), depth, all,
                    settings.seconds);
        }
    }

    // ---- fio ----

    private static Result fio(Settings settings, int depth) throws IOException, InterruptedException {
        List<String> command = List.of(settings.fio, "--name=randread", "--filename=" + settings.file,
                "--ioengine=io_uring", "--direct=1", "--rw=randread", "--bs=4k", "--iodepth=" + depth,
                "--numjobs=1", "--size=" + settings.bytes, "--time_based", "--runtime=" + settings.seconds,
                "--ramp_time=" + settings.warmupSeconds, "--norandommap", "--randrepeat=0", "--lat_percentiles=1",
                "--output-format=json");
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        process.getOutputStream().close();
        String output;
        try (InputStream stdout = process.getInputStream()) {
            output = new String(stdout.readAllBytes(), StandardCharsets.UTF_8);
        }
        int exit = process.waitFor();
        if (exit != 0) {
            throw new IllegalStateException(String.join(" ", command) + " exited with " + exit + ":\n" + output);
        }
        // fio may print notes before the JSON document.
        JsonNode read = field(new ObjectMapper().readTree(output.substring(output.indexOf('{'))), "/jobs/0/read");
        double runtimeSeconds = field(read, "/runtime").asDouble() / 1000.0;
        long reads = field(read, "/total_ios").asLong();
        double p50 = field(read, "/lat_ns/percentile/50.000000").asDouble() / 1000.0;
        double p99 = field(read, "/lat_ns/percentile/99.000000").asDouble() / 1000.0;
        return new Result("fio io_uring", depth, reads, runtimeSeconds, p50, p99);
    }

    /** The node at a JSON pointer, or an exception naming the pointer fio's output lacks. */
    private static JsonNode field(JsonNode document, String pointer) {
        JsonNode node = document.at(pointer);
        if (node.isMissingNode()) {
            throw new IllegalStateException("fio's JSON output has no " + pointer);
        }
        return node;
    }

    // ---- the machine ----

    private static String machine(Settings settings) throws IOException, InterruptedException {
        FileStore store = Files.getFileStore(settings.file);
        String cpu = "unknown CPU";
        for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
            if (line.startsWith("model name")) {
                cpu = line.substring(line.indexOf(':') + 1).trim();
                break;
            }
        }
        Process version = new ProcessBuilder(settings.fio, "--version").redirectErrorStream(true).start();
        version.getOutputStream().close();
        String fioVersion;
        try (InputStream stdout = version.getInputStream()) {
            fioVersion = new String(stdout.readAllBytes(), StandardCharsets.UTF_8).trim();
        }
        version.waitFor();
        return String.format(Locale.ROOT, "%d CPUs (%s), Linux %s, %s, %s; file %s (%d MiB) on %s (%s);"
                        + " %d s measured after %d s warm-up per case",
                Runtime.getRuntime().availableProcessors(), cpu, System.getProperty("os.version"),
                "Java " + Runtime.version(), fioVersion, settings.file, settings.bytes >> 20, store.name(),
                store.type(), settings.seconds, settings.warmupSeconds);
    }
}
