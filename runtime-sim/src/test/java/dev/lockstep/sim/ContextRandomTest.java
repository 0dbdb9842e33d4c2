package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code Context.random()} in the simulator: drawn from the seed, so a seed replays the draws and the digest; drawn
 * only when asked.
 */
class ContextRandomTest {

    /** Election timeouts drawn by three tasks, as a Raft node would, with the digest of the run. */
    private static List<Object> electionTimeouts(long seed) {
        SimRunner runner = SimRunner.of(SimConfig.builder().seed(seed).workers(2).build());
        return runner.start(ctx -> {
            List<Object> drawn = new ArrayList<>();
            for (int task = 0; task < 3; task++) {
                drawn.add(ctx.child("node" + task).spawnOn(task % 2, c -> {
                    long timeout = 150 + c.random().nextLong(150);
                    c.sleep(Duration.ofMillis(timeout));
                    return timeout;
                }).await());
            }
            drawn.add(ctx.digest());
            return drawn;
        });
    }

    @Test
    void aSeedReplaysWhatTheCodeDrew() {
        assertEquals(electionTimeouts(11), electionTimeouts(11));
        List<Object> first = electionTimeouts(11);
        List<Object> other = electionTimeouts(12);
        assertNotEquals(first.subList(0, 3), other.subList(0, 3), "another seed, other draws");
        for (Object timeout : first.subList(0, 3)) {
            assertTrue((long) timeout >= 150 && (long) timeout < 300, "in range: " + timeout);
        }
    }

    @Test
    void nothingIsDrawnUntilTheCodeAsks() {
        String withoutDraw = SimRunner.seeded(21).start(ctx -> {
            ctx.random();              // a generator taken, nothing drawn
            ctx.sleep(Duration.ofMillis(1));
            return ctx.digest();
        });
        String untouched = SimRunner.seeded(21).start(ctx -> {
            ctx.sleep(Duration.ofMillis(1));
            return ctx.digest();
        });
        assertEquals(untouched, withoutDraw);
        String withDraw = SimRunner.seeded(21).start(ctx -> {
            ctx.random().nextInt();
            ctx.sleep(Duration.ofMillis(1));
            return ctx.digest();
        });
        assertNotEquals(untouched, withDraw, "a draw is part of the run");
    }
}
