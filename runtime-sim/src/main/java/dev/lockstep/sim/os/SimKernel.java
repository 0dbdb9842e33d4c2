package dev.lockstep.sim.os;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.Kernel;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.sim.KernelBehavior;
import dev.lockstep.sim.NetworkConfig;
import dev.lockstep.sim.SimCluster;
import dev.lockstep.sim.SimConfig;
import dev.lockstep.sim.SimNode;
import dev.lockstep.sim.SimRunner;
import dev.lockstep.sim.StorageFaults;
import dev.lockstep.sim.audit.Auditor;
import dev.lockstep.sim.audit.Generator;
import dev.lockstep.sim.audit.Site;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;

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
 * One table per kernel, shared by files and sockets: a new fd is the lowest free number from {@value #FIRST_FD}
 * (0, 1 and 2 are taken by the standard streams in a real process, so an engine that mistakes 0 for "no fd"
 * is caught). An fd names an open description (a file handle or a socket); closing the fd while a request
 * still uses the description keeps the description alive until that request completes, as a real kernel
 * does: the socket is shut, or the file handle released, only then.
 *
 * <h2>Threads</h2>
 * The simulator runs every worker on one thread, so a kernel is confined to that thread; {@link SimRing#wake()}
 * alone is safe from any thread. The SPI's "thread-safe" promise for {@link #system()} holds trivially there;
 * a call from another thread is a determinism leak that the scheduler, not the kernel, detects.
 *
 * <h2>Size</h2>
 * Over 600 lines (about 800): the kernel is the seam between the engine's SPI and the simulated host, and owns
 * the fd table every call resolves through; the system calls, the open descriptions and the native-memory
 * accounting are kept with that table, while the rings ({@link SimRing}), the file system
 * ({@link SimFileSystem}) and the network ({@link SimNetwork}) are classes of their own.
 */
public final class SimKernel implements Kernel {

    private static final InetAddress IPV6_LOOPBACK;

    static {
        byte[] loopback = new byte[16];
        loopback[15] = 1;
        try {
            IPV6_LOOPBACK = InetAddress.getByAddress(loopback);
        } catch (java.net.UnknownHostException impossibleForRawBytes) {
            throw new ExceptionInInitializerError(impossibleForRawBytes);
        }
    }

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
    private final List<Description> descriptions = new ArrayList<>();
    private final BitSet usedFds = new BitSet();
    private final List<SimRing> rings = new ArrayList<>();
    /**
     * Native memory handed out by this kernel's rings and not yet freed, by address. A linked map: its walks go
     * in allocation order, so a leak report does not depend on where the C library put the memory.
     */
    private final LinkedHashMap<Long, Allocation> allocations = new LinkedHashMap<>();
    private long allocationsMade;
    private final boolean workerHosts;
    /** A cluster node's own clock, or null: the kernel's time is the simulation's. */
    private final NodeClock nodeClock;
    private long nextRingId = 1;
    /** Ring completions delivered by this kernel's rings, for throughput figures. */
    public long ringCompletions;
    /** Synchronous calls made, for throughput figures. */
    public long systemCalls;
    /** Descriptors are numbered below this: the process's open-file limit ({@link Builder#openFileLimit}). */
    private final int openFileLimit;
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

    private SimKernel(Builder builder) {
        this.generator = builder.generator;
        this.auditor = builder.auditor;
        this.clock = builder.clock;
        this.fileSystem = builder.fileSystem != null ? builder.fileSystem
                : new SimFileSystem(generator, auditor, StorageFaults.NONE);
        this.network = builder.network != null ? builder.network
                : new SimNetwork(generator, auditor, clock, NetworkConfig.DEFAULT);
        this.hostAddress = builder.hostAddress;
        this.behavior = builder.behavior;
        this.openFileLimit = builder.openFileLimit;
        this.workerHosts = builder.workerHosts;
        this.nodeClock = builder.nodeClock;
        if (workerHosts) {
            network.claimLoopback();
        }
        this.system = new SimSystemCalls(this);
        usedFds.set(0, FIRST_FD);
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
    public static Builder builder(Generator generator, Auditor auditor, SimClock clock) {
        return new Builder(generator, auditor, clock);
    }

    /** Builds a {@link SimKernel}. */
    public static final class Builder {
        private final Generator generator;
        private final Auditor auditor;
        private final SimClock clock;
        private SimFileSystem fileSystem;
        private SimNetwork network;
        private InetAddress hostAddress = workerHost(0);
        private KernelBehavior behavior = KernelBehavior.DEFAULT;
        private int openFileLimit = MAX_FDS;
        private boolean workerHosts;
        private NodeClock nodeClock;

        private Builder(Generator generator, Auditor auditor, SimClock clock) {
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
        public Builder fileSystem(SimFileSystem fileSystem) {
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
        public Builder network(SimNetwork network) {
            this.network = Objects.requireNonNull(network, "network");
            return this;
        }

        /**
         * The host's one address; by default {@code 127.0.0.1}.
         *
         * @param hostAddress the address
         * @return this
         */
        public Builder hostAddress(InetAddress hostAddress) {
            this.hostAddress = Objects.requireNonNull(hostAddress, "hostAddress");
            return this;
        }

        /**
         * The rings' behaviour; by default {@link KernelBehavior#DEFAULT}.
         *
         * @param behavior the behaviour
         * @return this
         */
        public Builder behavior(KernelBehavior behavior) {
            this.behavior = Objects.requireNonNull(behavior, "behavior");
            return this;
        }

        /**
         * The process's open-file limit ({@link SimConfig#openFileLimit()}); by default {@link #MAX_FDS}.
         *
         * @param limit above {@link #FIRST_FD}, at most {@link #MAX_FDS}
         * @return this
         * @throws IllegalArgumentException naming the value otherwise
         */
        public Builder openFileLimit(int limit) {
            if (limit <= FIRST_FD || limit > MAX_FDS) {
                throw new IllegalArgumentException("an open-file limit is above " + FIRST_FD + " and at most "
                        + MAX_FDS + ", was " + limit);
            }
            this.openFileLimit = limit;
            return this;
        }

        /**
         * Makes each worker of the engine over this kernel its own host: a socket opened by worker {@code i} is on
         * host {@link #workerHost(int) 127.0.0.(i+1)}, so partitions between workers' addresses apply to their
         * traffic. The kernel owns the whole loopback range, as a Linux machine does: a socket may bind any
         * {@code 127.0.0.0/8} address or {@code ::1} (the socket then is on that host), and a wildcard listener
         * accepts connections to every loopback address. The network must have no other kernel claiming that.
         *
         * @return this
         */
        public Builder workerHosts() {
            this.workerHosts = true;
            return this;
        }

        /** The clock of a {@link SimCluster} node: what this kernel's rings report as the time. */
        public Builder nodeClock(NodeClock clock) {
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
     * @return the line
     */
    @Override
    public String callerSite() {
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
     */
    public static InetAddress workerHost(int index) {
        if (index < 0 || index >= 65_535) {
            throw new IllegalArgumentException("worker index must be in [0, 65535), was " + index);
        }
        int host = index + 1;
        try {
            return InetAddress.getByAddress(new byte[] {127, 0, (byte) (host >>> 8), (byte) host});
        } catch (java.net.UnknownHostException impossibleForRawBytes) {
            throw new IllegalStateException(impossibleForRawBytes);
        }
    }

    /**
     * Whether each worker is its own host (see {@link Builder#workerHosts()}).
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
            return IPV6_LOOPBACK;
        }
        dev.lockstep.engine.Worker worker = dev.lockstep.engine.Worker.current();
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
        List<Integer> fds = new ArrayList<>();
        for (int fd = usedFds.nextSetBit(FIRST_FD); fd >= 0; fd = usedFds.nextSetBit(fd + 1)) {
            fds.add(fd);
        }
        return fds;
    }

    /**
     * A synchronous call keeps its worker busy for {@code nanos}: the clock moves on by that much. The simulator
     * has one clock, so every worker's time moves with it; what fell due meanwhile runs late, as it would behind
     * a worker thread blocked in the kernel.
     *
     * @param nanos the call's latency, {@code >= 0}
     */
    void blockFor(long nanos) {
        if (offloading) {
            offloadedNanos += nanos;
        } else {
            clock.advanceBy(nanos);
        }
    }

    /** A blocking call is running ({@link #runOffloaded}): system call latency is charged to it, not the clock. */
    private boolean offloading;
    private long offloadedNanos;
    /** Where the running blocking call was asked for ({@link dev.lockstep.kernel.BlockingCall#requestedFrom}). */
    private String offloadedFrom;

    /** What {@link #runOffloaded} returns: the call's result and the latency its system calls took. */
    record Offloaded(int result, long chargedNanos) {
    }

    /**
     * Runs the body of a {@code BLOCKING_CALL} now, on the simulator thread, with the latency of each system call
     * inside (drawn as always, at {@link Site#SYSCALL_LATENCY}) summed instead of moving the clock: the worker
     * that submitted it, and every other, goes on meanwhile, and the request completes that much later.
     *
     * @param call the body
     * @return its result and the summed latency
     */
    Offloaded runOffloaded(dev.lockstep.kernel.BlockingCall call) {
        if (offloading) {
            throw new IllegalStateException("a blocking call submitted a blocking call");
        }
        offloading = true;
        offloadedNanos = 0;
        offloadedFrom = call.requestedFrom();
        try {
            int result = call.run();
            return new Offloaded(result, offloadedNanos);
        } finally {
            offloading = false;
            offloadedFrom = null;
        }
    }

    void ringClosed(SimRing ring) {
        rings.remove(ring);
    }

    // ----------------------------------------------------------------------------------------------- memory

    /**
     * One live allocation: what a leak report says about it. Allocation is on every request's path, so it records
     * no stack (a walk per request would cost the simulator a third of its speed): the request that last staged
     * the buffer names what it was for.
     */
    private static final class Allocation {
        final MemorySegment segment;
        final long ringId;
        final long number;
        final long atNanos;
        /**
         * The request that last staged the buffer: its opcode (null if none did), fd and what the fd named then.
         * Put into words only for a report: staging is on every request's path.
         */
        dev.lockstep.kernel.Opcode lastOpcode;
        int lastFd;
        Description lastDescription;

        Allocation(MemorySegment segment, long ringId, long number, long atNanos) {
            this.segment = segment;
            this.ringId = ringId;
            this.number = number;
            this.atNanos = atNanos;
        }

        MemorySegment segment() {
            return segment;
        }

        String describe() {
            return segment.byteSize() + "-byte ring buffer #" + number + " of ring " + ringId + ", allocated at "
                    + atNanos + " ns, " + lastUse();
        }

        private String lastUse() {
            if (lastOpcode == null) {
                return "never staged";
            }
            return "last staged by " + lastOpcode + " on fd " + lastFd + (lastDescription == null ? ""
                    : " (" + lastDescription.kind() + " " + lastDescription.subject() + blobName(lastDescription) + ")");
        }
    }

    MemorySegment allocate(SimRing ring, long bytes) {
        MemorySegment segment = NativeMemory.calloc(bytes);
        allocations.put(segment.address(), new Allocation(segment, ring.id(), ++allocationsMade, clock.nowNanos()));
        return segment;
    }

    /** Remembers which request last staged a buffer of this kernel, for the leak report. */
    void stagedWith(MemorySegment buffer, dev.lockstep.kernel.Opcode opcode, int fd) {
        Allocation allocation = allocations.get(buffer.address());
        if (allocation != null) {
            allocation.lastOpcode = opcode;
            allocation.lastFd = fd;
            allocation.lastDescription = description(fd);
        }
    }

    /** Whether {@code segment} is exactly a live allocation of this kernel's rings. */
    boolean isAllocation(MemorySegment segment) {
        Allocation allocation = allocations.get(segment.address());
        return allocation != null && allocation.segment().byteSize() == segment.byteSize() && segment.isNative();
    }

    void free(MemorySegment segment) {
        Allocation allocation = allocations.remove(segment.address());
        NativeMemory.free(allocation.segment());
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
        for (int fd : openFds()) {
            Description description = descriptions.get(fd);
            held.add("fd " + fd + " (" + description.kind() + " " + description.subject() + blobName(description)
                    + "), opened by " + description.origin);
        }
        for (SimRing ring : rings) {
            held.add("ring " + ring.id() + " (" + ring.entries() + " entries), never closed");
        }
        for (Allocation allocation : allocations.values()) {
            held.add(allocation.describe());
        }
        return held;
    }

    /** For a file named as the engine names blobs (the name's bytes in hex), the blob: {@code " = blob 'p/name'"}. */
    private static String blobName(Description description) {
        if (!(description instanceof FileDescription file) || file.handle.isDirectory()) {
            return "";
        }
        String path = file.handle.path();
        int slash = path.lastIndexOf('/');
        int parent = path.lastIndexOf('/', slash - 1);
        String hex = path.substring(slash + 1);
        if (parent < 0 || hex.isEmpty() || hex.length() % 2 != 0 || !hex.matches("[0-9a-f]+")) {
            return "";
        }
        byte[] name = java.util.HexFormat.of().parseHex(hex);
        StringBuilder text = new StringBuilder();
        for (byte b : name) {
            text.append(b >= 0x20 && b < 0x7f ? String.valueOf((char) b) : String.format("\\x%02x", b & 0xff));
        }
        return " = blob '" + path.substring(parent + 1, slash) + "/" + text + "'";
    }

    /**
     * Frees every ring buffer still allocated: what the simulator does after reporting them, so a leaking run
     * does not also leak native memory in the JVM that runs it.
     */
    public void freeLeakedMemory() {
        for (Allocation allocation : allocations.values()) {
            NativeMemory.free(allocation.segment());
        }
        allocations.clear();
    }

    // -------------------------------------------------------------------------------------------- fd table

    /**
     * An open description: what an fd names. Lives while the fd is open or a request uses it; released (the
     * file handle closed, the socket shut) when both are gone.
     */
    abstract static sealed class Description permits FileDescription, SocketDescription {
        /** The call that created it and the source line that made the call, for leak reports. */
        String origin = "";
        private boolean inTable = true;
        private int requests;
        private boolean released;

        void retainForRequest() {
            requests++;
        }

        void releaseForRequest() {
            requests--;
            releaseIfUnused();
        }

        void closeFd() {
            inTable = false;
            releaseIfUnused();
        }

        private void releaseIfUnused() {
            if (!inTable && requests == 0 && !released) {
                released = true;
                release();
            }
        }

        abstract void release();

        abstract String subject();

        abstract String kind();
    }

    /**
     * The alignment direct I/O needs on every simulated file (offsets, lengths and memory addresses): the
     * logical block size of a common disk, 512 bytes.
     */
    static final int DIRECT_IO_ALIGNMENT = 512;

    static final class FileDescription extends Description {
        final SimFileSystem fileSystem;
        final SimFileSystem.Handle handle;
        /** Opened with {@code O_DIRECT}: transfers must be aligned to {@link #DIRECT_IO_ALIGNMENT}. */
        final boolean direct;

        FileDescription(SimFileSystem fileSystem, SimFileSystem.Handle handle, boolean direct) {
            this.fileSystem = fileSystem;
            this.handle = handle;
            this.direct = direct;
        }

        @Override
        void release() {
            try {
                fileSystem.close(handle);
            } catch (KernelException staleAfterCrash) {
                // The handle died with a crash of the file system; nothing is left to release.
            }
        }

        @Override
        String subject() {
            return handle.path();
        }

        @Override
        String kind() {
            return handle.isDirectory() ? "directory" : "file";
        }
    }

    static final class SocketDescription extends Description {
        final SimNetwork network;
        final SimSocket socket;

        SocketDescription(SimNetwork network, SimSocket socket) {
            this.network = network;
            this.socket = socket;
        }

        @Override
        void release() {
            network.close(socket);
        }

        @Override
        String subject() {
            return socket.local != null ? String.valueOf(socket.local) : "socket#" + socket.id;
        }

        @Override
        String kind() {
            return socket.state == SimSocket.State.LISTENING ? "listener"
                    : socket.remote != null ? "connection to " + socket.remote + ", local" : "socket";
        }
    }

    /**
     * Fails a call that would make a descriptor when none is free, before it does anything else: Linux takes the
     * descriptor first ({@code get_unused_fd_flags}), so an open refused with {@code EMFILE} creates no file, a
     * lock no lock file, a socket no socket, an accept takes no connection off its queue, and no fault is drawn
     * for them.
     *
     * @throws KernelException {@code EMFILE}, naming the call and its subject
     */
    void reserveFd(String call, String subject) {
        if (usedFds.nextClearBit(FIRST_FD) >= openFileLimit) {
            throw new KernelException(Errno.EMFILE, call, subject);
        }
    }

    /** Installs a description at the lowest free fd. */
    int install(Description description, String call) {
        return install(description, call, null);
    }

    /**
     * Installs a description at the lowest free fd; {@code requestedFrom}, if not null, is the application line
     * that asked for it (a ring request completed in a service turn, where no application frame is on the stack).
     */
    int install(Description description, String call, String requestedFrom) {
        int fd = usedFds.nextClearBit(FIRST_FD);
        if (fd >= openFileLimit) {
            description.closeFd();
            throw new KernelException(Errno.EMFILE, call, description.subject());
        }
        usedFds.set(fd);
        String from = requestedFrom != null ? requestedFrom : offloadedFrom != null ? offloadedFrom
                : Origins.caller();
        description.origin = call + " at " + clock.nowNanos() + " ns, from " + from;
        while (descriptions.size() <= fd) {
            descriptions.add(null);
        }
        descriptions.set(fd, description);
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
        if (!(description(fd) instanceof SocketDescription socket)) {
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
        for (int fd : openFds()) {
            if (descriptions.get(fd) instanceof SocketDescription socket
                    && socket.socket.state == SimSocket.State.LISTENING) {
                network.close(socket.socket);
            }
        }
    }

    /**
     * Closes every fd still open, as the death of the process that held them does; its requests must all have
     * completed. For {@link SimCluster} nodes.
     */
    public void closeAllFds() {
        for (int fd : openFds()) {
            removeFd(fd);
        }
        freeLeakedMemory();
    }

    /** The description an fd names, or null if the fd is not open. */
    Description description(int fd) {
        if (fd < FIRST_FD || fd >= descriptions.size()) {
            return null;
        }
        return descriptions.get(fd);
    }

    /** Removes an fd from the table; its description lives on while requests use it. */
    Description removeFd(int fd) {
        Description description = description(fd);
        if (description != null) {
            descriptions.set(fd, null);
            usedFds.clear(fd);
            description.closeFd();
        }
        return description;
    }

    @Override
    public String toString() {
        return "SimKernel(" + hostAddress.getHostAddress() + ", " + rings.size() + " rings, "
                + (usedFds.cardinality() - FIRST_FD) + " fds)";
    }
}
