package dev.lockstep.sim.os;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.Kernel;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.sim.KernelBehavior;
import dev.lockstep.sim.NetworkConfig;
import dev.lockstep.sim.SimCluster;
import dev.lockstep.sim.SimNode;
import dev.lockstep.sim.SimRunner;
import dev.lockstep.sim.StorageFaults;
import dev.lockstep.sim.audit.Auditor;
import dev.lockstep.sim.audit.Generator;
import dev.lockstep.sim.audit.Site;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The simulated operating system of one simulated host: its rings, its fd table, its file system, and its
 * address on the shared {@link SimNetwork}.
 *
 * <h2>Determinism</h2>
 * Everything a kernel decides comes from the one {@link Generator} (latencies, completion order, short
 * transfers, spurious errors, cancel races, faults, jitter), and time is the {@link SimClock}, which only the
 * scheduler moves. Nothing blocks: {@link SimRing#enter} returns at once, and the scheduler asks
 * {@link #nextEventNanos()} when to move the clock. Same seed and same calls give the same results, bit for bit.
 * Every SPI call and every completion is recorded in the {@link Auditor}.
 *
 * <h2>fds</h2>
 * One table per kernel ({@link FdTable}), shared by files and sockets: a new fd is the lowest free number from
 * {@value #FIRST_FD} (0, 1 and 2 are taken by the standard streams in a real process, so an engine that mistakes 0
 * for "no fd" is caught). An fd names an open {@link Description} (a file handle or a socket); closing the fd while
 * a request still uses the description keeps the description alive until that request completes, as a real
 * kernel does: the socket is shut, or the file handle released, only then.
 *
 * <h2>Threads</h2>
 * The simulator runs every worker on one thread, so a kernel is confined to that thread; {@link SimRing#wake()}
 * alone is safe from any thread. The SPI's "thread-safe" promise for {@link #system()} holds trivially there;
 * a call from another thread is a determinism leak that the scheduler, not the kernel, detects.
 *
 * <h2>Parts</h2>
 * The kernel is the seam between the engine's SPI and the simulated host: it builds the host, opens its rings and
 * answers for its time and addresses ({@link LoopbackHosts}); {@link SimKernelBuilder} is how a host is put
 * together (file system, network, address, behaviour, open-file limit, node clock). What it holds lives beside it:
 * the fd table
 * ({@link FdTable}) and what the fds name ({@link Description}), the rings' native memory ({@link RingMemory}),
 * where a system call's latency goes ({@link SyscallLatency}); the rings ({@link SimRing}), the synchronous calls
 * ({@link SimSystemCalls}), the file system ({@link SimFileSystem}) and the network ({@link SimNetwork}) are
 * classes of their own.
 */
public final class SimKernel implements Kernel {

    /** The first fd handed out. */
    public static final int FIRST_FD = 3;
    /** The largest number of open fds (the usual {@code RLIMIT_NOFILE}); one more fails {@code EMFILE}. */
    public static final int MAX_FDS = 1 << 20;

    private final Generator generator;
    private final Auditor auditor;
    private final SimClock clock;
    private final SimFileSystem fileSystem;
    private final SimNetwork network;
    private final InetAddress hostAddress;
    private final KernelBehavior behavior;
    private final SimSystemCalls system;
    private final FdTable fds;
    private final List<SimRing> rings = new ArrayList<>();
    private final RingMemory memory = new RingMemory();
    private final SyscallLatency syscallLatency;
    private final boolean workerHosts;
    /** A cluster node's own clock, or null: the kernel's time is the simulation's. */
    private final NodeClock nodeClock;
    private long nextRingId = 1;
    /** Ring completions delivered by this kernel's rings, for throughput figures. */
    public long ringCompletions;
    /** Synchronous calls made, for throughput figures. */
    public long systemCalls;
    /** The run this kernel belongs to, when a {@link SimRunner} made it; how a context finds its simulation. */
    public OwningRun simulation;
    /** The cluster node lifetime this kernel is the process of, or null: told of its I/O boundaries. */
    public IoBoundaryListener nodeRun;
    /** Syncs ({@code fsync}, {@code RWF_DSYNC} writes) submitted to this kernel's rings and not yet completed. */
    private int syncsInFlight;

    /** A ring took a sync: it is in flight until {@link #syncRetired()}. */
    void syncSubmitted() {
        syncsInFlight++;
        if (nodeRun != null) {
            nodeRun.ioBoundary(SimNode.IoBoundary.SYNC_IN_FLIGHT);
        }
    }

    /** A sync left its ring, done, failed or cancelled. */
    void syncRetired() {
        syncsInFlight--;
    }

    /** A sync made its data durable; its completion is not yet delivered. */
    void syncDone() {
        if (nodeRun != null) {
            nodeRun.ioBoundary(SimNode.IoBoundary.SYNC_DONE);
        }
    }

    /** Syncs in flight on this kernel's rings. */
    public int syncsInFlight() {
        return syncsInFlight;
    }

    SimKernel(SimKernelBuilder builder) {
        this.generator = builder.generator;
        this.auditor = builder.auditor;
        this.clock = builder.clock;
        this.fileSystem = builder.fileSystem != null ? builder.fileSystem
                : new SimFileSystem(generator, auditor, StorageFaults.NONE);
        this.network = builder.network != null ? builder.network
                : new SimNetwork(generator, auditor, clock, NetworkConfig.DEFAULT);
        this.hostAddress = builder.hostAddress;
        this.behavior = builder.behavior;
        this.fds = new FdTable(builder.openFileLimit);
        this.syscallLatency = new SyscallLatency(clock);
        this.workerHosts = builder.workerHosts;
        this.nodeClock = builder.nodeClock;
        if (workerHosts) {
            network.claimLoopback();
        }
        this.system = new SimSystemCalls(this);
        auditor.record("kernel.boot", Auditor.utf8(hostAddress.getHostAddress()), Auditor.u64(clock.nowNanos()));
    }

    /**
     * A builder for a kernel over the simulation's shared generator, auditor and clock.
     *
     * @param generator the one seeded source
     * @param auditor the event chain
     * @param clock simulated time
     * @return the builder
     */
    public static SimKernelBuilder builder(Generator generator, Auditor auditor, SimClock clock) {
        return new SimKernelBuilder(generator, auditor, clock);
    }

    // ------------------------------------------------------------------------------------------------ Kernel

    /**
     * Opens a ring.
     *
     * @param entries a power of two in {@code [1, maxEntries()]}
     * @return the ring
     * @throws IllegalArgumentException naming {@code entries} and its value otherwise
     */
    @Override
    public SimRing openRing(int entries) {
        if (entries < 1 || entries > behavior.maxRingEntries() || Integer.bitCount(entries) != 1) {
            throw new IllegalArgumentException("SimKernel.openRing: entries must be a power of two in [1, "
                    + behavior.maxRingEntries() + "], was " + entries);
        }
        SimRing ring = new SimRing(this, nextRingId++, entries);
        rings.add(ring);
        auditor.record("kernel.openRing", Auditor.u64(ring.id()), Auditor.u32(entries));
        return ring;
    }

    /**
     * The largest ring.
     *
     * @return {@link KernelBehavior#maxRingEntries()}
     */
    @Override
    public int maxEntries() {
        return behavior.maxRingEntries();
    }

    /**
     * The synchronous calls.
     *
     * @return the calls, confined to the simulator thread (see the class doc)
     */
    @Override
    public SimSystemCalls system() {
        return system;
    }

    /**
     * The application line on the calling stack ({@link Origins#caller()}): a leak report names the line that
     * created each fd, and an fd a blocking call opens is opened where no application frame is on the stack.
     *
     * @return the call site (its line read only by a report)
     */
    @Override
    public dev.lockstep.kernel.CallSite callerSite() {
        return Origins.caller();
    }

    /**
     * {@inheritDoc}
     *
     * <p>A view of the simulation's one generator: every {@code nextLong} is a draw at {@link Site#APPLICATION},
     * recorded in the audit, so a seed replays what the code drew. Nothing is drawn until the code asks, so a run
     * that never asks keeps its draws and digest. Only the simulation's tasks may draw: a draw from any other
     * thread throws {@link IllegalStateException} and fails the run.
     */
    @Override
    public java.util.random.RandomGenerator random() {
        return () -> {
            if (simulation != null) {
                simulation.checkConfined("Context.random");
            }
            return generator.nextLong(Site.APPLICATION);
        };
    }

    // ------------------------------------------------------------------------------------------- simulation

    /**
     * The earliest time at which an open ring of this kernel has a completion to deliver: what the scheduler
     * advances the clock to when nothing else is runnable.
     *
     * @return nanoseconds since the epoch; {@code Long.MAX_VALUE} if no request can complete without another
     *         event (for example a receive waiting for data nobody sent); at most the current time if some
     *         completion is due already
     */
    public long nextEventNanos() {
        long earliest = Long.MAX_VALUE;
        for (SimRing ring : rings) {
            earliest = Math.min(earliest, ring.nextEventNanos());
        }
        return earliest;
    }

    /**
     * The time this kernel's rings report, and so its workers' clocks and timers: the simulation's, or a cluster
     * node's own monotonic clock (drift, no steps).
     *
     * @return epoch nanoseconds
     */
    public long localNanos() {
        return nodeClock == null ? clock.nowNanos() : nodeClock.toMonotonic(clock.nowNanos());
    }

    /**
     * The wall-clock time of this kernel's tasks: the simulation's, or a cluster node's own, steps included (held
     * still after a step back until it catches up).
     *
     * @return epoch nanoseconds
     */
    long wallNanos() {
        return nodeClock == null ? clock.nowNanos() : nodeClock.wall(clock.nowNanos());
    }

    /**
     * When a timer of this kernel's workers set for {@code localNanos} is due, in the simulation's time: the same
     * value unless this is a cluster node with a clock of its own.
     */
    public long globalNanos(long localNanos) {
        return nodeClock == null ? localNanos : nodeClock.toGlobal(localNanos);
    }

    /** How many rings are open: {@code rings().size()} without the copy. */
    public int ringCount() {
        return rings.size();
    }

    /**
     * The rings opened and not yet closed, in opening order.
     *
     * @return an unmodifiable view
     */
    public List<SimRing> rings() {
        return List.copyOf(rings);
    }

    /**
     * The host's address on the network.
     *
     * @return the address
     */
    public InetAddress hostAddress() {
        return hostAddress;
    }

    /**
     * The address of worker {@code index} when each worker is its own host: {@code 127.0.0.1} for worker 0,
     * {@code 127.0.0.2} for worker 1, and so on ({@code 127.0.1.0} for worker 255).
     *
     * @param index the worker, {@code 0 <= index < 65535}
     * @return its address
     * @throws IllegalArgumentException naming the index otherwise
     */
    public static InetAddress workerHost(int index) {
        return LoopbackHosts.workerHost(index);
    }

    /**
     * Whether each worker is its own host (see {@link SimKernelBuilder#workerHosts()}).
     *
     * @return true if so
     */
    public boolean hasWorkerHosts() {
        return workerHosts;
    }

    /** The host a new socket is on: the calling worker's, with worker hosts; otherwise the kernel's one address. */
    InetAddress socketHost(boolean ipv6) {
        if (!workerHosts) {
            return hostAddress;
        }
        if (ipv6) {
            return LoopbackHosts.IPV6_LOOPBACK;
        }
        dev.lockstep.engine.worker.Worker worker = dev.lockstep.engine.worker.Worker.current();
        if (worker != null && worker.engine().kernel() == this) {
            return workerHost(worker.index());
        }
        return hostAddress;
    }

    /**
     * The file system.
     *
     * @return the host's file system
     */
    public SimFileSystem fileSystem() {
        return fileSystem;
    }

    /**
     * The network.
     *
     * @return the shared network
     */
    public SimNetwork network() {
        return network;
    }

    /**
     * Simulated time.
     *
     * @return the clock
     */
    public SimClock clock() {
        return clock;
    }

    /**
     * The seeded source.
     *
     * @return the generator
     */
    public Generator generator() {
        return generator;
    }

    /**
     * The event chain.
     *
     * @return the auditor
     */
    public Auditor auditor() {
        return auditor;
    }

    /**
     * The rings' behaviour.
     *
     * @return the behaviour
     */
    public KernelBehavior behavior() {
        return behavior;
    }

    /**
     * The open fds, ascending: for leak checks at the end of a run.
     *
     * @return the fds
     */
    public List<Integer> openFds() {
        return fds.openFds();
    }

    /** Where a synchronous call's latency goes: the clock, or the blocking call it runs inside. */
    SyscallLatency syscallLatency() {
        return syscallLatency;
    }

    void ringClosed(SimRing ring) {
        rings.remove(ring);
    }

    // ----------------------------------------------------------------------------------------------- memory

    /** The native memory this kernel's rings handed out, one heap for all of them. */
    RingMemory memory() {
        return memory;
    }

    // ------------------------------------------------------------------------------------------------ leaks

    /**
     * What this kernel holds now: every open fd and every ring buffer not freed, each with what it is and the
     * source line that created it, in a deterministic order (fds ascending, then buffers in allocation order).
     * Compared at the end of a run: a run must give back everything it was given.
     *
     * @return one line per resource; empty if nothing is held
     */
    public List<String> heldResources() {
        List<String> held = new ArrayList<>();
        fds.describeOpen(held);
        for (SimRing ring : rings) {
            held.add("ring " + ring.id() + " (" + ring.entries() + " entries), never closed");
        }
        memory.describeHeld(held);
        return held;
    }

    /**
     * Frees every ring buffer still allocated: what the simulator does after reporting them, so a leaking run
     * does not also leak native memory in the JVM that runs it.
     */
    public void freeLeakedMemory() {
        memory.freeAll();
    }

    // -------------------------------------------------------------------------------------------- fd table

    /** The fd table: what each fd names. */
    FdTable fds() {
        return fds;
    }

    /** Installs a description at the lowest free fd ({@link FdTable#install}), noting the line that asked. */
    int install(Description description, String call) {
        return install(description, call, null);
    }

    /**
     * Installs a description at the lowest free fd; {@code requestedFrom}, if not null, is the application line
     * that asked for it (a ring request completed in a service turn, where no application frame is on the stack).
     */
    int install(Description description, String call, dev.lockstep.kernel.CallSite requestedFrom) {
        int fd = fds.install(description, call);
        dev.lockstep.kernel.CallSite from = requestedFrom != null ? requestedFrom
                : syscallLatency.offloadedFrom() != null ? syscallLatency.offloadedFrom() : Origins.caller();
        description.origin = new Origins.Opened(call, clock.nowNanos(), from);
        return fd;
    }

    /**
     * Sends bytes on a simulated socket outside the ring, as another process holding the fd would with
     * {@code send(2)}: for tests that play a connection's peer directly. Recorded in the audit chain.
     *
     * @param fd an open socket fd of this kernel
     * @param data the bytes
     * @return the bytes sent (all of them, or fewer if the connection broke)
     * @throws IllegalArgumentException if {@code fd} is not an open socket, naming it
     */
    public int sendDirect(int fd, byte[] data) {
        if (!(fds.description(fd) instanceof SocketDescription socket)) {
            throw new IllegalArgumentException("fd " + fd + " is not an open simulated socket");
        }
        return network.send(socket.socket, data, 0, data.length);
    }

    /**
     * Closes every listening socket of this kernel's fds, as the death of the process that held them does: its
     * address refuses connections from now on, and a pending accept fails. The fds stay in the table until the
     * engine closes them or {@link #closeAllFds()} does. For {@link SimCluster} nodes.
     */
    public void closeListeners() {
        fds.closeListeners();
    }

    /**
     * Closes every fd still open, as the death of the process that held them does; its requests must all have
     * completed. For {@link SimCluster} nodes.
     */
    public void closeAllFds() {
        fds.removeAll();
        freeLeakedMemory();
    }

    @Override
    public String toString() {
        return "SimKernel(" + hostAddress.getHostAddress() + ", " + rings.size() + " rings, "
                + fds.openCount() + " fds)";
    }
}
