package dev.lockstep.sim;

/**
 * One node's clock in a {@link SimCluster}: a view of the simulation's one {@link SimClock} with its own offset,
 * drift and steps. The node's tasks read it ({@code ctx.now()}) and its timers are keyed on it; the scheduler
 * keeps every event on the global timeline by turning a node's timer deadlines into global time
 * ({@link #toGlobal}).
 *
 * <h2>The mapping</h2>
 * From an anchor {@code (globalAnchor, localAnchor)}, local time is
 * {@code localAnchor + d + floor(d * driftPpm / 1e6)} with {@code d = global - globalAnchor}: monotone in global
 * time for every allowed drift ({@code |driftPpm| <= }{@value #MAX_DRIFT_PPM}). A change of drift or a step
 * re-anchors at the current global time, so what the node read before never changes. A step back does not make
 * the node's clock go back: a worker's clock never goes backwards (on runtime-uring it is {@code CLOCK_MONOTONIC}),
 * so the node's time stands still until the stepped clock catches up, and its timers fire by the time it shows.
 * All arithmetic is exact integer arithmetic: the same seed maps the same way on every machine.
 *
 * <h2>The end of time</h2>
 * A node's clock shows at most {@link #LATEST} ({@code Long.MAX_VALUE - 1} epoch nanoseconds), where a drift ahead
 * of global time holds it still. A deadline past it — what the engine saturates at {@code Long.MAX_VALUE}, such as
 * a 1 ms sleep at that moment — never comes, so the node's tasks wait there rather than wake without time
 * passing; the run goes on and ends as any run does. A step that would go past {@link #LATEST} is refused
 * ({@link #step}); a step back before the epoch takes the clock to the epoch.
 *
 * <p>Confined to the simulator's thread, like the rest of a simulation.
 */
final class NodeClock {
    /** The latest time a node's clock shows: one nanosecond before a saturated deadline (see the class doc). */
    static final long LATEST = Long.MAX_VALUE - 1;
    /** The largest drift either way, in parts per million: 10 %. */
    static final long MAX_DRIFT_PPM = 100_000;
    private static final long MILLION = 1_000_000L;

    private long globalAnchor;
    private long localAnchor;
    private long driftPpm;

    /**
     * A clock that reads {@code offsetNanos} ahead of global time from {@code globalNow} on, without drift.
     *
     * @param globalNow the global time now
     * @param offsetNanos how far ahead (negative: behind), saturating
     */
    NodeClock(long globalNow, long offsetNanos) {
        this.globalAnchor = globalNow;
        this.localAnchor = Math.clamp(saturatingAdd(globalNow, offsetNanos), 0, LATEST);
    }

    /** The node's time at global time {@code global} ({@code >=} the last anchor). */
    long toLocal(long global) {
        long d = global - globalAnchor;
        if (d <= 0) {
            return localAnchor;
        }
        return Math.min(LATEST, saturatingAdd(localAnchor, saturatingAdd(d, scaled(d, driftPpm))));
    }

    /**
     * The earliest global time at which the node's clock shows {@code local} or later: when a timer set for
     * {@code local} on this node is due. At most the anchor for a time the node has passed; {@code Long.MAX_VALUE}
     * stays {@code Long.MAX_VALUE}.
     */
    long toGlobal(long local) {
        if (local == Long.MAX_VALUE) {
            return Long.MAX_VALUE;
        }
        long ahead = local - localAnchor;
        if (ahead <= 0) {
            return globalAnchor;
        }
        // Binary search for the least d with toLocal(anchor + d) >= local: toLocal is monotone, and with
        // |drift| <= 10 % the answer lies below 2 * ahead.
        long low = globalAnchor;
        long high = saturatingAdd(globalAnchor, saturatingAdd(ahead, ahead));
        if (toLocal(high) < local) {
            return Long.MAX_VALUE;
        }
        while (low < high) {
            long middle = low + (high - low) / 2;
            if (toLocal(middle) >= local) {
                high = middle;
            } else {
                low = middle + 1;
            }
        }
        return low;
    }

    /** Sets the drift from {@code globalNow} on. */
    void drift(long globalNow, long ppm) {
        checkDrift(ppm);
        reanchor(globalNow);
        driftPpm = ppm;
    }

    /** Whether a step of {@code stepNanos} at {@code globalNow} keeps the clock at or before {@link #LATEST}. */
    boolean stepFits(long globalNow, long stepNanos) {
        return saturatingAdd(toLocal(globalNow), stepNanos) <= LATEST;
    }

    /**
     * Moves the clock by {@code stepNanos} (either way) at {@code globalNow}; back at most to the epoch.
     *
     * @throws IllegalArgumentException if the step does not {@linkplain #stepFits fit}, the clock unchanged
     */
    void step(long globalNow, long stepNanos) {
        if (!stepFits(globalNow, stepNanos)) {
            throw new IllegalArgumentException("a clock step of " + stepNanos + " ns from " + toLocal(globalNow)
                    + " ns would pass " + LATEST + " ns");
        }
        reanchor(globalNow);
        localAnchor = Math.max(0, saturatingAdd(localAnchor, stepNanos));
    }

    long driftPpm() {
        return driftPpm;
    }

    private void reanchor(long globalNow) {
        localAnchor = toLocal(globalNow);
        globalAnchor = Math.max(globalAnchor, globalNow);
    }

    static void checkDrift(long ppm) {
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
        return "NodeClock(anchor " + globalAnchor + " -> " + localAnchor + " ns, drift " + driftPpm + " ppm)";
    }
}
