package dev.lockstep.spi;

import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

/**
 * One metric a runtime offers a {@link MetricsSink}: a name, a few bounded tags (a worker's index, an operation's
 * kind) and functions that read the value now. Values are plain counters the runtime keeps as it works; nothing
 * is reported per event, so a meter costs nothing until it is read.
 *
 * <h2>Threads</h2>
 * The read functions may be called from any thread, at any time, also after the run ended (then counters read
 * their final values and gauges 0). A value read while the run goes on is recent, not a snapshot across meters:
 * two meters read one after the other may straddle an operation. Reading never changes the run: in the
 * simulator it draws nothing and records nothing, so the run's digest is the same whether meters are read or not.
 */
public sealed interface Meter permits Meter.Counter, Meter.Gauge, Meter.Timer {
    /** What names and tag keys look like: lower-case words joined by dots. */
    Pattern NAME = Pattern.compile("[a-z][a-z0-9]*(\\.[a-z][a-z0-9]*)*");

    /**
     * The meter's name, e.g. {@code lockstep.storage.bytes}: lower-case words joined by dots.
     *
     * @return the name
     */
    String name();

    /**
     * What the meter counts, one sentence.
     *
     * @return the description
     */
    String description();

    /**
     * Tags that tell meters of one name apart, e.g. {@code worker=0, kind=write}; few values each.
     *
     * @return an unmodifiable map
     */
    Map<String, String> tags();

    /**
     * A count that only grows.
     *
     * @param name the name
     * @param description what it counts
     * @param unit the unit ({@code bytes}, {@code calls}, ...)
     * @param tags its tags
     * @param count reads the count
     */
    record Counter(String name, String description, String unit, Map<String, String> tags, LongSupplier count)
            implements Meter {
        /**
         * Checks the fields.
         *
         * @throws IllegalArgumentException naming a bad name or tag key
         * @throws NullPointerException naming a missing field
         */
        public Counter {
            tags = checked(name, description, unit, tags);
            Objects.requireNonNull(count, "count");
        }
    }

    /**
     * A value that goes up and down, read as it is now (requests in flight, fibers runnable).
     *
     * @param name the name
     * @param description what it measures
     * @param unit the unit
     * @param tags its tags
     * @param value reads the value
     */
    record Gauge(String name, String description, String unit, Map<String, String> tags, LongSupplier value)
            implements Meter {
        /**
         * Checks the fields.
         *
         * @throws IllegalArgumentException naming a bad name or tag key
         * @throws NullPointerException naming a missing field
         */
        public Gauge {
            tags = checked(name, description, unit, tags);
            Objects.requireNonNull(value, "value");
        }
    }

    /**
     * Events that took time: how many, and their total duration in nanoseconds (a mean divides the two).
     *
     * @param name the name
     * @param description what it times
     * @param tags its tags
     * @param count reads the number of events
     * @param totalNanos reads their total duration, in nanoseconds
     */
    record Timer(String name, String description, Map<String, String> tags, LongSupplier count,
                 LongSupplier totalNanos) implements Meter {
        /**
         * Checks the fields.
         *
         * @throws IllegalArgumentException naming a bad name or tag key
         * @throws NullPointerException naming a missing field
         */
        public Timer {
            tags = checked(name, description, "nanoseconds", tags);
            Objects.requireNonNull(count, "count");
            Objects.requireNonNull(totalNanos, "totalNanos");
        }
    }

    private static Map<String, String> checked(String name, String description, String unit,
                                               Map<String, String> tags) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(unit, "unit");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("a meter name is lower-case words joined by dots, was '" + name + "'");
        }
        for (String key : tags.keySet()) {
            if (!NAME.matcher(key).matches()) {
                throw new IllegalArgumentException("a tag key is lower-case words joined by dots, was '" + key
                        + "' on meter " + name);
            }
        }
        return Map.copyOf(tags);
    }
}
