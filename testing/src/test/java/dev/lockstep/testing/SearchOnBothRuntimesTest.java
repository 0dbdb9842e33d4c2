package dev.lockstep.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Handle;
import dev.lockstep.Search;
import dev.lockstep.Task;
import dev.lockstep.sim.FaultPoints;
import dev.lockstep.sim.SimConfig;
import dev.lockstep.sim.SimRunner;
import dev.lockstep.uring.UringRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Search} where a simulation and runtime-uring share a JVM: one hooks instance answers both, so a
 * runtime-uring fiber must never see a simulation's fault points, and a simulation must count only its own calls,
 * while both run at once on different threads.
 */
class SearchOnBothRuntimesTest {
    private static final int FIBERS = 8;
    private static final int CALLS = 2_000;

    /** {@value #FIBERS} fibers spread over the workers, each reaching the point {@value #CALLS} times. */
    private static Task<Integer> reachPoints(int workers) {
        return ctx -> {
            List<Handle<Integer>> handles = new ArrayList<>();
            for (int i = 0; i < FIBERS; i++) {
                handles.add(ctx.child("fiber_" + i).spawnOn(i % workers, c -> {
                    int fired = 0;
                    for (int call = 0; call < CALLS; call++) {
                        fired += Search.faultPoint("shared.point") ? 1 : 0;
                        Search.sometimes(true, "reached");
                        if (call % 100 == 0) {
                            c.sleep(Duration.ofNanos(1));
                        }
                    }
                    return fired;
                }));
            }
            int fired = 0;
            for (Handle<Integer> handle : handles) {
                fired += handle.await();
            }
            return fired;
        };
    }

    @Test
    void uringFibersNeverFireWhileASimulationFiresBesideThem(@TempDir Path data) throws Exception {
        for (int round = 0; round < 3; round++) {
            SimRunner simulator = SimRunner.of(SimConfig.builder().seed(round).workers(2)
                    .faultPoints(new FaultPoints(1, 0.5)).build());
            CompletableFuture<Integer> simulated = CompletableFuture.supplyAsync(() -> simulator.start(reachPoints(2)));
            Path storage = Files.createDirectories(data.resolve("round-" + round));
            int uringFired = UringRunner.builder().workers(4).storage(storage).build().start(reachPoints(4));
            int simFired = simulated.get();
            assertEquals(0, uringFired, "a runtime-uring fiber's fault point fired");
            var point = simulator.coverage().faultPoints().get("shared.point");
            assertEquals((long) FIBERS * CALLS, point.reached(), "the simulation counted calls that were not its own");
            assertEquals(simFired, point.fired());
            assertTrue(simFired > 0);
            assertEquals((long) FIBERS * CALLS, simulator.coverage().sometimes().get("reached").evaluated());
        }
    }
}
