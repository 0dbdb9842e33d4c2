package dev.lockstep.conformance;

import dev.lockstep.Runner;
import dev.lockstep.sim.SimConfig;
import dev.lockstep.sim.SimRunner;
import dev.lockstep.sim.os.SimKernel;
import java.nio.file.Path;

/**
 * The test SPI of runtime-sim.
 *
 * <p>A direct peer write hands the bytes to the simulated network exactly as the simulated kernel does for a
 * {@code SEND} that completes in full: the simulator is single-threaded and the caller is a fiber on its thread,
 * so calling the network here is as safe as the kernel calling it ({@link SimKernel#sendDirect}).
 */
final class SimProbe implements Probe {
    static final SimProbe INSTANCE = new SimProbe();

    private SimProbe() {
    }

    @Override
    public Runner runner(RuntimeConfig config, int ringEntries, Path storage, boolean leakChecked) {
        // The seed's cross-thread cases run plain threads while the fiber spins (Turns): allowed here.
        return SimRunner.of(SimConfig.builder().seed(config.seed()).workers(config.workers())
                .ringEntries(ringEntries).failOnLeaks(leakChecked).build()).allowingForeignThreads();
    }

    @Override
    public Runner runner(RuntimeConfig config, int ringEntries, dev.lockstep.ReceiveLimits limits) {
        return SimRunner.of(SimConfig.builder().seed(config.seed()).workers(config.workers())
                .ringEntries(ringEntries).receiveLimits(limits).build());
    }

    @Override
    public java.net.InetAddress localHost() {
        SimKernel kernel = (SimKernel) worker().engine().kernel();
        return kernel.hasWorkerHosts() ? SimKernel.workerHost(worker().index()) : kernel.hostAddress();
    }

    @Override
    public java.util.Set<Integer> openFds() {
        return new java.util.TreeSet<>(((SimKernel) worker().engine().kernel()).openFds());
    }

    @Override
    public void writeDirect(int peerFd, byte[] data) {
        SimKernel kernel = (SimKernel) worker().engine().kernel();
        int sent = kernel.sendDirect(peerFd, data);
        if (sent != data.length) {
            throw new IllegalStateException("direct write of " + data.length + " bytes to simulated fd " + peerFd
                    + " returned " + sent);
        }
    }

    @Override
    public String toString() {
        return "sim probe";
    }
}
