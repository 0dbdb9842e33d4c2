package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Context;
import dev.lockstep.Handle;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Simulations side by side in one JVM (the demo's sweep runs one per core) do not see each other as determinism
 * leaks: fibers of two simulations printing through one shared {@link PrintStream}, which the JDK locks inside
 * each call, contend for its lock all the time, and every seed still passes with the digest it has alone.
 */
class ParallelSimulationsTest {

    private static final int SEEDS = 20;

    /** A stream slow enough that two simulations' fibers are often inside it at once. */
    private static final class SlowSink extends OutputStream {
        final AtomicLong bytes = new AtomicLong();

        @Override
        public void write(int b) {
            bytes.incrementAndGet();
            long until = System.nanoTime() + 2_000;
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }
        }
    }

    private static String run(long seed, PrintStream out) {
        SimRunner runner = SimRunner.seeded(seed);
        runner.start((Context ctx) -> {
            List<Handle<Void>> printers = new ArrayList<>();
            for (int f = 0; f < 3; f++) {
                int id = f;
                printers.add(ctx.child("printer" + f).spawn(c -> {
                    for (int line = 0; line < 20; line++) {
                        out.println("seed " + seed + " printer " + id + " line " + line);
                        c.sleep(Duration.ofNanos(10_000 + id * 1_000));
                    }
                    return null;
                }));
            }
            for (Handle<Void> printer : printers) {
                printer.await();
            }
            return null;
        });
        return runner.digest();
    }

    @Test
    void twoSimulationsPrintingToOneStreamPassWithTheirOwnDigests() throws InterruptedException {
        SlowSink sink = new SlowSink();
        PrintStream shared = new PrintStream(sink, true);
        Map<Long, String> alone = new ConcurrentHashMap<>();
        for (long seed = 1; seed <= SEEDS; seed++) {
            alone.put(seed, run(seed, shared));
        }
        Map<Long, String> together = new ConcurrentHashMap<>();
        List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> sweeps = new ArrayList<>();
        for (int half = 0; half < 2; half++) {
            long first = half * (SEEDS / 2) + 1;
            sweeps.add(Thread.ofPlatform().name("sweep-" + half).start(() -> {
                try {
                    start.await();
                    for (long seed = first; seed < first + SEEDS / 2; seed++) {
                        together.put(seed, run(seed, shared));
                    }
                } catch (Throwable failure) {
                    failures.add(failure);
                }
            }));
        }
        start.countDown();
        for (Thread sweep : sweeps) {
            sweep.join();
        }
        assertEquals(List.of(), failures, "no seed failed while another simulation ran beside it");
        assertEquals(alone, together, "every seed has the digest it has alone");
        assertTrue(sink.bytes.get() > 0);
    }
}
