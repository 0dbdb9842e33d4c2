package dev.lockstep;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An ordering bug planted for schedule exploration, written against the API alone: a watchdog declares its peer
 * dead after {@value #STEPS} steps without a heartbeat, and the peer sends its heartbeat at its second step. The
 * peer is never dead, but a schedule that runs all the watchdog's steps before the peer's second says it is. The
 * uniform choice of the next fiber does that about once in 2^{@value #STEPS} runs; priority scheduling whenever the
 * watchdog's priority is the higher. Shared through this module's test jar by runtime-sim's {@code PrioritiesTest}
 * and lockstep-testing's search strategy tests. Test code only.
 */
public final class WatchdogRace {
    /** How many steps the watchdog waits for a heartbeat. */
    public static final int STEPS = 20;

    /** The race; its value is true if the watchdog declared the live peer dead. */
    public static final Task<Boolean> DECLARES_LIVE_PEER_DEAD = ctx -> {
        AtomicBoolean heartbeat = new AtomicBoolean();
        Handle<Boolean> watchdog = ctx.child("watchdog").spawn(c -> {
            for (int step = 0; step < STEPS; step++) {
                if (heartbeat.get()) {
                    return false;
                }
                Thread.yield();
            }
            return !heartbeat.get();
        });
        Handle<Void> peer = ctx.child("peer").spawn(c -> {
            Thread.yield();
            heartbeat.set(true);
            return null;
        });
        peer.await();
        return watchdog.await();
    };

    private WatchdogRace() {
    }
}
