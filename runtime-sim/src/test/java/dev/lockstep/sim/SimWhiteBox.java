package dev.lockstep.sim;

import dev.lockstep.Runner;
import dev.lockstep.engine.WhiteBoxRuntime;
import dev.lockstep.sim.os.SimKernel;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;

/**
 * The simulator's configurations of the engine's white-box cases: seeds 7 and 13, one and two workers.
 *
 * <p>A direct peer write hands the bytes to the simulated network exactly as the simulated kernel does for a
 * {@code SEND} that completes in full: the simulator is single-threaded and the caller is a fiber on its thread,
 * so calling the network here is as safe as the kernel calling it ({@link SimKernel#sendDirect}).
 *
 * @param seed the seed
 * @param workers simulated workers
 */
record SimWhiteBox(long seed, int workers) implements WhiteBoxRuntime {

    /** The configurations, in the order their runs are reported. */
    static final List<WhiteBoxRuntime> ALL = List.of(new SimWhiteBox(7, 1), new SimWhiteBox(7, 2),
            new SimWhiteBox(13, 2));

    @Override
    public Runner runner(int ringEntries, Path storage, boolean leakChecked) {
        // The seed's cross-thread cases run plain threads while the fiber spins (Turns): allowed here.
        return SimRunner.of(SimConfig.builder().seed(seed).workers(workers).ringEntries(ringEntries)
                .failOnLeaks(leakChecked).build()).allowingForeignThreads();
    }

    @Override
    public boolean isSim() {
        return true;
    }

    @Override
    public InetAddress localHost() {
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
        return "[sim seed=" + seed + " workers=" + workers + "]";
    }
}
