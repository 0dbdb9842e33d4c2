package dev.lockstep.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Task;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * {@link QuorumLog}'s planted bug (a replica acknowledges before it syncs) loses a committed value only when a
 * majority loses what it acknowledged: a correlated power loss finds it in many seeds, the one-node-at-a-time
 * {@link NodeNemesis} in few. Each seed's verdict is deterministic, so the counts are too.
 */
class StrongerNemesisFindsPlantedBugTest {
    private static final Duration PAUSE = Duration.ofMillis(10);
    private static final int MILLIS = 300;

    private static Function<Long, Task<Void>> powerLoss() {
        return seed -> new ClusterNemesis(EnumSet.of(ClusterNemesis.Disturbance.POWER_LOSS), PAUSE, null,
                event -> { })::run;
    }

    private static Function<Long, Task<Void>> strategy(NemesisStrategy strategy) {
        return seed -> strategy.nemesis(seed, PAUSE, null, event -> { });
    }

    /** The seeds of {@code first..last} in which a committed value was lost. */
    private static List<Long> failingSeeds(boolean ackBeforeSync, Function<Long, Task<Void>> nemesis, long first,
            long last) {
        List<Long> failing = new ArrayList<>();
        for (long seed = first; seed <= last; seed++) {
            long run = seed;
            List<Long> lost = Simulations.run(seed, FaultConfig.NONE,
                    ctx -> QuorumLog.lostCommitted(ctx, ackBeforeSync, nemesis, run, MILLIS));
            if (!lost.isEmpty()) {
                failing.add(seed);
            }
        }
        return failing;
    }

    @Test
    void correlatedPowerLossFindsAckBeforeSyncInFarMoreSeedsThanOneNodeAtATime() {
        List<Long> strong = failingSeeds(true, powerLoss(), 1, 8);
        List<Long> uniform = failingSeeds(true, strategy(NemesisStrategy.UNIFORM), 1, 8);
        assertTrue(!strong.isEmpty() && strong.getFirst() <= 4, "power loss first failed at " + strong);
        assertTrue(strong.size() >= 3 && strong.size() >= 3 * uniform.size(),
                "seeds 1..8 failing: power loss " + strong + ", one node at a time " + uniform);
    }

    @Test
    void theCorrectReplicaLosesNothingUnderEveryDisturbance() {
        assertEquals(List.of(), failingSeeds(false, powerLoss(), 1, 4));
        assertEquals(List.of(), failingSeeds(false, strategy(NemesisStrategy.TARGETED), 1, 4));
        assertEquals(List.of(), failingSeeds(false, strategy(NemesisStrategy.SWARM), 1, 4));
    }
}
