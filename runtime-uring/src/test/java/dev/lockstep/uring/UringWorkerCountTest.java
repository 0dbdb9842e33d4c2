package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Handle;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The worker count a runner takes: up to {@link UringRunner#MAX_WORKERS}, refused above it at build time naming
 * the value and the limit. Before, {@code workers(10_000)} built, and its start had not returned after 90 s.
 */
@org.junit.jupiter.api.Tag("adversarial")
class UringWorkerCountTest {

    @Test
    void moreWorkersThanTheLimitAreRefusedAtBuildNamingBoth() {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> UringRunner.builder().workers(10_000).build());
        assertTrue(refused.getMessage().contains("10000") && refused.getMessage().contains("1024"),
                refused.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> UringRunner.builder().workers(UringRunner.MAX_WORKERS + 1).build());
    }

    /** Many workers each run a task and all retire: the run ends with every worker thread gone. */
    @Test
    void aRunnerOfManyWorkersRunsATaskOnEachAndRetiresThemAll() {
        int workers = 64;
        int ran = UringRunner.builder().workers(workers).ringEntries(4).build().start(ctx -> {
            List<Handle<Integer>> handles = new ArrayList<>();
            for (int worker = 0; worker < workers; worker++) {
                handles.add(ctx.child("on" + worker).spawnOn(worker, c -> 1));
            }
            int sum = 0;
            for (Handle<Integer> handle : handles) {
                sum += handle.await();
            }
            return sum;
        });
        assertEquals(workers, ran);
        List<String> left = Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
                .filter(name -> name.startsWith("uring-worker-")).toList();
        assertEquals(List.of(), left, "every worker thread ended with the run");
    }
}
