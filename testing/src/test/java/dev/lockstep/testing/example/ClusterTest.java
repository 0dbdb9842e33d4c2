package dev.lockstep.testing.example;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.LockstepException;
import dev.lockstep.sim.SimCluster;
import dev.lockstep.testing.NemesisStrategy;
import dev.lockstep.testing.SimulationInfo;
import dev.lockstep.testing.SimulationTest;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

class ClusterTest {
    @SimulationTest(seeds = 10, clusterNemesis = true)
    void acknowledgedEntriesSurviveCrashesKillsAndPauses(Context ctx, RandomGenerator random, SimulationInfo run) {
        SimCluster cluster = SimCluster.of(ctx);
        List<InetSocketAddress> nodes = new ArrayList<>();
        for (int id = 1; id <= 3; id++) {
            nodes.add(new InetSocketAddress(SimCluster.address(id), LogServer.PORT));
            cluster.start(LogServer.node(nodes.getLast()));    // node id: its own disk, clock and address
        }
        // NodeNemesis, one node at a time, unless the run's strategy chose a nemesis (combined: one per seed)
        NemesisStrategy nemesis = NemesisStrategy.forThisRun(ctx, NemesisStrategy.UNIFORM).withoutHooks();
        Handle<Void> faults = ctx.child("nemesis").spawn(nemesis.nemesis(run.seed(), Duration.ofMillis(20), null,
                event -> { }));
        List<List<long[]>> acknowledged = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        for (int i = 0; i < 200; i++) {
            int node = random.nextInt(nodes.size());
            long value = random.nextLong();
            try {
                long index = ctx.timeout(Duration.ofMillis(30), () -> LogServer.call(ctx, nodes.get(node), 'A', value));
                acknowledged.get(node).add(new long[] {index, value});
            } catch (LockstepException downPausedOrCut) {
                // Not acknowledged: it may or may not be in the log.
            }
            ctx.sleep(Duration.ofMillis(1));
        }
        faults.abort();                                          // brings back what it took down
        ctx.sleep(Duration.ofMillis(50));
        for (int node = 0; node < nodes.size(); node++) {
            for (long[] entry : acknowledged.get(node)) {
                assertEquals(entry[1], LogServer.call(ctx, nodes.get(node), 'R', entry[0]),
                        "node " + (node + 1) + " lost acknowledged entry " + entry[0]);
            }
        }
    }
}
