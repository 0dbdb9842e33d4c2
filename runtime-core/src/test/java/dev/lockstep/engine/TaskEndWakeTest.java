package dev.lockstep.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.lockstep.Handle;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The end of a task wakes whoever awaits its handle without writing to a ring's wake-up (an eventfd write and
 * read on runtime-uring) when the awaiter is on the same worker, and still wakes an awaiter on another worker.
 */
class TaskEndWakeTest {
    private static final int TASKS = 200;

    @Test
    void aTaskThatEndsOnItsAwaitersWorkerWakesNoRing() {
        ScriptedKernel kernel = new ScriptedKernel();
        int[] wakes = new int[1];
        new ThreadedRunner(kernel, 1, 8, "/store", "task-end").start(ctx -> {
            // Warm-up: the first spawns load and initialize classes, where a fiber may block on a monitor that
            // the JDK's unblocker thread (not a worker) releases; only the steady state is counted.
            for (int i = 0; i < 20; i++) {
                ctx.child("warm" + i).spawn(child -> null).await();
            }
            int before = kernel.wakes();
            for (int i = 0; i < TASKS; i++) {
                int value = i;
                assertEquals(value, ctx.child("t" + i).spawn(child -> value).await());
            }
            wakes[0] = kernel.wakes() - before;
            return null;
        });
        assertEquals(0, wakes[0], "ring wakes for " + TASKS + " tasks that ended on their awaiter's worker");
    }

    @Test
    void aTaskThatEndsOnAnotherWorkerWakesItsAwaiter() {
        ScriptedKernel kernel = new ScriptedKernel();
        long[] sum = new long[1];
        new ThreadedRunner(kernel, 2, 8, "/store", "task-end").start(ctx -> {
            List<Handle<Integer>> handles = new ArrayList<>();
            for (int i = 0; i < TASKS; i++) {
                int value = i;
                handles.add(ctx.child("t" + i).spawnOn(1, child -> value));
            }
            for (Handle<Integer> handle : handles) {
                sum[0] += handle.await();
            }
            return null;
        });
        assertEquals((long) TASKS * (TASKS - 1) / 2, sum[0]);
    }
}
