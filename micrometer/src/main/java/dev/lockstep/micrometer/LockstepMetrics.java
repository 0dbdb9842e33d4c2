package dev.lockstep.micrometer;

import dev.lockstep.spi.Meter;
import dev.lockstep.spi.MetricsSink;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * Lockstep's meters in Micrometer registries: give it to a runner as its {@link MetricsSink}
 * ({@code UringRunner.builder().metrics(metrics)}, {@code SimRunner.metrics(metrics)}) and bind it to any number of
 * registries ({@link #bindTo}, or a framework that binds every {@link MeterBinder} it finds).
 *
 * <pre>{@code
 * LockstepMetrics metrics = new LockstepMetrics();
 * metrics.bindTo(registry);
 * UringRunner.builder().storage(data).metrics(metrics).build().start(task);
 * }</pre>
 *
 * <p>Each Lockstep meter becomes a Micrometer meter of the same name and tags: a {@link FunctionCounter}, a
 * {@link Gauge} or a {@link FunctionTimer} (nanoseconds), each reading the runtime's counter when the registry
 * asks, so nothing is recorded per event. Names are dotted ({@code lockstep.storage.bytes}); a registry's naming
 * convention renders them (Prometheus: {@code lockstep_storage_bytes_total}). Tags are bounded: {@code worker}
 * (the worker's index), {@code kind} (an operation's kind) and, from the simulator, {@code node}.
 *
 * <h2>Runs</h2>
 * A run's meters are registered when it starts, in every registry bound by then or later. They stay registered
 * after the run ended, reading its final counts (gauges read 0), until a later run's meter of the same name and
 * tags replaces them: the next run of a runner replaces the last one's, a restarted simulated node its last
 * lifetime's, while the nodes of a {@code SimCluster}, tagged apart, stand side by side.
 *
 * <h2>Threads</h2>
 * Thread-safe. The runner calls it on the thread that starts a run, before any task runs; registries read the
 * meters on any thread.
 */
public final class LockstepMetrics implements MetricsSink, MeterBinder {
    /** Guards the fields below: the runner's thread and binding threads meet here. */
    private final ReentrantLock lock = new ReentrantLock();
    private final List<MeterRegistry> registries = new ArrayList<>();
    /** The meters registered now, by name and tags: the latest run's of each, in the order they came. */
    private final Map<MeterKey, Meter> current = new LinkedHashMap<>();
    /** What each of {@link #current} became in the registries, to remove when a later run replaces it. */
    private final Map<MeterKey, List<io.micrometer.core.instrument.Meter>> registered = new HashMap<>();

    /**
     * A meter's identity: its name and its tags, compared as a map (a string of the two would make tag values
     * holding {@code ", "}, {@code "="} or <code>"}"</code> collide with other tag sets).
     */
    private record MeterKey(String name, SortedMap<String, String> tags) {
        static MeterKey of(Meter meter) {
            return new MeterKey(meter.name(), new TreeMap<>(meter.tags()));
        }
    }

    /** A sink bound to no registry yet. */
    public LockstepMetrics() {
    }

    /**
     * Registers the meters of the runs seen so far in {@code registry}, and every later run's.
     *
     * @param registry the registry
     */
    @Override
    public void bindTo(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        lock.lock();
        try {
            if (registries.contains(registry)) {
                return;
            }
            registries.add(registry);
            current.forEach((key, meter) -> registered.get(key).add(register(registry, meter)));
        } finally {
            lock.unlock();
        }
    }

    /**
     * A run starts: its meters replace those of the same name and tags (the last run's, or the last lifetime's of
     * the same simulated node) in every bound registry.
     *
     * @param meters the run's meters
     */
    @Override
    public void runStarted(List<Meter> meters) {
        lock.lock();
        try {
            for (Meter meter : meters) {
                MeterKey key = MeterKey.of(meter);
                List<io.micrometer.core.instrument.Meter> replaced = registered.remove(key);
                if (replaced != null) {
                    for (io.micrometer.core.instrument.Meter old : replaced) {
                        for (MeterRegistry registry : registries) {
                            registry.remove(old);
                        }
                    }
                }
                current.remove(key);
                current.put(key, meter);
                List<io.micrometer.core.instrument.Meter> made = new ArrayList<>();
                for (MeterRegistry registry : registries) {
                    made.add(register(registry, meter));
                }
                registered.put(key, made);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Micrometer's function counters and timers hold their state weakly: {@link #current} keeps it reachable for
     * as long as the run's meters are registered here.
     */
    private static io.micrometer.core.instrument.Meter register(MeterRegistry registry, Meter meter) {
        List<Tag> tags = tags(meter.tags());
        return switch (meter) {
            case Meter.Counter counter -> FunctionCounter.builder(counter.name(), counter.count(),
                            LockstepMetrics::read)
                    .description(counter.description())
                    .baseUnit(counter.unit())
                    .tags(tags)
                    .register(registry);
            case Meter.Gauge gauge -> Gauge.builder(gauge.name(), gauge.value(), LockstepMetrics::read)
                    .description(gauge.description())
                    .baseUnit(gauge.unit())
                    .tags(tags)
                    .strongReference(true)
                    .register(registry);
            case Meter.Timer timer -> FunctionTimer.builder(timer.name(), timer,
                            t -> t.count().getAsLong(), t -> (double) t.totalNanos().getAsLong(),
                            TimeUnit.NANOSECONDS)
                    .description(timer.description())
                    .tags(tags)
                    .register(registry);
        };
    }

    private static double read(LongSupplier value) {
        return value.getAsLong();
    }

    private static List<Tag> tags(Map<String, String> tags) {
        List<Tag> list = new ArrayList<>();
        tags.forEach((key, value) -> list.add(Tag.of(key, value)));
        return list;
    }

    @Override
    public String toString() {
        lock.lock();
        try {
            return "LockstepMetrics(" + current.size() + " meters, " + registries.size() + " registries)";
        } finally {
            lock.unlock();
        }
    }
}
