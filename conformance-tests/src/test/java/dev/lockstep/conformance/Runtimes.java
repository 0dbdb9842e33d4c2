package dev.lockstep.conformance;

import dev.lockstep.Runner;
import dev.lockstep.spi.Meter;
import dev.lockstep.spi.MetricsSink;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * What a conformance case gets: fresh runners of one {@link RuntimeConfig}, the ring size it asked for, and the
 * {@link Probe} of that runtime. Every runtime-uring runner gets its own storage directory under the system's
 * temporary directory, deleted by {@link #close()}; every simulator runner has its own simulated disk. Every
 * runner reports its metrics here, so a case can read the requests its run has outstanding
 * ({@link #requestsOutstanding()}).
 *
 * <p>Not thread-safe: one case uses one instance (the metrics are read from any thread; see {@link Meter}).
 */
public final class Runtimes implements AutoCloseable {
    private final RuntimeConfig config;
    private final int ring;
    private final boolean leakChecked;
    private final List<Path> directories = new ArrayList<>();
    private int runners;
    /** The meters of the run that started last; the runner's thread writes, a case's fibers read. */
    private volatile List<Meter> meters = List.of();
    private final MetricsSink sink = new MetricsSink() {
        @Override
        public void runStarted(List<Meter> started) {
            meters = started;
        }
    };

    /**
     * @param config the configuration
     * @param ring ring entries per worker
     */
    public Runtimes(RuntimeConfig config, int ring) {
        this(config, ring, true);
    }

    /**
     * @param config the configuration
     * @param ring ring entries per worker
     * @param leakChecked whether a simulated run that ends holding resources fails ({@link Conformance#leavesOpen})
     */
    public Runtimes(RuntimeConfig config, int ring, boolean leakChecked) {
        this.config = config;
        this.ring = ring;
        this.leakChecked = leakChecked;
    }

    /**
     * A fresh runner with the case's ring size.
     *
     * @return a runner, single use
     */
    public Runner runner() {
        return runner(ring);
    }

    /**
     * A fresh runner with another ring size.
     *
     * @param ringEntries ring entries per worker
     * @return a runner, single use
     */
    public Runner runner(int ringEntries) {
        runners++;
        return probe().runner(config, ringEntries, isSim() ? null : freshDirectory(), leakChecked, sink);
    }

    /**
     * A fresh runner with the case's ring size, no storage, and its buffered receive memory bounded by
     * {@code limits}.
     *
     * @param limits the bounds
     * @return a runner, single use
     */
    public Runner runner(dev.lockstep.ReceiveLimits limits) {
        runners++;
        return probe().runner(config, ring, limits, sink);
    }

    /**
     * A fresh runner of this configuration whose storage lives in {@code directory} (runtime-uring), to run
     * a second runtime over what a first one left. The simulator's disk lives and dies with its runner, so
     * for it this is {@link #runner()}.
     *
     * @param directory the storage directory
     * @return a runner
     */
    public Runner runnerOn(Path directory) {
        runners++;
        return isSim() ? runner() : probe().runner(config, ring, directory, leakChecked, sink);
    }

    /**
     * Runs {@code first}, then {@code second} on a new runner over the storage {@code first} left: on the
     * simulator the machine crashes when {@code first} returns (unsynced writes lost, {@code CrashPolicy.ALL_LOST})
     * and {@code second} runs from the checkpoint; on runtime-uring the second runner opens the same directory
     * (a clean restart — a real crash cannot be staged here). So what {@code second} sees is at most what
     * {@code first} made durable on the simulator, and at least that on both.
     *
     * @param first the first run
     * @param second the run after the restart
     * @param <T> the second run's value
     * @return what {@code second} returned
     */
    public <T> T restartBetween(dev.lockstep.Task<?> first, dev.lockstep.Task<T> second) {
        if (isSim()) {
            dev.lockstep.sim.SimRunner sim = (dev.lockstep.sim.SimRunner) runner();
            dev.lockstep.sim.Recovered<?> recovered = sim.startAndRecover(first);
            recovered.outcome().value();
            runners++;
            return dev.lockstep.sim.SimRunner.from(recovered.checkpoint()).start(second);
        }
        Path directory = freshDirectory();
        runnerOn(directory).start(first);
        return runnerOn(directory).start(second);
    }

    /**
     * Requests the run that started last has submitted to its kernel and not yet seen complete, or admitted and
     * not yet submitted, over all its workers: the sum of its {@code lockstep.requests.inflight} and
     * {@code lockstep.requests.queued} gauges. 0 once everything the run asked of its kernel is done.
     *
     * @return the count
     */
    public int requestsOutstanding() {
        long outstanding = 0;
        for (Meter meter : meters) {
            if (meter instanceof Meter.Gauge gauge && (gauge.name().equals("lockstep.requests.inflight")
                    || gauge.name().equals("lockstep.requests.queued"))) {
                outstanding += gauge.value().getAsLong();
            }
        }
        return Math.toIntExact(outstanding);
    }

    /**
     * A new empty directory, deleted by {@link #close()}.
     *
     * @return the directory
     */
    public Path freshDirectory() {
        try {
            Path directory = Files.createTempDirectory("lockstep-conformance-");
            directories.add(directory);
            return directory;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The configuration.
     *
     * @return it
     */
    public RuntimeConfig config() {
        return config;
    }

    /**
     * Which runtime.
     *
     * @return the kind
     */
    public RuntimeKind kind() {
        return config.kind();
    }

    /**
     * Whether this is the simulator.
     *
     * @return true for runtime-sim
     */
    public boolean isSim() {
        return config.kind() == RuntimeKind.SIM;
    }

    /**
     * The number of workers.
     *
     * @return at least 1
     */
    public int workers() {
        return config.workers();
    }

    /**
     * The ring size the case asked for.
     *
     * @return ring entries per worker
     */
    public int ring() {
        return ring;
    }

    /**
     * The runtime's test SPI.
     *
     * @return the probe
     */
    public Probe probe() {
        return Probe.of(config.kind());
    }

    /**
     * Runners made so far.
     *
     * @return the count
     */
    public int runnersMade() {
        return runners;
    }

    /** Deletes every storage directory made. */
    @Override
    public void close() {
        for (Path directory : directories) {
            deleteRecursively(directory);
        }
        directories.clear();
    }

    static void deleteRecursively(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + root, e);
        }
    }

    @Override
    public String toString() {
        return config.displayName() + " ring=" + ring;
    }
}
