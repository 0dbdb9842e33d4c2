package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.lockstep.Blob;
import dev.lockstep.ClosedException;
import dev.lockstep.Handle;
import dev.lockstep.OpenOptions;
import dev.lockstep.OpenedBlob;
import dev.lockstep.StorageFullException;
import dev.lockstep.WriteOptions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Appends and syncs of many fibers racing a close, a resize, a remove and a full file system: every acknowledged
 * append is in the file afterwards, every failure is typed, nothing hangs and no descriptor is left open. Each case
 * races for the {@link StressBudget}.
 */
class UringStorageRaceStressTest {
    private static final int FIBERS = 64;

    @TempDir
    Path directory;

    private static Path tmpfs;

    @BeforeAll
    static void mount() throws Exception {
        Path mountPoint = Files.createTempDirectory("lockstep-full-tmpfs");
        if (run("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint.toString()) == 0) {
            tmpfs = mountPoint;
        } else {
            Files.delete(mountPoint);
        }
    }

    @AfterAll
    static void unmount() throws Exception {
        if (tmpfs != null) {
            int code = run("umount", tmpfs.toString());
            if (code != 0) {
                run("umount", "-l", tmpfs.toString());
            }
            Files.delete(tmpfs);
            assertEquals(0, code, "umount of the tmpfs failed: something still holds a file there");
        }
    }

    private static int run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getOutputStream().close();
        try (InputStream output = process.getInputStream()) {
            output.readAllBytes();
        }
        return process.waitFor();
    }

    private record Ack(long offset, int fiber, int seq) {
    }

    static byte[] record(int length, int fiber, int seq) {
        byte[] bytes = new byte[length];
        new SplittableRandom(((long) fiber << 32) ^ seq ^ 0x9E3779B97F4A7C15L).nextBytes(bytes);
        bytes[0] = (byte) fiber;
        bytes[1] = (byte) seq;
        return bytes;
    }

    private static void verify(Path root, String partition, String name, int recordLength,
                               ConcurrentLinkedQueue<Ack> acks, AtomicReference<String> problem) {
        if (acks.isEmpty()) {
            return;
        }
        UringRunner.builder().workers(1).storage(root).build().start(ctx -> {
            OpenedBlob opened = ctx.open(partition, name).await();
            try (Blob blob = opened.blob()) {
                for (Ack ack : acks) {
                    if (ack.offset + recordLength > opened.length()) {
                        problem.compareAndSet(null, name + ": acknowledged record " + ack + " past the end "
                                + opened.length());
                        return null;
                    }
                    byte[] read = blob.readAt(ack.offset, recordLength).await();
                    if (!java.util.Arrays.equals(read, record(recordLength, ack.fiber, ack.seq))) {
                        problem.compareAndSet(null, name + ": acknowledged record " + ack + " not in the file");
                        return null;
                    }
                }
            }
            return null;
        });
    }

    private static boolean typed(Throwable failure) {
        return failure instanceof ClosedException;
    }

    /** (1) 64 fibers append and sync one log; a plain thread closes the blob at a random moment. */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void appendsAndSyncsRacingACloseKeepEveryAcknowledgedRecord() {
        closeRace(OpenOptions.NONE, 3);
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void directAppendsAndSyncsRacingACloseKeepEveryAcknowledgedRecord() {
        closeRace(OpenOptions.DIRECT, 2);
    }

    private void closeRace(OpenOptions options, int workers) {
        AtomicReference<String> problem = new AtomicReference<>();
        AtomicInteger rounds = new AtomicInteger();
        AtomicLong acked = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        SplittableRandom random = new SplittableRandom(42);
        long start = System.nanoTime();
        while (System.nanoTime() - start < StressBudget.nanos() && problem.get() == null) {
            int round = rounds.getAndIncrement();
            String name = "log" + round;
            ConcurrentLinkedQueue<Ack> acks = new ConcurrentLinkedQueue<>();
            long closeAfterMicros = random.nextLong(20_000);
            int[] recordLength = new int[1];
            UringRunner.builder().workers(workers).ringEntries(16).storage(directory).build().start(ctx -> {
                Blob blob = ctx.open("p", name, options).await().blob();
                int length = blob.directAlignment() == 0 ? 100 : blob.directAlignment();
                recordLength[0] = length;
                AtomicLong next = new AtomicLong();
                AtomicInteger started = new AtomicInteger();
                RacingCloser closer = RacingCloser.start(() -> started.get() >= FIBERS / 2, closeAfterMicros * 1000,
                        blob::close);
                List<Handle<Void>> handles = new ArrayList<>();
                for (int f = 0; f < FIBERS; f++) {
                    int fiber = f;
                    handles.add(ctx.child("w" + f).spawnOn(f % workers, c -> {
                        started.incrementAndGet();
                        try {
                            for (int seq = 0; ; seq++) {
                                long offset = next.getAndAdd(length);
                                byte[] bytes = record(length, fiber, seq);
                                switch ((fiber + seq) % 3) {
                                    case 0 -> {
                                        blob.writeAt(offset, bytes).await();
                                        blob.sync().await();
                                    }
                                    case 1 -> {
                                        blob.writeAt(offset, new byte[][] {bytes}, WriteOptions.SYNC).await();
                                    }
                                    default -> {
                                        blob.writeAt(offset, bytes).await();
                                        blob.startSync().await();
                                    }
                                }
                                acks.add(new Ack(offset, fiber, seq));
                                acked.incrementAndGet();
                            }
                        } catch (Throwable failure) {
                            if (typed(failure)) {
                                refused.incrementAndGet();
                            } else {
                                problem.compareAndSet(null, "fiber " + fiber + " ended with " + failure);
                            }
                        }
                        return null;
                    }));
                }
                for (Handle<Void> handle : handles) {
                    handle.await();
                }
                String gaveUp = closer.join();
                if (gaveUp != null) {
                    problem.compareAndSet(null, "round " + round + ": " + gaveUp);
                }
                return null;
            });
            verify(directory, "p", name, recordLength[0], acks, problem);
        }
        System.out.println(options + " close race: rounds " + rounds.get() + ", acknowledged appends " + acked.get()
                + ", fibers refused by the close " + refused.get());
        assertNull(problem.get());
    }

    /** (2) Writes and syncs below a fixed mark while another fiber resizes the blob above it. */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void writesAndSyncsRacingResizes() {
        AtomicReference<String> problem = new AtomicReference<>();
        AtomicLong acked = new AtomicLong();
        AtomicLong resizes = new AtomicLong();
        AtomicInteger rounds = new AtomicInteger();
        int recordLength = 100;
        int slots = 256;
        long mark = (long) slots * recordLength;
        long start = System.nanoTime();
        List<String> lengthMismatches = new ArrayList<>();
        while (System.nanoTime() - start < StressBudget.nanos() && problem.get() == null) {
            int round = rounds.getAndIncrement();
            String name = "resize" + round;
            ConcurrentLinkedQueue<Ack> acks = new ConcurrentLinkedQueue<>();
            long[] lengths = UringRunner.builder().workers(3).ringEntries(16).storage(directory).build()
                    .start(ctx -> {
                        Blob blob = ctx.open("p", name).await().blob();
                        try {
                            AtomicInteger writersLeft = new AtomicInteger(8);
                            List<Handle<Void>> handles = new ArrayList<>();
                            for (int f = 0; f < 8; f++) {
                                int fiber = f;
                                handles.add(ctx.child("w" + f).spawnOn(f % 3, c -> {
                                    try {
                                        for (int seq = 0; seq < slots / 8; seq++) {
                                            long offset = (long) (seq * 8 + fiber) * recordLength;
                                            blob.writeAt(offset, record(recordLength, fiber, seq)).await();
                                            // a write past the mark, to race the resizer's truncates
                                            blob.writeAt(mark + seq * 7L, new byte[] {1, 2, 3}).await();
                                            blob.sync().await();
                                            acks.add(new Ack(offset, fiber, seq));
                                            acked.incrementAndGet();
                                        }
                                    } catch (Throwable failure) {
                                        problem.compareAndSet(null, "writer " + fiber + ": " + failure);
                                    } finally {
                                        writersLeft.decrementAndGet();
                                    }
                                    return null;
                                }));
                            }
                            handles.add(ctx.child("resizer").spawnOn(2, c -> {
                                SplittableRandom random = new SplittableRandom(round);
                                try {
                                    while (writersLeft.get() > 0) {
                                        blob.resize(mark + random.nextInt(4096)).await();
                                        resizes.incrementAndGet();
                                        if (random.nextBoolean()) {
                                            blob.sync().await();
                                        }
                                    }
                                } catch (Throwable failure) {
                                    problem.compareAndSet(null, "resizer: " + failure);
                                }
                                return null;
                            }));
                            for (Handle<Void> handle : handles) {
                                handle.await();
                            }
                            blob.sync().await();
                            return new long[] {blob.length()};
                        } finally {
                            blob.close();
                        }
                    });
            long[] reopened = UringRunner.builder().workers(1).storage(directory).build()
                    .start(ctx -> {
                        OpenedBlob o = ctx.open("p", name).await();
                        o.blob().close();
                        return new long[] {o.length()};
                    });
            if (lengths[0] != reopened[0]) {
                lengthMismatches.add(name + ": blob.length() " + lengths[0] + " but the file has " + reopened[0]);
            }
            verify(directory, "p", name, recordLength, acks, problem);
        }
        System.out.println("resize race: rounds " + rounds.get() + ", acknowledged writes " + acked.get()
                + ", resizes " + resizes.get() + ", length() mismatches " + lengthMismatches.size() + " "
                + lengthMismatches.stream().limit(3).toList());
        assertNull(problem.get());
    }

    /** (3) Appends and syncs into a 1 MiB tmpfs until it is full. */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void appendsIntoAFullTmpfsFailTypedAndKeepEveryAcknowledgedRecord() throws IOException {
        assumeTrue(tmpfs != null, "no tmpfs");
        AtomicReference<String> problem = new AtomicReference<>();
        AtomicLong acked = new AtomicLong();
        AtomicLong full = new AtomicLong();
        AtomicInteger rounds = new AtomicInteger();
        int recordLength = 3000; // straddles pages: short writes before ENOSPC
        long start = System.nanoTime();
        while (System.nanoTime() - start < StressBudget.nanos() && problem.get() == null) {
            int round = rounds.getAndIncrement();
            Path root = tmpfs.resolve("r" + round);
            ConcurrentLinkedQueue<Ack> acks = new ConcurrentLinkedQueue<>();
            UringRunner.builder().workers(2).ringEntries(16).storage(root).build().start(ctx -> {
                Blob blob = ctx.open("p", "log").await().blob();
                try {
                    AtomicLong next = new AtomicLong();
                    List<Handle<Void>> handles = new ArrayList<>();
                    for (int f = 0; f < 16; f++) {
                        int fiber = f;
                        handles.add(ctx.child("w" + f).spawnOn(f % 2, c -> {
                            int failures = 0;
                            for (int seq = 0; seq < 1000 && failures < 3; seq++) {
                                long offset = next.getAndAdd(recordLength);
                                try {
                                    if (seq % 2 == 0) {
                                        blob.writeAt(offset, record(recordLength, fiber, seq)).await();
                                        blob.sync().await();
                                    } else {
                                        blob.writeAt(offset, new byte[][] {record(recordLength, fiber, seq)},
                                                WriteOptions.SYNC).await();
                                    }
                                    acks.add(new Ack(offset, fiber, seq));
                                    acked.incrementAndGet();
                                } catch (StorageFullException expected) {
                                    full.incrementAndGet();
                                    failures++;
                                } catch (Throwable other) {
                                    problem.compareAndSet(null, "fiber " + fiber + ": " + other);
                                    return null;
                                }
                            }
                            return null;
                        }));
                    }
                    for (Handle<Void> handle : handles) {
                        handle.await();
                    }
                } finally {
                    blob.close();
                }
                return null;
            });
            verify(root, "p", "log", recordLength, acks, problem);
            try (var files = Files.walk(root)) {
                for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
        System.out.println("full tmpfs: rounds " + rounds.get() + ", acknowledged " + acked.get()
                + ", StorageFullException " + full.get());
        assertNull(problem.get());
    }

    /** (4) A blob removed while fibers write and sync it. */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void removeWhileWritingAndSyncing() {
        AtomicReference<String> problem = new AtomicReference<>();
        AtomicLong acked = new AtomicLong();
        AtomicInteger rounds = new AtomicInteger();
        AtomicLong closedRefusals = new AtomicLong();
        SplittableRandom random = new SplittableRandom(9);
        long start = System.nanoTime();
        while (System.nanoTime() - start < StressBudget.nanos() && problem.get() == null) {
            int round = rounds.getAndIncrement();
            String name = "rm" + round;
            long removeAfterMicros = random.nextLong(5000);
            boolean alsoClose = random.nextBoolean();
            UringRunner.builder().workers(2).ringEntries(16).storage(directory).build().start(ctx -> {
                Blob blob = ctx.open("p", name).await().blob();
                AtomicInteger stop = new AtomicInteger();
                List<Handle<Void>> handles = new ArrayList<>();
                for (int f = 0; f < 8; f++) {
                    int fiber = f;
                    handles.add(ctx.child("w" + f).spawnOn(f % 2, c -> {
                        try {
                            for (int seq = 0; stop.get() == 0 || seq < 50; seq++) {
                                blob.writeAt((long) (seq * 8 + fiber) * 64, record(64, fiber, seq)).await();
                                blob.sync().await();
                                acked.incrementAndGet();
                                if (seq > 5000) {
                                    break;
                                }
                            }
                        } catch (ClosedException closed) {
                            closedRefusals.incrementAndGet();
                        } catch (Throwable other) {
                            problem.compareAndSet(null, "fiber " + fiber + ": " + other);
                        }
                        return null;
                    }));
                }
                Handle<Void> remover = ctx.child("remover").spawnOn(1, c -> {
                    long until = System.nanoTime() + removeAfterMicros * 1000;
                    while (System.nanoTime() < until) {
                        Thread.onSpinWait();
                    }
                    try {
                        ctx.remove("p", name.getBytes(StandardCharsets.UTF_8)).await();
                        if (alsoClose) {
                            blob.close();
                        }
                    } catch (Throwable other) {
                        problem.compareAndSet(null, "remove: " + other);
                    }
                    stop.set(1);
                    return null;
                });
                remover.await();
                for (Handle<Void> handle : handles) {
                    handle.await();
                }
                blob.close();
                OpenedBlob fresh = ctx.open("p", name).await();
                fresh.blob().close();
                if (fresh.length() != 0) {
                    problem.compareAndSet(null, name + " reopened after remove has length " + fresh.length());
                }
                return null;
            });
        }
        System.out.println("remove race: rounds " + rounds.get() + ", acknowledged " + acked.get()
                + ", closed refusals " + closedRefusals.get());
        assertNull(problem.get());
    }
}
