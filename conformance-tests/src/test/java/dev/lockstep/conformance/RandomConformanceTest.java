package dev.lockstep.conformance;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Handle;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/** {@code Context.random()} on every runtime: usable from tasks on every worker, and not constant. */
@Group(ReadmeGroup.RANDOM)
class RandomConformanceTest {

    @Conformance
    void testRandomNumbersOnEveryWorker(Runtimes rt) {
        rt.runner().start(ctx -> {
            List<Handle<TreeSet<Integer>>> tasks = new ArrayList<>();
            for (int worker = 0; worker < ctx.workers(); worker++) {
                tasks.add(ctx.child("drawer" + worker).spawnOn(worker, c -> {
                    TreeSet<Integer> seen = new TreeSet<>();
                    for (int i = 0; i < 100; i++) {
                        int value = c.random().nextInt(1000);
                        assertTrue(value >= 0 && value < 1000, "nextInt(1000) gave " + value);
                        seen.add(value);
                    }
                    return seen;
                }));
            }
            for (Handle<TreeSet<Integer>> task : tasks) {
                TreeSet<Integer> seen = task.await();
                assertTrue(seen.size() > 50, "100 draws in [0, 1000) gave " + seen.size() + " distinct values");
            }
            return null;
        });
    }
}
