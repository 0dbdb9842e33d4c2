package dev.lockstep.testing;

import dev.lockstep.Context;
import dev.lockstep.sim.SimControl;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;

/**
 * The network half of a {@link FaultConfig}: a task that, at seeded moments, partitions two hosts and heals
 * them later ({@link Fault#PARTITION}) or resets every connection of a host ({@link Fault#CONNECTION_RESET}).
 * Run it in its own task of a simulation: {@code ctx.child("nemesis").spawn(c -> nemesis.run(c))}; it runs
 * until aborted and heals what it cut when it is.
 *
 * <p>Every choice comes from {@link SimControl#random()}, so the schedule is part of the seed. Not thread-safe:
 * a simulation runs on one thread.
 */
public final class Nemesis {
    private final FaultConfig faults;
    private final List<InetAddress> hosts;
    private final Duration meanPause;
    private final Consumer<String> events;
    private int partitions;
    private int resets;

    /**
     * @param faults which network faults are on (others are ignored)
     * @param hosts the hosts to cut apart, at least two for partitions
     * @param meanPause the mean time between two faults
     * @param events receives one line per fault, for traces; may be a no-op
     */
    public Nemesis(FaultConfig faults, List<InetAddress> hosts, Duration meanPause, Consumer<String> events) {
        this.faults = Objects.requireNonNull(faults, "faults");
        this.hosts = List.copyOf(hosts);
        this.meanPause = Objects.requireNonNull(meanPause, "meanPause");
        this.events = Objects.requireNonNull(events, "events");
    }

    /**
     * Whether this nemesis has anything to do with its faults and hosts.
     *
     * @return true if partitions (with two hosts or more) or resets are on
     */
    public boolean active() {
        return (faults.has(Fault.PARTITION) && hosts.size() >= 2) || faults.has(Fault.CONNECTION_RESET);
    }

    /**
     * Partitions started so far.
     *
     * @return the count
     */
    public int partitions() {
        return partitions;
    }

    /**
     * Connection resets made so far (one per reset host, whatever the number of connections).
     *
     * @return the count
     */
    public int resets() {
        return resets;
    }

    /**
     * Injects faults until aborted.
     *
     * @param ctx the nemesis task's context, in a simulation
     * @return never returns normally
     */
    public Void run(Context ctx) {
        SimControl control = dev.lockstep.sim.SimRunner.control(ctx);
        RandomGenerator random = control.random();
        boolean canPartition = faults.has(Fault.PARTITION) && hosts.size() >= 2;
        boolean canReset = faults.has(Fault.CONNECTION_RESET) && !hosts.isEmpty();
        if (!canPartition && !canReset) {
            return null;
        }
        try {
            while (true) {
                ctx.sleep(Duration.ofNanos(1 + random.nextLong(2 * meanPause.toNanos())));
                boolean partition = canPartition && (!canReset || random.nextInt(3) > 0);
                if (partition) {
                    int a = random.nextInt(hosts.size());
                    int b = (a + 1 + random.nextInt(hosts.size() - 1)) % hosts.size();
                    Duration length = Duration.ofNanos(1 + random.nextLong(2 * meanPause.toNanos()));
                    control.partition(hosts.get(a), hosts.get(b));
                    partitions++;
                    events.accept("nemesis: partition " + hosts.get(a).getHostAddress() + " <-> "
                            + hosts.get(b).getHostAddress() + " for " + length.toMillis() + " ms");
                    ctx.sleep(length);
                    control.heal(hosts.get(a), hosts.get(b));
                    events.accept("nemesis: healed " + hosts.get(a).getHostAddress() + " <-> "
                            + hosts.get(b).getHostAddress());
                } else {
                    InetAddress host = hosts.get(random.nextInt(hosts.size()));
                    int broken = control.breakConnections(host);
                    resets++;
                    events.accept("nemesis: reset " + broken + " connection(s) of " + host.getHostAddress());
                }
            }
        } finally {
            if (canPartition) {
                try {
                    control.healAll();
                } catch (RuntimeException simulationOver) {
                    // Aborted by a crash or the end of the run: nothing left to heal.
                }
            }
        }
    }
}
