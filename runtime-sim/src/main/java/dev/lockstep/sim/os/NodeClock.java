package dev.lockstep.sim.os;

import dev.lockstep.sim.SimCluster;

/**
 * One node's clocks in a {@link SimCluster}: views of the simulation's one {@link SimClock}, a monotonic clock
 * (what the node's timers run on and {@code ctx.monotonicNanos()} reads) and a wall clock ({@code ctx.now()}), both
 * with the node's drift, the wall clock with its steps too. The scheduler keeps every event on the global timeline
 * by turning a node's timer deadlines into global time ({@link #toGlobal}).
 *
 * <h2>The mapping</h2>
 * From an anchor {@code (globalAnchor, monotonicAnchor, wallAnchor)}, each clock reads its anchor
 * {@code + d + floor(d * driftPpm / 1e6)} with {@code d = global - globalAnchor}: monotone in global time for every
 * allowed drift ({@code |driftPpm| <= }{@value #MAX_DRIFT_PPM}). A change of drift or a step re-anchors at the
 * current global time, so what the node read before never changes; a step moves only the wall anchor. The wall
 * clock as the node reads it ({@link #wall}) never goes back: after a step back it stands still until the
 * stepped clock catches up, as {@code ctx.now()} promises. Timers are unaffected by steps, as Linux's
 * {@code CLOCK_MONOTONIC} timers are. All arithmetic is exact integer arithmetic: the same seed maps the same way
 * on every machine.
 *
 * <h2>The end of time</h2>
 * Each clock shows at most {@link #LATEST} ({@code Long.MAX_VALUE - 1} epoch nanoseconds), where a drift ahead of
 * global time holds it still. A deadline past it — what the engine saturates at {@code Long.MAX_VALUE}, such as a
 * 1 ms sleep at that moment — never comes, so the node's tasks wait there rather than wake without time passing;
 * the run goes on and ends as any run does. A step that would take the wall clock past {@link #LATEST} is refused
 * ({@link #step}); a step back before the epoch takes it to the epoch.
 *
 * <p>Confined to the simulator's thread, like the rest of a simulation.
 */
public final class NodeClock {
    /** The latest time a node's clocks show: one nanosecond before a saturated deadline (see the class doc). */
    public static final long LATEST = Long.MAX_VALUE - 1;
    /** The largest drift either way, in parts per million: 10 %. */
    public static final long MAX_DRIFT_PPM = 100_000;
    private static final long MILLION = 1_000_000L;

    private long globalAnchor;
    private long monotonicAnchor;
    private long wallAnchor;
    private long driftPpm;
    /** The latest wall time the node read: {@link #wall} never returns less. */
    private long wallRead;
    /** Whether {@link #lastLocal} and {@link #lastGlobal} are an answer of {@link #toGlobal} under this anchor. */
    private boolean remembered;
    private long lastLocal;
    private long lastGlobal;

    /**
     * Clocks that read {@code offsetNanos} ahead of global time from {@code globalNow} on, without drift.
     *
     * @param globalNow the global time now
     * @param offsetNanos how far ahead (negative: behind), saturating
     */
    public NodeClock(long globalNow, long offsetNanos) {
        this.globalAnchor = globalNow;
        this.monotonicAnchor = Math.clamp(saturatingAdd(globalNow, offsetNanos), 0, LATEST);
        this.wallAnchor = monotonicAnchor;
    }

    /** The node's monotonic time at global time {@code global} ({@code >=} the last anchor): its timers' clock. */
    long toMonotonic(long global) {
        return advanced(monotonicAnchor, global);
    }

    /** The node's wall time at global time {@code global}, as stepped, before the hold of {@link #wall}. */
    long toLocal(long global) {
        return advanced(wallAnchor, global);
    }

    /**
     * The node's wall time as its tasks read it at global time {@code global}: {@link #toLocal}, but never less
     * than what an earlier read returned.
     */
    public long wall(long global) {
        wallRead = Math.max(wallRead, toLocal(global));
        return wallRead;
    }

    private long advanced(long anchor, long global) {
        long d = global - globalAnchor;
        if (d <= 0) {
            return anchor;
        }
        return Math.min(LATEST, saturatingAdd(anchor, saturatingAdd(d, scaled(d, driftPpm))));
    }

    /**
     * The earliest global time at which the node's monotonic clock shows {@code local} or later: when a timer set
     * for {@code local} on this node is due. At most the anchor for a time the node has passed;
     * {@code Long.MAX_VALUE} stays {@code Long.MAX_VALUE}.
     *
     * <p>The scheduler asks this of every node worker's earliest deadline on every step, and that deadline rarely
     * changes between steps, so the last answer is kept until the argument or the anchor changes.
     */
    long toGlobal(long local) {
        if (!remembered || local != lastLocal) {
            lastGlobal = computeGlobal(local);
            lastLocal = local;
            remembered = true;
        }
        return lastGlobal;
    }

    private long computeGlobal(long local) {
        if (local == Long.MAX_VALUE) {
            return Long.MAX_VALUE;
        }
        long ahead = local - monotonicAnchor;
        if (ahead <= 0) {
            return globalAnchor;
        }
        // The least d with toMonotonic(anchor + d) >= local: it is monotone, and with |drift| <= 10 % the answer
        // lies below 2 * ahead.
        long low = globalAnchor;
        long high = saturatingAdd(globalAnchor, saturatingAdd(ahead, ahead));
        if (toMonotonic(high) < local) {
            return Long.MAX_VALUE;
        }
        // Away from saturation, d + floor(d * drift / 1e6) >= ahead exactly when d >= ceil(ahead * 1e6 / (1e6 +
        // drift)). That guess is checked against the clock itself (it shows local at the guess and not one
        // nanosecond before), so the answer is the binary search's whenever the guess is taken.
        if (ahead < Long.MAX_VALUE / MILLION) {
            long guess = saturatingAdd(globalAnchor, ceilDiv(ahead * MILLION, MILLION + driftPpm));
            if (guess > low && guess <= high && toMonotonic(guess) >= local && toMonotonic(guess - 1) < local) {
                return guess;
            }
        }
        while (low < high) {
            long middle = low + (high - low) / 2;
            if (toMonotonic(middle) >= local) {
                high = middle;
            } else {
                low = middle + 1;
            }
        }
        return low;
    }

    private static long ceilDiv(long dividend, long divisor) {
        return -Math.floorDiv(-dividend, divisor);
    }

    /** Sets the drift from {@code globalNow} on. */
    public void drift(long globalNow, long ppm) {
        checkDrift(ppm);
        reanchor(globalNow);
        driftPpm = ppm;
    }

    /** Whether a step of {@code stepNanos} at {@code globalNow} keeps the wall clock at or before {@link #LATEST}. */
    public boolean stepFits(long globalNow, long stepNanos) {
        return saturatingAdd(toLocal(globalNow), stepNanos) <= LATEST;
    }

    /**
     * Moves the wall clock by {@code stepNanos} (either way) at {@code globalNow}, back at most to the epoch; the
     * monotonic one stays.
     *
     * @throws IllegalArgumentException if the step does not {@linkplain #stepFits fit}, the clock unchanged
     */
    public void step(long globalNow, long stepNanos) {
        if (!stepFits(globalNow, stepNanos)) {
            throw new IllegalArgumentException("a clock step of " + stepNanos + " ns from " + toLocal(globalNow)
                    + " ns would pass " + LATEST + " ns");
        }
        reanchor(globalNow);
        wallAnchor = Math.max(0, saturatingAdd(wallAnchor, stepNanos));
    }

    long driftPpm() {
        return driftPpm;
    }

    private void reanchor(long globalNow) {
        remembered = false;
        long monotonicBefore = monotonicAnchor;
        monotonicAnchor = toMonotonic(globalNow);
        assert monotonicAnchor >= monotonicBefore : "the monotonic clock moved back from " + monotonicBefore
                + " to " + monotonicAnchor + " ns at global " + globalNow;
        wallAnchor = toLocal(globalNow);
        globalAnchor = Math.max(globalAnchor, globalNow);
    }

    public static void checkDrift(long ppm) {
        if (ppm < -MAX_DRIFT_PPM || ppm > MAX_DRIFT_PPM) {
            throw new IllegalArgumentException("clock drift must be between -" + MAX_DRIFT_PPM + " and "
                    + MAX_DRIFT_PPM + " ppm, was " + ppm);
        }
    }

    /** floor(d * ppm / 1e6) for d >= 0, without overflow: d split at a million. */
    private static long scaled(long d, long ppm) {
        long whole = d / MILLION;
        long rest = d % MILLION;
        return whole * ppm + Math.floorDiv(rest * ppm, MILLION);
    }

    private static long saturatingAdd(long a, long b) {
        long sum = a + b;
        if (((a ^ sum) & (b ^ sum)) < 0) {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return sum;
    }

    @Override
    public String toString() {
        return "NodeClock(anchor " + globalAnchor + " -> monotonic " + monotonicAnchor + ", wall " + wallAnchor
                + " ns, drift " + driftPpm + " ppm)";
    }
}
