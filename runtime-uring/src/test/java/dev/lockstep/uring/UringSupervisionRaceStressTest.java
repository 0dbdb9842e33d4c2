package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.ClosedException;
import dev.lockstep.Context;
import dev.lockstep.Handle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A task that ends on one worker while the fiber awaiting its handle runs on another: once {@code await} returns,
 * the end has aborted every node below the spawning context, so a spawn into that subtree is refused (its body
 * never runs). The awaiter is woken across threads, so only real workers race the handle's outcome against the
 * supervision tree's update.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // hang guard only
class UringSupervisionRaceStressTest {
    private static final int MAX_ROUNDS = 20_000;

    @Test
    void aSpawnIntoASubtreeWhoseSpawnerEndedOnAnotherWorkerNeverRuns() {
        List<String> violations = new ArrayList<>();
        int rounds = UringRunner.builder().workers(2).ringEntries(8).build().start(ctx -> {
            long start = System.nanoTime();
            int round = 0;
            while (round < MAX_ROUNDS && System.nanoTime() - start < StressBudget.nanos() && violations.isEmpty()) {
                Context parent = ctx.child("parent" + round);
                Context below = parent.child("below");
                parent.spawnOn(1, p -> null).await(); // its end aborts every node below parent
                AtomicBoolean ran = new AtomicBoolean();
                Handle<Void> late = below.spawnOn(round % 2, c -> {
                    ran.set(true);
                    return null;
                });
                try {
                    late.await();
                    violations.add("round " + round + ": the late spawn succeeded");
                } catch (ClosedException expected) {
                    if (ran.get()) {
                        violations.add("round " + round + ": the late spawn's body ran");
                    }
                }
                round++;
            }
            return round;
        });
        assertEquals(List.of(), violations);
        assertTrue(rounds > 0, "no round ran");
    }
}
