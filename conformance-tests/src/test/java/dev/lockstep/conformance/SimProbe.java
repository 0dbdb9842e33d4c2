package dev.lockstep.conformance;

import dev.lockstep.Runner;
import dev.lockstep.sim.SimConfig;
import dev.lockstep.sim.SimKernel;
import dev.lockstep.sim.SimNetwork;
import dev.lockstep.sim.SimRunner;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Path;

/**
 * The test SPI of runtime-sim.
 *
 * <p>A direct peer write hands the bytes to the simulated network exactly as the simulated kernel does for a
 * {@code SEND} that completes in full: the simulator is single-threaded and the caller is a fiber on its thread,
 * so calling the network here is as safe as the kernel calling it. runtime-sim has no public hook for this (the
 * socket-level calls of {@link SimNetwork} and the fd table of {@link SimKernel} are package-private), so it is
 * reached reflectively; see the report of issue 5.
 */
final class SimProbe implements Probe {
    static final SimProbe INSTANCE = new SimProbe();

    private SimProbe() {
    }

    @Override
    public Runner runner(RuntimeConfig config, int ringEntries, Path storage) {
        return SimRunner.of(SimConfig.builder().seed(config.seed()).workers(config.workers())
                .ringEntries(ringEntries).build());
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
        try {
            Method description = SimKernel.class.getDeclaredMethod("description", int.class);
            description.setAccessible(true);
            Object open = description.invoke(kernel, peerFd);
            Field socketField = open.getClass().getDeclaredField("socket");
            socketField.setAccessible(true);
            Object socket = socketField.get(open);
            Method send = SimNetwork.class.getDeclaredMethod("send", socket.getClass(), byte[].class, int.class,
                    int.class);
            send.setAccessible(true);
            int sent = (int) send.invoke(kernel.network(), socket, data, 0, data.length);
            if (sent != data.length) {
                throw new IllegalStateException("direct write of " + data.length + " bytes to simulated fd " + peerFd
                        + " returned " + sent);
            }
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot write simulated fd " + peerFd + " directly: " + e, e);
        }
    }

    @Override
    public String toString() {
        return "sim probe";
    }
}
