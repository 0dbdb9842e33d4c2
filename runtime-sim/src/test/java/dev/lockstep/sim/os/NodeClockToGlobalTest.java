package dev.lockstep.sim.os;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link NodeClock#toGlobal}, which the scheduler asks on every step for every node worker's earliest timer, answers
 * what its definition says: the least global time, from the anchor on, at which the node's monotonic clock shows the
 * deadline. A node's timer firing one nanosecond early or late would change every seed of a cluster with drift, so
 * every answer is checked against a plain binary search over {@link NodeClock#toMonotonic}, through drifts, steps and
 * repeated questions (the last answer is remembered until the anchor moves), near the end of time too.
 */
class NodeClockToGlobalTest {

    @Test
    void everyAnswerIsTheLeastGlobalTimeAtWhichTheNodeShowsTheDeadline() {
        SplittableRandom random = new SplittableRandom(20261206);
        for (int clocks = 0; clocks < 300; clocks++) {
            long start = random.nextBoolean() ? random.nextLong(0, 1L << 40)
                    : NodeClock.LATEST - random.nextLong(0, 1L << 40);
            long offset = random.nextInt(4) == 0 ? 0 : random.nextLong(-(1L << 35), 1L << 35);
            NodeClock clock = new NodeClock(start, offset);
            long now = start;
            long anchor = start;
            long asked = Long.MAX_VALUE;
            for (int op = 0; op < 200; op++) {
                switch (random.nextInt(6)) {
                    case 0 -> {
                        now = later(now, random);
                        clock.drift(now, random.nextLong(-NodeClock.MAX_DRIFT_PPM, NodeClock.MAX_DRIFT_PPM + 1));
                        anchor = now;
                    }
                    case 1 -> {
                        now = later(now, random);
                        long step = random.nextLong(-(1L << 40), 1L << 40);
                        if (clock.stepFits(now, step)) {
                            clock.step(now, step);
                            anchor = now;
                        }
                    }
                    default -> {
                        long shown = clock.toMonotonic(now);
                        long local = switch (random.nextInt(5)) {
                            case 0 -> shown - random.nextLong(0, 1_000_000);
                            case 1 -> Long.MAX_VALUE;
                            case 2 -> NodeClock.LATEST - random.nextLong(0, 1_000);
                            default -> shown + random.nextLong(1, 1L << random.nextInt(1, 45));
                        };
                        long expected = leastGlobal(clock, anchor, local);
                        assertEquals(expected, clock.toGlobal(local), () -> clock + ", deadline " + local);
                        assertEquals(expected, clock.toGlobal(local), () -> "asked again: " + clock + ", " + local);
                        asked = local;
                    }
                }
                long deadline = asked; // the same deadline after a drift or a step: the anchor moved under it
                assertEquals(leastGlobal(clock, anchor, deadline), clock.toGlobal(deadline),
                        () -> "after a change of the anchor: " + clock + ", deadline " + deadline);
            }
        }
    }

    private static long later(long now, SplittableRandom random) {
        long next = now + random.nextLong(0, 1L << 30);
        return next < now ? now : next;
    }

    private static long saturatingAdd(long a, long b) {
        try {
            return Math.addExact(a, b);
        } catch (ArithmeticException overflow) {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    /** The definition, searched: the least g >= anchor with toMonotonic(g) >= local within twice the distance, else MAX_VALUE. */
    private static long leastGlobal(NodeClock clock, long anchor, long local) {
        if (local == Long.MAX_VALUE) {
            return Long.MAX_VALUE;
        }
        if (clock.toMonotonic(anchor) >= local) {
            return anchor;
        }
        long ahead = local - clock.toMonotonic(anchor);
        long high = saturatingAdd(anchor, saturatingAdd(ahead, ahead)); // |drift| <= 10 %: below 2 * ahead

        if (clock.toMonotonic(high) < local) {
            return Long.MAX_VALUE;
        }
        long low = anchor;
        while (low < high) {
            long middle = low + (high - low) / 2;
            if (clock.toMonotonic(middle) >= local) {
                high = middle;
            } else {
                low = middle + 1;
            }
        }
        return low;
    }
}
