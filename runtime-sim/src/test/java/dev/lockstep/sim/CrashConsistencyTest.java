package dev.lockstep.sim;

import dev.lockstep.sim.audit.Generator;
import dev.lockstep.sim.audit.Site;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Crash consistency over operation sequences drawn from our own seeded {@link Generator}: the same checks as
 * {@link CrashConsistencyProperties}, independent of the property-testing library; every sequence ends in a
 * crash, so each is checked at least once.
 */
class CrashConsistencyTest {

    private static List<CrashModel.Op> operations(Generator generator) {
        int count = 1 + generator.nextInt(Site.APPLICATION, 40);
        List<CrashModel.Op> ops = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int kind = generator.nextInt(Site.APPLICATION, 14);
            if (kind < 8) {
                ops.add(new CrashModel.Write(generator.nextInt(Site.APPLICATION, 3001),
                        1 + generator.nextInt(Site.APPLICATION, 1600), generator.nextInt(Site.APPLICATION, 4) == 0));
            } else if (kind < 10) {
                ops.add(new CrashModel.Sync());
            } else if (kind < 12) {
                ops.add(new CrashModel.Truncate(generator.nextInt(Site.APPLICATION, 4001)));
            } else {
                ops.add(new CrashModel.Crash());
            }
        }
        ops.add(new CrashModel.Crash());
        return ops;
    }

    @Test
    void everyPolicyHoldsOverManySeededSequences() {
        for (CrashPolicy policy : CrashPolicy.values()) {
            for (long seed = 0; seed < 150; seed++) {
                Generator scriptGenerator = new Generator(seed * 31 + policy.ordinal());
                org.junit.jupiter.api.Assertions.assertTrue(
                        CrashModel.run(seed, operations(scriptGenerator), policy) >= 1,
                        "seed " + seed + " checked no crash");
            }
        }
    }
}
