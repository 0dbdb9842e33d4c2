package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Task;
import dev.lockstep.sim.audit.Generator;
import dev.lockstep.sim.audit.Site;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A {@link DecisionChain}: the draws before a segment are the seed's, the draws after it are the segment seed's,
 * through checkpoints too; a run branched from another is that run up to the branch.
 */
class DecisionChainTest {

    @Test
    void drawsSwitchSeedsWhereTheChainSays() {
        DecisionChain chain = DecisionChain.parse("100:9,150:-4");
        Generator chained = new Generator(5, chain);
        Generator first = new Generator(5);
        Generator second = new Generator(9);
        Generator third = new Generator(-4);
        for (int i = 0; i < 100; i++) {
            assertEquals(first.nextLong(Site.APPLICATION), chained.nextLong(Site.APPLICATION), "draw " + i);
        }
        for (int i = 100; i < 150; i++) {
            assertEquals(second.nextLong(Site.APPLICATION), chained.nextLong(Site.APPLICATION), "draw " + i);
        }
        for (int i = 150; i < 200; i++) {
            assertEquals(third.nextLong(Site.APPLICATION), chained.nextLong(Site.APPLICATION), "draw " + i);
        }
    }

    @Test
    void aSnapshotTakenAtOrAcrossASwitchRestoresTheSameDraws() {
        DecisionChain chain = DecisionChain.parse("10:77");
        for (int taken : new int[] {5, 10, 11}) {
            Generator generator = new Generator(3, chain);
            for (int i = 0; i < taken; i++) {
                generator.nextLong(Site.APPLICATION);
            }
            Generator.State state = generator.snapshot();
            List<Long> expected = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                expected.add(generator.nextLong(Site.APPLICATION));
            }
            Generator restored = Generator.fromState(state, chain);
            for (int i = 0; i < 20; i++) {
                assertEquals(expected.get(i), restored.nextLong(Site.APPLICATION), "after " + taken + ", draw " + i);
            }
        }
    }

    @Test
    void aBranchedRunIsItsParentUpToTheBranch() {
        Task<List<Integer>> draws = ctx -> {
            List<Integer> values = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                values.add(SimRunner.control(ctx).random().nextInt(1_000_000));
                ctx.sleep(Duration.ofMillis(1));
            }
            return values;
        };
        SimRunner parent = SimRunner.seeded(21);
        List<Integer> parentValues = parent.start(draws);
        long total = parent.stats().draws();
        // Branch a little before the end: the task's last values come after it.
        SimConfig branched = SimConfig.builder().seed(21)
                .decisionChain(DecisionChain.NONE.branch(total - 30, 1234)).build();
        SimRunner child = SimRunner.of(branched);
        List<Integer> childValues = child.start(draws);
        int same = 0;
        while (same < 40 && parentValues.get(same).equals(childValues.get(same))) {
            same++;
        }
        assertTrue(same > 0 && same < 40, "shared prefix of " + same + " values");
        assertNotEquals(parent.digest(), child.digest());
        SimRunner replayed = SimRunner.of(branched);
        assertEquals(childValues, replayed.start(draws));
        assertEquals(child.digest(), replayed.digest());
        assertTrue(branched.toJava().contains(".decisionChain(DecisionChain.parse(\"" + (total - 30) + ":1234\"))"),
                branched.toJava());
    }

    @Test
    void branchingKeepsEarlierSegmentsAndBadChainsAreRefused() {
        DecisionChain chain = DecisionChain.parse("10:1,20:2,30:3");
        assertEquals("10:1,20:2,25:9", chain.branch(25, 9).toString());
        assertEquals("5:9", chain.branch(5, 9).toString());
        assertEquals(chain, DecisionChain.parse(chain.toString()));
        assertEquals(DecisionChain.NONE, DecisionChain.parse("none"));
        InvalidConfigException order = assertThrows(InvalidConfigException.class,
                () -> DecisionChain.parse("20:1,10:2"));
        assertTrue(order.getMessage().contains("10:2"), order.getMessage());
        assertThrows(InvalidConfigException.class, () -> DecisionChain.parse("0:1"));
        IllegalArgumentException text = assertThrows(IllegalArgumentException.class,
                () -> DecisionChain.parse("10-1"));
        assertTrue(text.getMessage().contains("'10-1'"), text.getMessage());
        // Decimal ASCII digits only, as every replay line is read.
        assertThrows(IllegalArgumentException.class, () -> DecisionChain.parse("+10:1"));
        assertThrows(IllegalArgumentException.class, () -> DecisionChain.parse("\u0661\u0660:1"));
    }
}
