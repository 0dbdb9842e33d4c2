package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.engine.worker.Worker;
import dev.lockstep.sim.sched.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A node lifetime that ends (a crash, then its tasks unwound) is retired: the scheduler never looks at its workers
 * again, while the other nodes' workers and the node's next lifetime's workers go on being scheduled, and the
 * other nodes' work goes on. The same seed runs the same way with retires in the run.
 */
class NodeRetireTest {

    /** Crashes and restarts this many times. */
    private static final int RESTARTS = 3;

    /**
     * Three log nodes of two workers each; node 2 crashes mid-load {@link #RESTARTS} times, each time waiting
     * for the ended lifetime to retire before restarting it.
     *
     * @return the run's digest
     */
    private static String crashAndRestart(long seed) {
        LogNode.Observed[] seen = {new LogNode.Observed(), new LogNode.Observed(), new LogNode.Observed()};
        SimRunner runner = SimRunner.of(SimConfig.builder().seed(seed).workers(1).build());
        runner.start(ctx -> {
            SimCluster cluster = SimCluster.of(ctx);
            Scheduler scheduler = cluster.simulation.scheduler();
            for (LogNode.Observed node : seen) {
                cluster.start(2, LogNode.main(node, 4, Long.MAX_VALUE));
            }
            SimNode victim = cluster.node(2);
            List<Worker> retired = new ArrayList<>();
            ctx.sleep(Duration.ofMillis(20));
            for (int restart = 1; restart <= RESTARTS; restart++) {
                NodeRun ended = victim.run();
                List<Worker> endedWorkers = List.copyOf(ended.engine.workers());
                long otherWritten1 = seen[0].written;
                long otherWritten3 = seen[2].written;
                assertTrue(LogNode.read(ctx, victim.address()).written() > 0, "node 2 served before crash " + restart);
                long writtenAtCrash = seen[1].written;
                victim.crash();
                // The crashed lifetime's tasks unwind (its requests in flight are cancelled) before it retires.
                for (int waited = 0; !ended.isRetired() && waited < 1_000; waited++) {
                    ctx.sleep(Duration.ofMillis(1));
                }
                assertTrue(ended.isRetired(), "lifetime " + ended.lifetime() + " of node 2 retired");
                retired.addAll(endedWorkers);
                for (Worker worker : retired) {
                    assertFalse(scheduler.looksAt(worker), worker + " of a retired lifetime is looked at");
                }
                assertEquals(writtenAtCrash, seen[1].written, "nothing of node 2 ran after crash " + restart);
                // The other nodes' work, queued beside the retired lifetime's, goes on.
                assertTrue(LogNode.read(ctx, cluster.node(1).address()).written() > otherWritten1,
                        "node 1 keeps writing across retire " + restart);
                assertTrue(LogNode.read(ctx, cluster.node(3).address()).written() > otherWritten3,
                        "node 3 keeps writing across retire " + restart);

                victim.restart();
                assertEquals(restart + 1, victim.lifetime());
                List<Worker> fresh = victim.run().engine.workers();
                assertEquals(2, fresh.size());
                for (Worker worker : fresh) {
                    assertTrue(scheduler.looksAt(worker), worker + " of the new lifetime is looked at");
                }
                for (int node = 1; node <= 3; node += 2) {
                    for (Worker worker : cluster.node(node).run().engine.workers()) {
                        assertTrue(scheduler.looksAt(worker), worker + " of surviving node " + node
                                + " is looked at");
                    }
                }
                ctx.sleep(Duration.ofMillis(10));
                assertEquals(restart + 1, seen[1].lifetimes, "the new lifetime ran its main task");
                assertTrue(LogNode.read(ctx, victim.address()).written() > seen[1].recovered,
                        "node 2 serves again in lifetime " + (restart + 1));
            }
            assertEquals(1, seen[0].lifetimes, "node 1 never restarted");
            assertEquals(1, seen[2].lifetimes, "node 3 never restarted");
            return null;
        });
        return runner.digest();
    }

    @Test
    @Timeout(60)
    void aRetiredLifetimesWorkersAreNeverScheduledAgainWhileTheOthersAndTheNewLifetimesAre() {
        crashAndRestart(3);
    }

    @Test
    @Timeout(60)
    void theSameSeedGivesTheSameDigestWithRetiresInTheRun() {
        String first = crashAndRestart(11);
        assertEquals(first, crashAndRestart(11), "seed 11 ran two ways");
        assertNotEquals(first, crashAndRestart(12), "seeds 11 and 12 ran the same way");
    }
}
