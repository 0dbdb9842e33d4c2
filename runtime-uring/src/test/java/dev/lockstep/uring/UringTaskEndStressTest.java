package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Handle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The end of a task wakes no ring when its awaiter is on the same worker (the engine's {@code fiberEnding}); the
 * threads meet when the awaiter is on the other worker, whose wake still goes through its run queue and eventfd,
 * and when the last fiber of a worker ends while the run shuts down. Two workers, tasks spawned onto both and
 * awaited from both, short runs back to back until the budget is spent: every await returns its task's value and
 * every run ends.
 */
class UringTaskEndStressTest {
    private static final int SPAWNERS = 8;
    private static final int TASKS_EACH = 50;

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void tasksEndingOnEitherWorkerWakeTheirAwaitersAndEveryRunEnds() {
        long deadline = System.nanoTime() + StressBudget.nanos();
        int runs = 0;
        long awaited = 0;
        while (System.nanoTime() < deadline) {
            long total = UringRunner.builder().workers(2).ringEntries(16).build().start(ctx -> {
                List<Handle<Long>> spawners = new ArrayList<>();
                for (int s = 0; s < SPAWNERS; s++) {
                    int home = s % 2;
                    spawners.add(ctx.child("spawner" + s).spawnOn(home, c -> {
                        long sum = 0;
                        for (int i = 0; i < TASKS_EACH; i++) {
                            int value = i;
                            // Alternately on the spawner's own worker and on the other one.
                            Handle<Integer> task = c.child("t" + i).spawnOn((home + i) % 2, t -> value);
                            sum += task.await();
                        }
                        return sum;
                    }));
                }
                long sum = 0;
                for (Handle<Long> spawner : spawners) {
                    sum += spawner.await();
                }
                return sum;
            });
            assertEquals((long) SPAWNERS * TASKS_EACH * (TASKS_EACH - 1) / 2, total, "run " + runs);
            runs++;
            awaited += (long) SPAWNERS * TASKS_EACH;
        }
        assertTrue(runs > 0, "no run in the budget");
        System.out.println("task ends: " + runs + " runs, " + awaited + " tasks awaited");
    }
}
