package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.lockstep.Operation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The runner shuts down while fibers on every worker wait in sleeps and plain threads poll and close the
 * workers' operations during and after the shutdown: every start returns, and no fd is left behind.
 */
class UringShutdownInFlightStressTest {
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shutdownWithWorkInFlightAndForeignPollsAndClosesEnds() throws Exception {
        int fdsBefore = OpenDescriptors.fdCount();
        long start = System.nanoTime();
        int runs = 0;
        while (System.nanoTime() - start < StressBudget.nanos()
                && runs < 400) {
            List<Thread> foreign = new ArrayList<>();
            UringRunner.builder().workers(3).ringEntries(8).build().start(ctx -> {
                for (int w = 0; w < 3; w++) {
                    ctx.child("sleeper" + w).spawnOn(w, s -> {
                        s.sleep(Duration.ofMinutes(5));
                        return null;
                    });
                    Operation<Void> op = ctx.child("make" + w).spawnOn(w, m -> m.sleeper(Duration.ofMinutes(5)))
                            .await();
                    foreign.add(Thread.ofPlatform().start(() -> {
                        for (int i = 0; i < 50; i++) {
                            op.poll(() -> { });
                            Thread.onSpinWait();
                        }
                        op.close();
                    }));
                }
                return null;
            });
            for (Thread thread : foreign) {
                thread.join();
            }
            runs++;
        }
        System.out.println("shutdown runs " + runs);
        assertEquals(fdsBefore, OpenDescriptors.fdCount(), "fds leaked: " + OpenDescriptors.fds());
    }

    /**
     * The runner shuts down while a fiber on worker 1 spawns children on workers 0 and 2 as fast as it can: a
     * child is run or refused, never started on a worker whose thread already ended (queued to nobody, it would
     * never run; see Worker.countFiber). The runner checks that every fiber it started has finished once its
     * workers have ended, and fails the run if not: so every run here must end as its root did.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void childrenSpawnedAcrossWorkersAsTheRunnerShutsDownAreRunOrRefused() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(7);
        long start = System.nanoTime();
        int runs = 0;
        long children = 0;
        while (System.nanoTime() - start < StressBudget.nanos()
                && runs < 2000) {
            Duration lifetime = Duration.ofNanos(random.nextLong(300_000));
            java.util.concurrent.atomic.AtomicLong spawned = new java.util.concurrent.atomic.AtomicLong();
            String outcome = UringRunner.builder().workers(3).ringEntries(8).build().start(ctx -> {
                ctx.child("spawner").spawnOn(1, spawner -> {
                    for (int i = 0; ; i++) {
                        var child = spawner.child("c" + i).spawnOn((i & 1) * 2, c -> null);
                        spawned.incrementAndGet();
                        if ((i & 7) == 7) {
                            child.await(); // throws once the shutdown aborted this fiber, ending the loop
                        }
                    }
                });
                ctx.sleep(lifetime);
                return "done";
            });
            assertEquals("done", outcome);
            children += spawned.get();
            runs++;
        }
        System.out.println("spawn-at-shutdown runs " + runs + ", children " + children);
    }
}
