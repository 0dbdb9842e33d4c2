package dev.lockstep.demo;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;
import java.util.function.Supplier;

/**
 * The last events of a simulated run, each stamped with simulated time: what {@code replay} prints before a
 * failure. A bounded ring; used on the simulator's one thread.
 */
final class Trace {
    private final int capacity;
    private final ArrayDeque<String> lines = new ArrayDeque<>();
    private final ArrayDeque<String> notable = new ArrayDeque<>();
    private Supplier<Instant> clock = () -> null;
    private Instant origin;
    private long total;

    Trace(int capacity) {
        this.capacity = capacity;
    }

    void clock(Supplier<Instant> value, Instant start) {
        clock = value;
        if (origin == null) {
            origin = start;
        }
    }

    /**
     * Whether this trace keeps anything: a sweep's seeds run with none (only a replay prints a trace), and a caller
     * that builds a line per request asks this first rather than formatting lines nobody reads.
     */
    boolean keeps() {
        return capacity > 0;
    }

    /** A routine event: kept among the last events only. */
    void event(String line) {
        record(line, false);
    }

    /** A notable event (a fault, a failure, a restart): also kept in the list of notable events. */
    void notable(String line) {
        record(line, true);
    }

    private void record(String line, boolean isNotable) {
        total++;
        if (capacity == 0) {
            return;
        }
        Instant now = clock.get();
        String stamp = now == null || origin == null ? "          "
                : String.format("%10.6f", Duration.between(origin, now).toNanos() / 1e9);
        lines.addLast(stamp + "s  " + line);
        if (lines.size() > capacity) {
            lines.removeFirst();
        }
        if (isNotable) {
            notable.addLast(stamp + "s  " + line);
            if (notable.size() > capacity) {
                notable.removeFirst();
            }
        }
    }

    List<String> notable() {
        return List.copyOf(notable);
    }

    long total() {
        return total;
    }

    List<String> last() {
        return List.copyOf(lines);
    }
}
