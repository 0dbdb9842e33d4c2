package dev.lockstep.testing;

import dev.lockstep.Search;
import dev.lockstep.Task;
import dev.lockstep.WatchdogRace;
import dev.lockstep.sim.SimRunner;
import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Bugs that one search strategy finds and plain random seeds find rarely, each a task that throws when it meets
 * its bug. {@link SearchStrategyTest} sweeps them.
 */
final class PlantedSearchBugs {
    private PlantedSearchBugs() {
    }

    /**
     * An ordering bug ({@link WatchdogRace}): a watchdog declares its live peer dead when every one of its steps
     * runs before the peer's heartbeat, which the uniform choice of the next fiber almost never does and priority
     * scheduling does whenever the watchdog's priority is the higher.
     */
    static final Task<Void> WATCHDOG_RACE = ctx -> {
        if (WatchdogRace.DECLARES_LIVE_PEER_DEAD.run(ctx)) {
            throw new AssertionError("the watchdog declared a live peer dead");
        }
        return null;
    };

    /** How many times {@link #RETRIES} resends a dropped request. */
    static final int MAX_RESENDS = 5;

    /**
     * A rare-path bug behind a fault point: a client sends 10 requests, each dropped where the fault point
     * {@code client.drop-request} fires, and resends a dropped one up to {@value #MAX_RESENDS} times; when the
     * last resend is dropped too it reports the request as done (it should fail it). With the simulator's default
     * probabilities (a point enabled for a quarter of runs, firing at a quarter of reaches) six drops in a row
     * come about once in 16,000 runs; a run whose point fires at nearly every reach meets them at once.
     */
    static final Task<Void> RETRIES = ctx -> {
        for (int request = 0; request < 10; request++) {
            int sends = 1;
            boolean delivered = !Search.faultPoint("client.drop-request");
            while (!delivered && sends <= MAX_RESENDS) {
                sends++;
                ctx.sleep(Duration.ofMillis(1));
                delivered = !Search.faultPoint("client.drop-request");
            }
            if (!delivered) {
                throw new AssertionError("request " + request + " reported done after " + sends
                        + " sends, every one dropped");
            }
            ctx.sleep(Duration.ofMillis(1));
        }
        return null;
    };

    /** The stage at which {@link #DEEP_STATE}'s bug lives. */
    static final int BUG_STAGE = 9;
    /** How many rounds {@link #DEEP_STATE} runs. */
    static final int ROUNDS = 60;

    /**
     * A bug deep in a protocol's state space: each of {@value #ROUNDS} rounds, a state machine moves one stage on
     * with probability 1/10 (an election won, a compaction, a reconfiguration: each a rare event) and falls back to
     * stage 0 with probability 3/10 (a crash that loses the progress); the bug is at stage {@value #BUG_STAGE}. A
     * run gets there about once in a thousand. The code marks each stage with {@link Search#reached}, so the guided
     * explorer keeps the run that first got one stage further, branches from the moment it got there, and climbs
     * one stage at a time.
     */
    static final Task<Void> DEEP_STATE = ctx -> {
        RandomGenerator random = SimRunner.control(ctx).random();
        int stage = 0;
        for (int round = 0; round < ROUNDS; round++) {
            int event = random.nextInt(10);
            if (event == 0) {
                stage++;
                Search.reached("stage", stage);
            } else if (event <= 3) {
                stage = 0;
            }
            Search.sometimes(stage >= BUG_STAGE, "at the bug's stage");
            if (stage == BUG_STAGE) {
                throw new AssertionError("reached stage " + stage + " in round " + round);
            }
            ctx.sleep(Duration.ofMillis(1));
        }
        return null;
    };

    /** A shallow bug: one run in about ten meets it. */
    static final Task<Void> SHALLOW = ctx -> {
        if (SimRunner.control(ctx).random().nextInt(10) == 0) {
            throw new AssertionError("drew the one value in ten");
        }
        ctx.sleep(Duration.ofMillis(1));
        return null;
    };

}
