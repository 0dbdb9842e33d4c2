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
        while (System.nanoTime() - start < TimeUnit.SECONDS.toNanos(Long.getLong("lockstep.stress.seconds", 6))
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
}
