package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Handle;
import dev.lockstep.Task;
import dev.lockstep.WatchdogRace;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Priority scheduling ({@link Priorities}) finds an ordering bug that the uniform choice almost never produces,
 * replays what it found, and leaves runs without it as they were.
 */
class PrioritiesTest {
    /** The planted ordering bug: true when a run's schedule let the watchdog declare its live peer dead. */
    static final Task<Boolean> WATCHDOG_RACE = WatchdogRace.DECLARES_LIVE_PEER_DEAD;

    private static SimConfig config(long seed, Priorities priorities) {
        return SimConfig.builder().seed(seed).priorities(priorities).build();
    }

    @Test
    void priorityRunsFindTheOrderingBugAndReplayIt() {
        int uniformFound = 0;
        for (long seed = 1; seed <= 100; seed++) {
            uniformFound += SimRunner.of(config(seed, Priorities.OFF)).start(WATCHDOG_RACE) ? 1 : 0;
        }
        assertEquals(0, uniformFound, "the uniform choice found the ordering bug");

        long found = -1;
        for (long seed = 1; seed <= 20 && found < 0; seed++) {
            if (SimRunner.of(config(seed, Priorities.of(1, 1_000))).start(WATCHDOG_RACE)) {
                found = seed;
            }
        }
        assertTrue(found > 0, "depth-1 priority scheduling did not find the bug in 20 seeds");
        SimConfig failing = config(found, Priorities.of(1, 1_000));
        SimRunner first = SimRunner.of(failing);
        assertTrue(first.start(WATCHDOG_RACE));
        SimRunner replayed = SimRunner.of(failing);
        assertTrue(replayed.start(WATCHDOG_RACE), "the replay did not fail: " + failing.replayLine());
        assertEquals(first.digest(), replayed.digest());
        assertTrue(failing.toJava().contains(".priorities(Priorities.of(1, 1000L))"), failing.toJava());
    }

    @Test
    void changePointsAndHorizonKeepRunsDeterministicAndEnding() {
        for (long seed = 1; seed <= 10; seed++) {
            SimRunner first = SimRunner.of(config(seed, Priorities.of(3, 30)));
            boolean verdict = first.start(WATCHDOG_RACE);
            SimRunner second = SimRunner.of(config(seed, Priorities.of(3, 30)));
            assertEquals(verdict, second.start(WATCHDOG_RACE));
            assertEquals(first.digest(), second.digest(), "seed " + seed);
        }
        // A spin that stays runnable would starve the fiber it waits for if priorities held forever.
        Task<Integer> spin = ctx -> {
            AtomicBoolean flag = new AtomicBoolean();
            Handle<Integer> spinner = ctx.child("spinner").spawn(c -> {
                int spins = 0;
                while (!flag.get()) {
                    spins++;
                    Thread.yield();
                }
                return spins;
            });
            Handle<Void> setter = ctx.child("setter").spawn(c -> {
                flag.set(true);
                return null;
            });
            setter.await();
            return spinner.await();
        };
        for (long seed = 1; seed <= 10; seed++) {
            assertTrue(SimRunner.of(config(seed, Priorities.of(1, 50))).start(spin) <= 51);
        }
    }

    @Test
    void offDrawsNothingMoreAndBadValuesAreRefused() {
        SimRunner off = SimRunner.of(config(5, Priorities.OFF));
        off.start(WATCHDOG_RACE);
        SimRunner plain = SimRunner.seeded(5);
        plain.start(WATCHDOG_RACE);
        assertEquals(plain.digest(), off.digest());
        SimRunner on = SimRunner.of(config(5, Priorities.of(2, 100)));
        on.start(WATCHDOG_RACE);
        assertNotEquals(plain.digest(), on.digest());

        InvalidConfigException depth = assertThrows(InvalidConfigException.class, () -> Priorities.of(65, 10));
        assertEquals("Priorities.depth", depth.field());
        assertTrue(depth.getMessage().contains("65"), depth.getMessage());
        InvalidConfigException steps = assertThrows(InvalidConfigException.class, () -> Priorities.of(2, 0));
        assertEquals("Priorities.steps", steps.field());
        assertEquals(Priorities.of(4, 77), Priorities.parse("4:77"));
        assertEquals(Priorities.OFF, Priorities.parse("off"));
        assertThrows(IllegalArgumentException.class, () -> Priorities.parse("four"));
        assertThrows(IllegalArgumentException.class, () -> Priorities.parse("+4:77"));
    }
}
