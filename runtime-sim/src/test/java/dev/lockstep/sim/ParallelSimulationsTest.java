package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Context;
import dev.lockstep.Handle;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Simulations side by side in one JVM (the demo's sweep runs one per core) never see each other as determinism
 * leaks. Their fibers share objects the JDK locks inside its own calls — a {@link PrintStream} (a
 * {@code ReentrantLock}), a {@link LinkedBlockingQueue} (another), a synchronized list (a monitor) — and contend
 * for them all the time, on several threads at once, round after round: every seed still passes with the digest
 * it has alone. The rounds matter: the lock's hand-over leaves late, spurious unparks behind (a queued thread is
 * unparked after it already took the lock by retrying), and one that lands on a fiber parked in Lockstep must
 * change nothing. Before that was absorbed, about one seed in a few hundred failed here as a leak.
 */
class ParallelSimulationsTest {

    private static final int THREADS = 6;
    private static final int SEEDS_PER_THREAD = 4;
    private static final int ROUNDS = 30;

    /** A stream slow enough that several simulations' fibers are often inside it at once. */
    private static final class SlowSink extends OutputStream {
        final AtomicLong bytes = new AtomicLong();

        @Override
        public void write(int b) {
            bytes.incrementAndGet();
            long until = System.nanoTime() + 200;
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }
        }
    }

    /** What every simulation shares. */
    private record Shared(PrintStream out, LinkedBlockingQueue<Long> queue, List<Long> list) {
    }

    private static String run(long seed, Shared shared) {
        SimRunner runner = SimRunner.seeded(seed);
        runner.start((Context ctx) -> {
            List<Handle<Void>> fibers = new ArrayList<>();
            for (int f = 0; f < 3; f++) {
                int id = f;
                fibers.add(ctx.child("sharer" + f).spawn(c -> {
                    for (int line = 0; line < 12; line++) {
                        for (int repeat = 0; repeat < 4; repeat++) {
                            shared.out().println("seed " + seed + " fiber " + id + " line " + line);
                        }
                        shared.queue().offer(seed);
                        shared.queue().poll();
                        shared.list().add(seed);
                        c.sleep(Duration.ofNanos(10_000 + id * 1_000));
                    }
                    return null;
                }));
            }
            for (Handle<Void> fiber : fibers) {
                fiber.await();
            }
            return null;
        });
        return runner.digest();
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void simulationsSharingJdkLocksPassWithTheirOwnDigests() throws Exception {
        SlowSink sink = new SlowSink();
        Shared shared = new Shared(new PrintStream(sink, true), new LinkedBlockingQueue<>(),
                Collections.synchronizedList(new ArrayList<>()));
        int seeds = THREADS * SEEDS_PER_THREAD;
        Map<Long, String> alone = new TreeMap<>();
        for (long seed = 1; seed <= seeds; seed++) {
            alone.put(seed, run(seed, shared));
        }
        List<String> failures = new CopyOnWriteArrayList<>();
        CyclicBarrier together = new CyclicBarrier(THREADS);
        for (int round = 0; round < ROUNDS && failures.isEmpty(); round++) {
            Map<Long, String> digests = new ConcurrentHashMap<>();
            List<Thread> sweeps = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                long first = t * SEEDS_PER_THREAD + 1L;
                int r = round;
                sweeps.add(Thread.ofPlatform().name("sweep-" + t).start(() -> {
                    try {
                        together.await();
                        for (long seed = first; seed < first + SEEDS_PER_THREAD; seed++) {
                            digests.put(seed, run(seed, shared));
                        }
                    } catch (Throwable failure) {
                        failures.add("round " + r + ": " + failure);
                    }
                }));
            }
            for (Thread sweep : sweeps) {
                sweep.join();
            }
            if (failures.isEmpty()) {
                assertEquals(alone, new TreeMap<>(digests), "round " + round + ": every seed has its digest alone");
            }
        }
        assertEquals(List.of(), failures, "no seed failed while other simulations ran beside it");
        assertTrue(sink.bytes.get() > 0);
        shared.list().clear();
    }
}
