package dev.lockstep.conformance;

import dev.lockstep.Context;
import dev.lockstep.ReceiveLimits;
import dev.lockstep.Runner;
import dev.lockstep.sim.SimConfig;
import dev.lockstep.sim.SimRunner;
import dev.lockstep.spi.MetricsSink;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;

/** The probe of runtime-sim, through {@link SimRunner}, {@link SimConfig} and {@code SimControl}. */
final class SimProbe implements Probe {
    static final SimProbe INSTANCE = new SimProbe();

    private SimProbe() {
    }

    @Override
    public Runner runner(RuntimeConfig config, int ringEntries, Path storage, boolean leakChecked,
                         MetricsSink metrics) {
        // Some cases run plain threads while the fiber spins (Turns): allowed here.
        return SimRunner.of(SimConfig.builder().seed(config.seed()).workers(config.workers())
                .ringEntries(ringEntries).failOnLeaks(leakChecked).build()).allowingForeignThreads()
                .metrics(metrics);
    }

    @Override
    public Runner runner(RuntimeConfig config, int ringEntries, ReceiveLimits limits, MetricsSink metrics) {
        return SimRunner.of(SimConfig.builder().seed(config.seed()).workers(config.workers())
                .ringEntries(ringEntries).receiveLimits(limits).build()).metrics(metrics);
    }

    @Override
    public long receiveBufferBytes(Runner runner) {
        return ((SimRunner) runner).receiveBufferBytes();
    }

    @Override
    public InetAddress localHost(Context ctx) {
        return SimRunner.control(ctx).host();
    }

    @Override
    public Set<Integer> openFds(Context ctx) {
        return new TreeSet<>(SimRunner.control(ctx).openFds());
    }

    @Override
    public String toString() {
        return "sim probe";
    }
}
