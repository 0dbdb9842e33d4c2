package dev.lockstep.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.ClosedException;
import dev.lockstep.Context;
import dev.lockstep.ExitedException;
import dev.lockstep.Handle;
import dev.lockstep.sync.OneShot;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A task's end as its awaiters see it: the supervision tree has taken the end in before the handle resolves, a
 * poller's waker that throws fails the runner without keeping the worker alive, and a failure whose
 * {@code toString} throws still resolves the handle.
 */
class TaskEndTest {
    private static final int ROUNDS = 500;

    private static ThreadedRunner runner(int workers) {
        return new ThreadedRunner(new ScriptedKernel(), workers, 4, null, "task-end");
    }

    @Test
    void aSpawnBelowASpawnerWhoseTaskEndedOnAnotherWorkerIsRefused() {
        List<String> violations = new ArrayList<>();
        runner(2).start(ctx -> {
            for (int round = 0; round < ROUNDS && violations.isEmpty(); round++) {
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
            }
            return null;
        });
        assertEquals(List.of(), violations);
    }

    @Test
    void aPollersWakerThatThrowsWhenTheTaskEndsFailsTheRunner() {
        IllegalStateException boom = new IllegalStateException("the poller's waker threw");
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> runner(1).start(ctx -> {
            OneShot<Integer> gate = new OneShot<>();
            Handle<Integer> task = ctx.child("task").spawn(c -> gate.get().await());
            assertFalse(task.poll(() -> {
                throw boom;
            }).isReady());
            gate.complete(7);
            return task.await();
        }));
        assertSame(boom, thrown);
    }

    @Test
    void aFailureWhoseToStringThrowsStillResolvesTheHandle() {
        RuntimeException unprintable = new RuntimeException() {
            @Override
            public String toString() {
                throw new UnsupportedOperationException("no text");
            }
        };
        ExitedException exited = runner(1).start(ctx -> assertThrows(ExitedException.class,
                () -> ctx.child("task").spawn(c -> {
                    throw unprintable;
                }).await()));
        assertSame(unprintable, exited.getCause());
        assertTrue(exited.getMessage().contains("its toString threw"), exited.getMessage());
    }
}
