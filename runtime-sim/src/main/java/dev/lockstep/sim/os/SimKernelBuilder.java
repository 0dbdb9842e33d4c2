package dev.lockstep.sim.os;

import dev.lockstep.sim.KernelBehavior;
import dev.lockstep.sim.NetworkConfig;
import dev.lockstep.sim.SimCluster;
import dev.lockstep.sim.SimConfig;
import dev.lockstep.sim.audit.Auditor;
import dev.lockstep.sim.audit.Generator;
import java.net.InetAddress;
import java.util.Objects;

/**
 * Builds a {@link SimKernel} ({@link SimKernel#builder}): the host's file system, network, address, the rings'
 * behaviour, the open-file limit, and for a {@link SimCluster} node its clock and worker hosts. The simulator's
 * thread only, as the kernel.
 */
public final class SimKernelBuilder {
    final Generator generator;
    final Auditor auditor;
    final SimClock clock;
    SimFileSystem fileSystem;
    SimNetwork network;
    InetAddress hostAddress = SimKernel.workerHost(0);
    KernelBehavior behavior = KernelBehavior.DEFAULT;
    int openFileLimit = SimKernel.MAX_FDS;
    boolean workerHosts;
    NodeClock nodeClock;

    SimKernelBuilder(Generator generator, Auditor auditor, SimClock clock) {
        this.generator = Objects.requireNonNull(generator, "generator");
        this.auditor = Objects.requireNonNull(auditor, "auditor");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * The host's file system; by default a new empty one without faults. Pass the same file system to the
     * kernel that restarts a crashed host.
     *
     * @param fileSystem the file system
     * @return this
     */
    public SimKernelBuilder fileSystem(SimFileSystem fileSystem) {
        this.fileSystem = Objects.requireNonNull(fileSystem, "fileSystem");
        return this;
    }

    /**
     * The network the host is on; by default a new one with {@link NetworkConfig#DEFAULT}. Hosts that talk
     * to each other share one.
     *
     * @param network the network
     * @return this
     */
    public SimKernelBuilder network(SimNetwork network) {
        this.network = Objects.requireNonNull(network, "network");
        return this;
    }

    /**
     * The host's one address; by default {@code 127.0.0.1}.
     *
     * @param hostAddress the address
     * @return this
     */
    public SimKernelBuilder hostAddress(InetAddress hostAddress) {
        this.hostAddress = Objects.requireNonNull(hostAddress, "hostAddress");
        return this;
    }

    /**
     * The rings' behaviour; by default {@link KernelBehavior#DEFAULT}.
     *
     * @param behavior the behaviour
     * @return this
     */
    public SimKernelBuilder behavior(KernelBehavior behavior) {
        this.behavior = Objects.requireNonNull(behavior, "behavior");
        return this;
    }

    /**
     * The process's open-file limit ({@link SimConfig#openFileLimit()}); by default {@link SimKernel#MAX_FDS}.
     *
     * @param limit above {@link SimKernel#FIRST_FD}, at most {@link SimKernel#MAX_FDS}
     * @return this
     * @throws IllegalArgumentException naming the value otherwise
     */
    public SimKernelBuilder openFileLimit(int limit) {
        if (limit <= SimKernel.FIRST_FD || limit > SimKernel.MAX_FDS) {
            throw new IllegalArgumentException("an open-file limit is above " + SimKernel.FIRST_FD + " and at most "
                    + SimKernel.MAX_FDS + ", was " + limit);
        }
        this.openFileLimit = limit;
        return this;
    }

    /**
     * Makes each worker of the engine over this kernel its own host: a socket opened by worker {@code i} is on
     * host {@link SimKernel#workerHost(int) 127.0.0.(i+1)}, so partitions between workers' addresses apply to their
     * traffic. The kernel owns the whole loopback range, as a Linux machine does: a socket may bind any
     * {@code 127.0.0.0/8} address or {@code ::1} (the socket then is on that host), and a wildcard listener
     * accepts connections to every loopback address. The network must have no other kernel claiming that.
     *
     * @return this
     */
    public SimKernelBuilder workerHosts() {
        this.workerHosts = true;
        return this;
    }

    /** The clock of a {@link SimCluster} node: what this kernel's rings report as the time. */
    public SimKernelBuilder nodeClock(NodeClock clock) {
        this.nodeClock = Objects.requireNonNull(clock, "clock");
        return this;
    }

    /**
     * Builds the kernel; records its boot in the auditor.
     *
     * @return the kernel
     */
    public SimKernel build() {
        return new SimKernel(this);
    }
}
