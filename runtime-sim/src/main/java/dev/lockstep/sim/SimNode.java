package dev.lockstep.sim;

import dev.lockstep.Task;
import dev.lockstep.sim.audit.Auditor;
import dev.lockstep.sim.os.NodeClock;
import dev.lockstep.sim.os.SimFileSystem;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;

/**
 * One node of a {@link SimCluster}: a simulated machine with its own disk, clock, workers and address, running
 * its main task. The handle outlives the node's lifetimes: a crash or kill ends one, {@link #restart()} starts the
 * next from what the disk kept.
 *
 * <h2>What each call does</h2>
 * <ul>
 *   <li>{@link #crash()}: a power cut. Every task of the node is aborted, its connections are reset and its
 *       listeners closed; its disk's unsynced data meets the run's {@link CrashPolicy} now (as
 *       {@code SimControl.crash()} does for a whole run), and the page cache is gone.</li>
 *   <li>{@link #kill()}: the process dies ({@code SIGKILL}). The same for tasks and network, but the page cache
 *       survives: what was written and not synced is what the next lifetime reads. That lifetime, as every
 *       runtime does when it takes its storage, syncs the disk before the node's code runs, so a crash after the
 *       {@link #restart()} no longer loses it (a node that is down cannot crash).</li>
 *   <li>Either way the node's code cannot reach its disk or the network again: new requests are refused
 *       ({@code ClosedException}), the tasks' awaits throw while they unwind, and the requests its kernel already
 *       had complete on handles the death made stale ({@code EBADF}). Connecting to the node's address is refused
 *       until a new lifetime binds it. The node is {@link State#DOWN} at once.</li>
 *   <li>{@link #restart()}: a new lifetime of a node that is down or exited. Its main task runs again from the
 *       start, on new workers, against the same disk (the storage root held again), the same address and the same
 *       clock; {@link #lifetime()} counts them.</li>
 *   <li>{@link #pause()} / {@link #resume()}: the process is stopped ({@code SIGSTOP}): its tasks and workers do not
 *       run, its timers do not fire, but its kernel goes on (connections accept data into their buffers, the clock
 *       runs), and the other nodes go on. On resume, whatever fell due runs.</li>
 *   <li>{@link #driftClock(long)} and {@link #stepClock(Duration)}: the node's clocks only; other nodes and the
 *       controller keep their time. A drift makes both the node's wall clock ({@code ctx.now()}) and its monotonic
 *       clock ({@code ctx.monotonicNanos()}, what its sleeps and timeouts run on) run fast or slow, as NTP slewing
 *       does; a step moves only the wall clock, as setting a Linux machine's time moves {@code CLOCK_REALTIME} and
 *       not {@code CLOCK_MONOTONIC}. A step back holds {@code ctx.now()} still until it catches up (it never goes
 *       backwards). A timer on the node fires when its monotonic clock reaches it; the simulation orders it on
 *       its one timeline.</li>
 * </ul>
 * A node's main task that returns ends the lifetime: its other tasks are aborted and, once they are gone, the node
 * is {@link State#EXITED}. A main task that throws fails the whole run, naming the node and lifetime: a node's
 * code failing on its own is a bug the run must report (a crash, a kill or the end of the run abort tasks; that is
 * no failure) — unless the node is {@linkplain #failStop(boolean) fail-stop}.
 *
 * <h2>Fail-stop</h2>
 * A design that stops a node on an error it cannot handle (an {@code EIO} from its disk, a checksum that does not
 * match) wants that stop tested, not reported as the run's failure. A fail-stop node whose main task throws is
 * {@link State#DOWN} instead, as if its process had exited on the error: its other tasks are aborted, its
 * connections reset, its page cache survives (as for {@link #kill()}), and {@link #failure()} holds what the main
 * task threw until the node restarts. Nothing restarts it by itself: the test or a nemesis calls {@link #restart()}. Off by default; set
 * per node with {@link #failStop(boolean)} or for every node started later with {@link SimCluster#failStop(boolean)}.
 *
 * <h2>Crashes at I/O boundaries</h2>
 * A crash at a uniformly drawn moment rarely lands where a storage protocol is weakest: between asking for a sync
 * and learning it is done, or just after answering a request whose effect is not yet durable.
 * {@link #crashAt(IoBoundary)} arms the node to lose power at the next such moment of its current lifetime, which
 * the simulator knows exactly; the crash happens before the next step of the simulation,
 * so no task of the node runs in between. It is deterministic: the same seed arms and fires at the same step.
 *
 * <h2>Threads and errors</h2>
 * Every method must be called from a task of the simulation the node belongs to (the controller, or another
 * node's task), on the simulator's one thread; anything else throws {@link IllegalStateException} and fails the
 * run as a determinism leak. A call the node's state does not allow throws {@link NodeStateException} and changes
 * nothing. Every change is recorded in the auditor, so the digest covers it.
 */
public final class SimNode {
    /** Where a node is in its life. */
    public enum State {
        /** Its main task runs. */
        RUNNING,
        /** Stopped by {@link #pause()}; {@link #resume()} lets it go on. */
        PAUSED,
        /** Crashed or killed; {@link #restart()} starts its next lifetime. */
        DOWN,
        /** Its main task returned and its other tasks are gone; {@link #restart()} starts it again. */
        EXITED
    }

    /** A moment of a node's I/O at which {@link #crashAt(IoBoundary)} cuts its power. */
    public enum IoBoundary {
        /**
         * The node submitted a sync (an {@code fsync}/{@code fdatasync}, or a write with {@code RWF_DSYNC}): the crash
         * comes while it is in flight, so what it covered meets the crash policy as unsynced data, and the task that
         * asked never learns the outcome.
         */
        SYNC_IN_FLIGHT,
        /**
         * A sync of the node succeeded: its data is durable, and the crash comes before the task that asked is told,
         * so nothing it would have done next (answer a peer, write a commit mark) happens.
         */
        SYNC_DONE,
        /**
         * The node answered a request: a peer received bytes the node sent on a connection the node accepted and had
         * received bytes on. The crash comes before the next step, so the asker holds the answer while whatever the
         * node had not synced meets the crash policy: a node that answers before its data is durable loses what it
         * acknowledged.
         */
        ANSWERED
    }

    private final SimCluster cluster;
    private final int id;
    private final int workers;
    private final InetAddress address;
    private final Task<?> main;
    /** The node's disk: outlives its lifetimes. */
    final SimFileSystem files;
    /** The node's clock: outlives its lifetimes, as a machine's clock does. */
    final NodeClock clock;
    private NodeRun run;
    private State state = State.RUNNING;
    private boolean failStop;
    private Throwable failure;
    /** What {@link #crashAt} armed, or null. */
    private IoBoundary armed;

    SimNode(SimCluster cluster, int id, int workers, InetAddress address, Task<?> main, SimFileSystem files,
            NodeClock clock) {
        this.cluster = cluster;
        this.id = id;
        this.workers = workers;
        this.address = address;
        this.main = main;
        this.files = files;
        this.clock = clock;
    }

    /**
     * The node's id: 1 for the first node started, 2 for the next, and so on.
     *
     * @return the id
     */
    public int id() {
        return id;
    }

    /**
     * The node's address: {@link SimCluster#address(int)} of its id. Its sockets are on this host; a listener bound
     * to the wildcard address is reached here; partitions name it.
     *
     * @return the address
     */
    public InetAddress address() {
        return address;
    }

    /**
     * The number of workers each lifetime of the node has ({@code ctx.workers()} in its tasks).
     *
     * @return at least 1
     */
    public int workers() {
        return workers;
    }

    /**
     * The node's state.
     *
     * @return the state now
     */
    public State state() {
        cluster.check("SimNode.state");
        return state;
    }

    /**
     * Which lifetime of the node runs or ran last: 1 until the first restart.
     *
     * @return at least 1
     */
    public int lifetime() {
        cluster.check("SimNode.lifetime");
        return run.lifetime();
    }

    /**
     * The time on the node's wall clock now: what {@code ctx.now()} of its tasks reads (after a step back, what
     * was read last until the stepped clock catches up).
     *
     * @return the node's time
     */
    public Instant clockNow() {
        cluster.check("SimNode.clockNow");
        long nanos = clock.wall(cluster.simulation.clock.nowNanos());
        return Instant.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L));
    }

    /**
     * Cuts the node's power; see the class doc.
     *
     * @throws NodeStateException if it is not running or paused
     */
    public void crash() {
        end("crash", true);
    }

    /**
     * Kills the node's process; see the class doc.
     *
     * @throws NodeStateException if it is not running or paused
     */
    public void kill() {
        end("kill", false);
    }

    private void end(String call, boolean powerCut) {
        cluster.check("SimNode." + call);
        if (state != State.RUNNING && state != State.PAUSED) {
            throw new NodeStateException(id, state, call + "()", "running or paused");
        }
        Simulation simulation = cluster.simulation;
        simulation.auditor.record("node." + call, Auditor.u32(id), Auditor.u32(run.lifetime()),
                Auditor.u64(simulation.clock.nowNanos()));
        if (state == State.PAUSED) {
            run.halt(simulation.scheduler(), false); // its tasks must run to unwind
        }
        if (powerCut) {
            files.crash(simulation.crashPolicy());
        } else {
            files.processDied();
        }
        run.die(simulation.network);
        state = State.DOWN;
        armed = null;
        cluster.ending(run);
    }

    /**
     * Starts the node's next lifetime; see the class doc.
     *
     * @throws NodeStateException if it is not down or exited
     */
    public void restart() {
        cluster.check("SimNode.restart");
        if (state != State.DOWN && state != State.EXITED) {
            throw new NodeStateException(id, state, "restart()", "down or exited");
        }
        int next = run.lifetime() + 1;
        state = State.RUNNING;
        failure = null;
        run = new NodeRun(cluster.simulation, this, next, main);
    }

    /**
     * Stops the node's process; see the class doc.
     *
     * @throws NodeStateException if it is not running
     */
    public void pause() {
        cluster.check("SimNode.pause");
        if (state != State.RUNNING) {
            throw new NodeStateException(id, state, "pause()", "running");
        }
        cluster.simulation.auditor.record("node.pause", Auditor.u32(id), Auditor.u32(run.lifetime()));
        run.halt(cluster.simulation.scheduler(), true);
        state = State.PAUSED;
    }

    /**
     * Lets a paused node go on; see the class doc.
     *
     * @throws NodeStateException if it is not paused
     */
    public void resume() {
        cluster.check("SimNode.resume");
        if (state != State.PAUSED) {
            throw new NodeStateException(id, state, "resume()", "paused");
        }
        cluster.simulation.auditor.record("node.resume", Auditor.u32(id), Auditor.u32(run.lifetime()));
        run.halt(cluster.simulation.scheduler(), false);
        state = State.RUNNING;
    }

    /**
     * Sets how fast the node's clock runs from now on, whatever its state: {@code ppm} parts per million faster
     * (negative: slower) than the simulation's time.
     *
     * @param ppm the drift, {@code -100000 <= ppm <= 100000} (10 % either way)
     * @throws IllegalArgumentException naming {@code ppm} if out of range
     */
    public void driftClock(long ppm) {
        cluster.check("SimNode.driftClock");
        NodeClock.checkDrift(ppm);
        cluster.simulation.auditor.record("node.drift", Auditor.u32(id), Auditor.u64(ppm));
        clock.drift(cluster.simulation.clock.nowNanos(), ppm);
    }

    /**
     * Moves the node's wall clock now, whatever its state, forward or back (see the class doc); its monotonic
     * clock, and so its sleeps and timeouts, are not moved. A step back past the epoch takes the wall clock to the
     * epoch. A clock shows at most {@code Long.MAX_VALUE - 1} epoch nanoseconds (2262-04-11T23:47:16.854775806Z),
     * where a drift ahead holds it still and a deadline past it never comes, so the node's tasks wait there rather
     * than wake without time passing.
     *
     * @param step how far, either way
     * @throws NullPointerException if {@code step} is null
     * @throws IllegalArgumentException if the step would take the node's clock past that time, naming the step
     *     and the node's time; the clock is unchanged
     */
    public void stepClock(Duration step) {
        cluster.check("SimNode.stepClock");
        java.util.Objects.requireNonNull(step, "step");
        long nanos;
        try {
            nanos = step.toNanos();
        } catch (ArithmeticException overflow) {
            nanos = step.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        if (!clock.stepFits(cluster.simulation.clock.nowNanos(), nanos)) {
            throw new IllegalArgumentException("node " + id + ": a clock step of " + step + " from " + clockNow()
                    + " would pass " + Instant.EPOCH.plusNanos(NodeClock.LATEST) + ", the latest time a simulated"
                    + " clock shows");
        }
        cluster.simulation.auditor.record("node.step", Auditor.u32(id), Auditor.u64(nanos));
        clock.step(cluster.simulation.clock.nowNanos(), nanos);
    }

    /**
     * Whether a main task that throws takes this node down instead of failing the run; see the class doc.
     *
     * @return true if fail-stop
     */
    public boolean failStops() {
        cluster.check("SimNode.failStops");
        return failStop;
    }

    /**
     * Makes the node fail-stop (or not), from now on; see the class doc.
     *
     * @param on whether a main task that throws takes the node down instead of failing the run
     */
    public void failStop(boolean on) {
        cluster.check("SimNode.failStop");
        failStop = on;
    }

    /**
     * Why the node is down, if a fail-stop took it down: what its main task threw. {@link #restart()} clears it.
     *
     * @return the failure, or null if the node is not down from a fail-stop
     */
    public Throwable failure() {
        cluster.check("SimNode.failure");
        return failure;
    }

    /**
     * Arms the node to crash ({@link #crash()}, a power cut) at the next {@code boundary} of its current lifetime;
     * see the class doc. One boundary is armed at a time: arming again replaces it. The arming ends when it fires,
     * with {@link #disarm()}, or with the lifetime (a crash, kill, exit or fail-stop of any cause).
     *
     * @param boundary the moment
     * @throws NodeStateException if the node is not running or paused
     * @throws NullPointerException if {@code boundary} is null
     */
    public void crashAt(IoBoundary boundary) {
        cluster.check("SimNode.crashAt");
        java.util.Objects.requireNonNull(boundary, "boundary");
        if (state != State.RUNNING && state != State.PAUSED) {
            throw new NodeStateException(id, state, "crashAt()", "running or paused");
        }
        cluster.simulation.auditor.record("node.arm", Auditor.u32(id), Auditor.u32(run.lifetime()),
                Auditor.u32(boundary.ordinal()));
        armed = boundary;
    }

    /**
     * Takes back what {@link #crashAt} armed, if it has not fired.
     *
     * @return the boundary that was armed, or null if none was
     */
    public IoBoundary disarm() {
        cluster.check("SimNode.disarm");
        IoBoundary was = armed;
        armed = null;
        return was;
    }

    /**
     * What {@link #crashAt} armed and has not fired yet.
     *
     * @return the boundary, or null
     */
    public IoBoundary armed() {
        cluster.check("SimNode.armed");
        return armed;
    }

    /**
     * Syncs ({@code fsync}, {@code fdatasync}, {@code RWF_DSYNC} writes) the node's current lifetime has in flight:
     * submitted, not yet completed.
     *
     * @return the count; 0 when the node is down
     */
    public int syncsInFlight() {
        cluster.check("SimNode.syncsInFlight");
        return state == State.DOWN || state == State.EXITED ? 0 : run.syncsInFlight();
    }

    boolean failStopOn() {
        return failStop;
    }

    boolean armedFor(IoBoundary boundary) {
        return armed == boundary;
    }

    /** The armed boundary was reached: the cluster crashes the node before the next step. */
    void triggered(IoBoundary boundary, int syncs) {
        armed = null;
        cluster.crashDue(this, boundary, syncs);
    }

    /** The cluster's crash of a boundary that fired. */
    void crashAtBoundary(IoBoundary boundary, int syncs) {
        if (state != State.RUNNING && state != State.PAUSED) {
            return;
        }
        cluster.simulation.auditor.record("node.crashAt", Auditor.u32(id), Auditor.u32(run.lifetime()),
                Auditor.u32(boundary.ordinal()), Auditor.u32(syncs));
        crash();
    }

    /** The lifetime's main task threw and the node is fail-stop: it goes down as a process that exited. */
    void failStopped(NodeRun lifetime, Throwable thrown) {
        Simulation simulation = cluster.simulation;
        simulation.auditor.record("node.failStop", Auditor.u32(id), Auditor.u32(lifetime.lifetime()),
                Auditor.u64(simulation.clock.nowNanos()),
                // The class only: a message may hold an identity hash, a thread id or a time, which differ
                // from run to run of the same seed.
                Auditor.utf8(thrown.getClass().getName()));
        failure = thrown;
        armed = null;
        files.processDied();
        lifetime.die(simulation.network);
        state = State.DOWN;
        cluster.ending(lifetime);
    }

    /** Starts the first lifetime; the cluster calls this once. */
    void boot() {
        run = new NodeRun(cluster.simulation, this, 1, main);
    }

    NodeRun run() {
        return run;
    }

    /** The lifetime's main task returned and every task is gone: the node exited. */
    void exited() {
        state = State.EXITED;
        armed = null;
    }

    @Override
    public String toString() {
        return "node " + id + " (" + address.getHostAddress() + ", " + state + ", lifetime "
                + (run == null ? 0 : run.lifetime()) + ")";
    }
}
