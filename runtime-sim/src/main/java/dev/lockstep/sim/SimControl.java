package dev.lockstep.sim;

import dev.lockstep.ClosedException;
import dev.lockstep.engine.task.Fibers;
import dev.lockstep.engine.worker.Worker;
import dev.lockstep.sim.audit.Auditor;
import dev.lockstep.sim.audit.Site;
import dev.lockstep.sim.os.SimKernel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * The simulation, as a test steers it from inside its tasks: the network (partitions, heals, connection breaks,
 * link delays), fault configuration, crashes, simulated time as a ticker ({@link #ticker()}), and seeded randomness.
 * Obtained with {@link SimRunner#control(dev.lockstep.Context)} from a task of a running simulation.
 *
 * <h2>Hosts</h2>
 * Every simulated worker is its own host: worker {@code i} has the address {@code 127.0.0.(i+1)}
 * ({@link #host(int)}); a socket opened by a task on worker {@code i} is on that host. A task may also bind any
 * other loopback address ({@code 127.0.0.0/8}, {@code ::1}), as on Linux, and the wildcard accepts connections to
 * every loopback address. Partitions cut the traffic between two addresses: to make a node that partitions
 * isolate, run it on its own worker and bind {@link #host()}.
 *
 * <h2>Threads</h2>
 * Every method must be called from a task of the simulation it came from (on the simulator's thread); a call
 * from any other thread throws {@link IllegalStateException} and fails the run as a determinism leak. Every
 * change is recorded in the auditor.
 */
public final class SimControl {
    private final Simulation simulation;
    private final LongSupplier ticker = this::readTicker;

    SimControl(Simulation simulation) {
        this.simulation = simulation;
    }

    private void check(String what) {
        simulation.checkConfined("SimControl." + what);
    }

    // ------------------------------------------------------------------------------------------------- time

    /**
     * Simulated time as a ticker: simulated epoch nanoseconds, for caches, stopwatches and anything else that takes
     * a nanosecond time source, so they expire and measure on simulated time, which jumps when nothing can run.
     * Caffeine takes it as {@code control.ticker()::getAsLong}; Guava's {@code Ticker} as
     * {@code new Ticker() { public long read() { return ticker.getAsLong(); } }}. Each read is recorded in the
     * auditor; a read from outside the simulation's tasks throws {@link IllegalStateException} and fails the run.
     * After the run, reads return the time it ended at.
     *
     * @return the ticker, one per simulation
     */
    public LongSupplier ticker() {
        return ticker;
    }

    private long readTicker() {
        simulation.checkConfined("SimControl.ticker");
        long now = simulation.clock.nowNanos();
        if (simulation.isRunning()) {
            simulation.auditor.record("sim.ticker", Auditor.u64(now));
        }
        return now;
    }

    /**
     * The simulated time now (the same as {@code ctx.now()}).
     *
     * @return the instant
     */
    public Instant now() {
        check("now");
        return simulation.now();
    }

    // ------------------------------------------------------------------------------------------------ nodes

    /**
     * The run's cluster: simulated machines with their own disks, clocks, workers and addresses, each crashed,
     * killed, paused, restarted and skewed on its own (see {@link SimCluster}).
     *
     * @return the cluster, one per run
     * @throws IllegalStateException in a {@link SimRunner#startAndRecover} run, which crashes as a whole
     */
    public SimCluster cluster() {
        check("cluster");
        return simulation.cluster();
    }

    // ------------------------------------------------------------------------------------------- randomness

    /**
     * Seeded randomness for the test's own choices (which key to write, which node to partition): every value
     * is drawn from the simulation's one generator at {@link Site#APPLICATION}, so it is part of the seed and of
     * the audit. Use it instead of {@code Random} or {@code ThreadLocalRandom}, which would make the run
     * unrepeatable.
     *
     * @return a generator view; same confinement as the rest of this class
     */
    public RandomGenerator random() {
        return () -> {
            check("random");
            return simulation.generator.nextLong(Site.APPLICATION);
        };
    }

    // ---------------------------------------------------------------------------------------------- network

    /**
     * The address of a worker's host.
     *
     * @param worker the worker index, {@code 0 <= worker < workers}
     * @return {@code 127.0.0.(worker+1)}
     * @throws IllegalArgumentException if out of range
     */
    public InetAddress host(int worker) {
        if (worker < 0 || worker >= simulation.config().workers()) {
            throw new IllegalArgumentException("worker must be between 0 and " + (simulation.config().workers() - 1)
                    + ", was " + worker);
        }
        return SimKernel.workerHost(worker);
    }

    /**
     * The address of the calling task's worker: what a node running on this worker should bind.
     *
     * @return {@code 127.0.0.(i+1)} for worker {@code i}
     */
    public InetAddress host() {
        check("host");
        Worker worker = Worker.current();
        return SimKernel.workerHost(worker == null ? 0 : worker.index());
    }

    /**
     * The file descriptors the calling task's simulated kernel has open now, ascending: for a test's own leak checks
     * while the run goes on ({@link SimRunner#leaks()} says what the run held at its end). Reading draws nothing and
     * changes nothing.
     *
     * @return the open fds, an unmodifiable list
     */
    public java.util.List<Integer> openFds() {
        check("openFds");
        Worker worker = Worker.current();
        if (worker == null) {
            throw new IllegalStateException("SimControl.openFds must be called from a task of the simulation");
        }
        return java.util.List.copyOf(((SimKernel) worker.engine().kernel()).openFds());
    }

    /**
     * Cuts both directions between two hosts: connects across fail {@code ETIMEDOUT} after
     * {@link NetworkConfig#connectTimeoutNanos()}, data sent across is held until {@link #heal} (connections
     * are not broken: use deadlines, as with a real network). Idempotent.
     *
     * @param a one host
     * @param b the other
     */
    public void partition(InetAddress a, InetAddress b) {
        check("partition");
        simulation.network.partition(a, b);
    }

    /**
     * Cuts one direction: packets from {@code from} to {@code to} are held until healed.
     *
     * @param from the sending host
     * @param to the receiving host
     */
    public void partitionOneWay(InetAddress from, InetAddress to) {
        check("partitionOneWay");
        simulation.network.partitionOneWay(from, to);
    }

    /**
     * Restores both directions between two hosts; held data is delivered, in order, one delay from now.
     *
     * @param a one host
     * @param b the other
     */
    public void heal(InetAddress a, InetAddress b) {
        check("heal");
        simulation.network.heal(a, b);
    }

    /**
     * Restores one direction.
     *
     * @param from the sending host
     * @param to the receiving host
     */
    public void healOneWay(InetAddress from, InetAddress to) {
        check("healOneWay");
        simulation.network.healOneWay(from, to);
    }

    /** Restores every direction. */
    public void healAll() {
        check("healAll");
        simulation.network.healAll();
    }

    /**
     * Whether packets from one host to another are held.
     *
     * @param from the sending host
     * @param to the receiving host
     * @return true while partitioned
     */
    public boolean isPartitioned(InetAddress from, InetAddress to) {
        check("isPartitioned");
        return simulation.network.isPartitioned(from, to);
    }

    /**
     * Resets the connection between two endpoints: both ends fail {@code ECONNRESET} from now on, so their
     * pending and later receives and sends fail with {@code RecvFailedException} and {@code SendFailedException}.
     *
     * @param local one end's address
     * @param remote the other end's address
     * @return true if such a connection existed
     */
    public boolean breakConnection(InetSocketAddress local, InetSocketAddress remote) {
        check("breakConnection");
        return simulation.network.breakConnection(local, remote);
    }

    /**
     * Resets every connection with an end on a host.
     *
     * @param host the host
     * @return the number of connections reset
     */
    public int breakConnections(InetAddress host) {
        check("breakConnections");
        return simulation.network.breakConnections(host);
    }

    /**
     * Sets the delay of the links between two hosts, both directions.
     *
     * @param a one host
     * @param b the other
     * @param profile the delay of each direction
     */
    public void setLinks(InetAddress a, InetAddress b, LinkProfile profile) {
        check("setLinks");
        simulation.network.setLinks(a, b, profile);
        simulation.auditor.record("sim.setLinks", Auditor.utf8(a.getHostAddress()), Auditor.utf8(b.getHostAddress()),
                Auditor.u64(profile.latencyNanos()), Auditor.u64(profile.jitterNanos()));
    }

    /**
     * The network configuration in force.
     *
     * @return it
     */
    public NetworkConfig networkConfig() {
        check("networkConfig");
        return simulation.network.config();
    }

    /**
     * Replaces the network configuration (default link, connect timeout, random break rate), from the next
     * delivery and connect on. It carries over to a run resumed from this run's checkpoint.
     *
     * @param config the configuration
     */
    public void networkConfig(NetworkConfig config) {
        check("networkConfig");
        simulation.network.setConfig(Objects.requireNonNull(config, "config"));
        simulation.auditor.record("sim.networkConfig", Auditor.utf8(String.valueOf(config)));
    }

    // ------------------------------------------------------------------------------------------------ storage

    /**
     * The storage faults in force.
     *
     * @return them
     */
    public StorageFaults storageFaults() {
        check("storageFaults");
        return simulation.files.faults();
    }

    /**
     * Replaces the storage faults, from the next call on: turn faults on for a phase of the test, off for
     * another. They carry over to a run resumed from this run's checkpoint.
     *
     * @param faults the new faults
     */
    public void storageFaults(StorageFaults faults) {
        check("storageFaults");
        simulation.files.setFaults(Objects.requireNonNull(faults, "faults"));
        simulation.auditor.record("sim.storageFaults", Auditor.utf8(String.valueOf(faults)));
    }

    /**
     * The crash policy in force.
     *
     * @return it
     */
    public CrashPolicy crashPolicy() {
        check("crashPolicy");
        return simulation.crashPolicy();
    }

    /**
     * Replaces the crash policy for the crash that ends this run (and the runs resumed after it).
     *
     * @param policy the policy
     */
    public void crashPolicy(CrashPolicy policy) {
        check("crashPolicy");
        simulation.crashPolicy(policy);
    }

    // -------------------------------------------------------------------------------------------------- crash

    /**
     * Crashes the simulated machine now: unsynced data meets the crash policy, the durable image is taken into
     * the run's {@link Checkpoint}, and every task is aborted. Nothing done after this reaches the disk the next
     * run starts from: the disk fails every call ({@code StorageIoException}) and every connection is reset.
     * Only in a run started with {@link SimRunner#startAndRecover}.
     *
     * @return never returns normally
     * @throws ClosedException always: the calling task is aborted with the rest ({@code throw control.crash()}
     *     reads well where the compiler wants a statement that ends the path)
     * @throws IllegalStateException in a run started with {@link SimRunner#start}
     */
    public ClosedException crash() {
        check("crash");
        String task = Fibers.current() == null ? "?" : Fibers.current().label();
        throw simulation.crashFromTask(task);
    }

    /**
     * How many crashes came before this run: 0 in a fresh run, {@code n} in the run resumed after the
     * {@code n}th crash.
     *
     * @return the count
     */
    public int restarts() {
        return simulation.restarts();
    }

    // ------------------------------------------------------------------------------------------------- state

    /**
     * The configuration this run started with, with the changes made through this control since.
     *
     * @return the configuration
     */
    public SimConfig config() {
        check("config");
        return simulation.currentConfig();
    }

    /**
     * What the harness attached to this run ({@link SimRunner#attach}), if it is a {@code type}: read only, it
     * records nothing and draws nothing.
     *
     * @param type the class the harness attached an instance of
     * @param <T> that class
     * @return the attached object, or null if none was attached or it is not a {@code type}
     */
    public <T> T attachment(Class<T> type) {
        Objects.requireNonNull(type, "type");
        check("attachment");
        Object attached = simulation.attachment();
        return type.isInstance(attached) ? type.cast(attached) : null;
    }

    /**
     * The audit digest so far (the same as {@code ctx.digest()}).
     *
     * @return 64 lower-case hex digits
     */
    public String digest() {
        check("digest");
        return simulation.auditor.digest();
    }

    @Override
    public String toString() {
        return "SimControl(seed " + simulation.config().seed() + ", restart " + simulation.restarts() + ")";
    }
}
