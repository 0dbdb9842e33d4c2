package dev.lockstep.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.sim.SimCluster;
import dev.lockstep.sim.SimNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The node nemesis: seeded, one node at a time, and it brings back what it took down when it is aborted. */
class NodeNemesisTest {
    private final List<String> events = new ArrayList<>();

    @SimulationTest(seeds = 3, checkDeterminism = true)
    void disturbsOneNodeAtATimeAndBringsItBack(Context ctx) {
        SimCluster cluster = SimCluster.of(ctx);
        int[] ticks = new int[3];
        for (int i = 0; i < 3; i++) {
            int node = i;
            cluster.start(c -> {
                while (true) {
                    c.sleep(Duration.ofMillis(1));
                    ticks[node]++;
                }
            });
        }
        NodeNemesis nemesis = new NodeNemesis(EnumSet.allOf(NodeNemesis.Action.class), Duration.ofMillis(10),
                events::add);
        Handle<Void> faults = ctx.child("nemesis").spawn(nemesis::run);
        for (int i = 0; i < 200; i++) {
            ctx.sleep(Duration.ofMillis(1));
            long disturbed = cluster.nodes().stream().filter(node -> node.state() != SimNode.State.RUNNING).count();
            assertTrue(disturbed <= 1, "two nodes disturbed at once: " + cluster.nodes());
        }
        faults.abort();
        try {
            faults.await(); // an aborted task ends when its finally has run, however the scheduler orders fibers
        } catch (dev.lockstep.ClosedException aborted) {
            // It brought back what it took down.
        }
        for (SimNode node : cluster.nodes()) {
            assertEquals(SimNode.State.RUNNING, node.state(), node + " was left down; events " + events);
        }
        int disturbances = 0;
        for (NodeNemesis.Action action : NodeNemesis.Action.values()) {
            disturbances += nemesis.count(action);
        }
        assertTrue(disturbances >= 5, "200 ms with a 10 ms mean pause disturbed " + disturbances + " times");
    }

    @Test
    void badArgumentsAreRefusedNamingThem() {
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> new NodeNemesis(Set.of(), Duration.ofMillis(1), e -> { }));
        assertEquals("a node nemesis needs at least one action", none.getMessage());
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
                () -> new NodeNemesis(Set.of(NodeNemesis.Action.CRASH), Duration.ZERO, e -> { }));
        assertEquals("meanPause must be positive, was PT0S", zero.getMessage());
    }
}
