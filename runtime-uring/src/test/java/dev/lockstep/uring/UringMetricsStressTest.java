package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.lockstep.Blob;
import dev.lockstep.Handle;
import dev.lockstep.spi.Meter;
import dev.lockstep.spi.MetricsSink;
import dev.lockstep.sync.Channel;
import dev.lockstep.sync.OneShot;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The metrics where threads meet: four workers write and wake each other across workers (every wake a foreign
 * resume, counted on the woken worker's queue by the waking thread), while a plain thread reads every meter in a
 * loop. What a reader relies on: a counter read from another thread never goes back, a gauge is never negative, and
 * the final counts are exactly what the tasks did.
 */
class UringMetricsStressTest {
    private static final int WORKERS = 4;
    private static final int ROUNDS = 100;

    @Test
    void metersReadFromAPlainThreadDuringARunNeverGoBackAndEndExact(@TempDir Path data) throws Exception {
        AtomicBoolean running = new AtomicBoolean(true);
        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        OneShot<Void> readOnce = new OneShot<>();
        List<Meter> captured = new ArrayList<>();
        Thread[] reader = new Thread[1];
        MetricsSink sink = meters -> {
            captured.addAll(meters);
            reader[0] = Thread.ofPlatform().name("meter-reader").start(() -> readUntilStopped(meters, running,
                    violations, readOnce));
        };
        UringRunner runner = UringRunner.builder().workers(WORKERS).storage(data).metrics(sink).build();
        try {
            runner.start(ctx -> {
                // A ring of channels: worker w's task writes, then hands a token to worker w + 1's task, so every
                // hand-over wakes a fiber of another worker.
                List<Channel<Integer>> tokens = new ArrayList<>();
                for (int w = 0; w < WORKERS; w++) {
                    tokens.add(Channel.bounded(1));
                }
                List<Handle<Void>> tasks = new ArrayList<>();
                for (int w = 0; w < WORKERS; w++) {
                    int worker = w;
                    tasks.add(ctx.child("writer" + worker).spawnOn(worker, task -> {
                        try (Blob blob = task.open("stress", "w" + worker).await().blob()) {
                            for (int round = 0; round < ROUNDS; round++) {
                                if (worker != 0 || round != 0) {
                                    tokens.get(worker).receive().await();
                                }
                                blob.writeAt((long) round * 100, new byte[100]).await();
                                tokens.get((worker + 1) % WORKERS).send(round).await();
                            }
                        }
                        return null;
                    }));
                }
                for (Handle<Void> task : tasks) {
                    task.await();
                }
                // The run ends only once the reader has read every meter at least once while the workers are up,
                // so its checks ran against a live run however the reader thread was scheduled.
                readOnce.get().await();
                return null;
            });
        } finally {
            running.set(false);
            if (reader[0] != null) {
                reader[0].join();
            }
        }
        assertEquals(List.of(), List.copyOf(violations));
        long written = captured.stream()
                .filter(meter -> meter.name().equals("lockstep.storage.bytes")
                        && meter.tags().get("kind").equals("write"))
                .mapToLong(meter -> ((Meter.Counter) meter).count().getAsLong()).sum();
        assertEquals((long) WORKERS * ROUNDS * 100, written);
        for (Meter meter : captured) {
            if (meter instanceof Meter.Gauge gauge) {
                assertEquals(0, gauge.value().getAsLong(), meter.name() + meter.tags() + " once the run ended");
            }
        }
    }

    private static void readUntilStopped(List<Meter> meters, AtomicBoolean running,
                                         ConcurrentLinkedQueue<String> violations, OneShot<Void> readOnce) {
        Map<Meter, Long> last = new HashMap<>();
        while (running.get()) {
            for (Meter meter : meters) {
                long value = switch (meter) {
                    case Meter.Counter counter -> counter.count().getAsLong();
                    case Meter.Gauge gauge -> gauge.value().getAsLong();
                    case Meter.Timer timer -> timer.count().getAsLong();
                };
                if (meter instanceof Meter.Gauge) {
                    if (value < 0) {
                        violations.add(meter.name() + meter.tags() + " read " + value);
                    }
                } else {
                    Long before = last.put(meter, value);
                    if (before != null && value < before) {
                        violations.add(meter.name() + meter.tags() + " went back from " + before + " to " + value);
                    }
                }
            }
            readOnce.complete(null); // after the first full pass; later calls change nothing
            // Paces the reader so that the workers keep the two cores of a small machine: not an ordering.
            java.util.concurrent.locks.LockSupport.parkNanos(50_000);
        }
    }
}
