package dev.lockstep.sim;

import dev.lockstep.Context;
import dev.lockstep.Task;
import dev.lockstep.engine.Engine;
import dev.lockstep.sim.os.NodeClock;
import dev.lockstep.sim.os.SimFileSystem;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The simulated machines of one simulation: {@link SimNode}s, each with its own disk (page cache and durable
 * image), its own clock, its own workers and its own address, running a main task written against
 * {@code dev.lockstep} alone. The run's root task is the controller: it starts the nodes, talks to them over the
 * network like any client, and crashes, kills, pauses, restarts and skews them while the others keep running.
 *
 * <pre>{@code
 * SimCluster cluster = SimCluster.of(ctx);
 * SimNode first = cluster.start(node::main);          // node 1 at 10.0.0.1, one worker
 * SimNode second = cluster.start(2, node::main);      // node 2 at 10.0.0.2, two workers
 * ctx.sleep(Duration.ofMillis(50));
 * first.crash();                                      // power cut: unsynced data meets the crash policy
 * ctx.sleep(Duration.ofMillis(10));
 * first.restart();                                    // lifetime 2, from what node 1's disk kept
 * }</pre>
 *
 * <h2>What a node is</h2>
 * A node's tasks get a {@code Context} of the node: its storage is the node's disk under the run's storage root,
 * its clock the node's clock, its network calls are made from the node's address ({@link #address(int)}:
 * {@code 10.0.0.id}; the run's own workers keep their loopback hosts), {@code ctx.workers()} and
 * {@code spawnOn} are the node's workers, and {@code ctx.stop}/{@code stopped} the node's own. The one seeded
 * generator decides everything on every node, and the one audit chain records every node, so the run's digest
 * covers them all and the same seed replays the same cluster. A node's disk has the run's storage faults as they
 * are when each lifetime starts, and its crashes the run's {@link CrashPolicy} as it is at the crash.
 *
 * <p>A cluster belongs to a run of {@link SimRunner#start}: a {@link SimRunner#startAndRecover} run crashes the
 * whole simulation, so it has none. The run ends when the controller (the root task) finishes: every node is
 * stopped then, as at the end of any run, and what a live or exited node left open counts as the run's leak.
 *
 * <p>{@link SimControl}'s time ({@code now()}, {@code ticker()}) is the simulation's, whichever task reads it; a
 * node's own time is its tasks' {@code ctx.now()} and {@link SimNode#clockNow()}.
 *
 * <p>A node's tasks use the contexts the node gave them: a controller's context used inside a node's task would
 * reach the controller's disk, as a context handed to another process would make no sense in production.
 *
 * <h2>Threads and errors</h2>
 * Every method must be called from a task of the simulation (on its one thread); another thread's call throws
 * {@link IllegalStateException} and fails the run as a determinism leak. An id no node has throws
 * {@link UnknownNodeException} naming it.
 */
public final class SimCluster {
    /** The most nodes a cluster may have. */
    public static final int MAX_NODES = 1000;
    /** The most workers a node may have. */
    public static final int MAX_WORKERS_PER_NODE = 64;

    final Simulation simulation;
    private final List<SimNode> nodes = new ArrayList<>();
    /** Lifetimes that run now. */
    private final List<NodeRun> running = new ArrayList<>();
    /** Lifetimes that died or whose main task returned, until they retire. */
    private final List<NodeRun> ending = new ArrayList<>();
    /** Lifetimes that exited and retired: what they left open is the run's leak. */
    private final List<NodeRun> exited = new ArrayList<>();
    /** Every node engine of the run, for "is this fiber ours" checks from any thread (identity, lookups only). */
    private final Set<Engine> engines = ConcurrentHashMap.newKeySet();
    /** Nodes whose armed I/O boundary fired, with the boundary and the syncs in flight: crashed at the next settle. */
    private final List<DueCrash> dueCrashes = new ArrayList<>();
    /** Whether nodes started from now on are fail-stop. */
    private boolean failStop;

    SimCluster(Simulation simulation) {
        this.simulation = simulation;
    }

    /**
     * The cluster of the simulation running the calling task.
     *
     * @param ctx the calling task's context
     * @return the cluster, one per run
     * @throws IllegalStateException outside a running simulation, or in a {@link SimRunner#startAndRecover} run
     */
    public static SimCluster of(Context ctx) {
        return SimRunner.control(ctx).cluster();
    }

    /**
     * The address of node {@code id}: {@code 10.0.0.1} for node 1, {@code 10.0.1.4} for node 260.
     *
     * @param id the node id, {@code 1 <= id <= MAX_NODES}
     * @return the address
     * @throws IllegalArgumentException naming {@code id} if out of that range
     */
    public static InetAddress address(int id) {
        if (id < 1 || id > MAX_NODES) {
            throw new IllegalArgumentException("node id must be between 1 and " + MAX_NODES + ", was " + id);
        }
        try {
            return InetAddress.getByAddress(new byte[] {10, 0, (byte) (id >>> 8), (byte) id});
        } catch (java.net.UnknownHostException impossibleForRawBytes) {
            throw new IllegalStateException(impossibleForRawBytes);
        }
    }

    /**
     * Starts a node with one worker; see {@link #start(int, Task)}.
     *
     * @param main the node's main task
     * @return the node
     */
    public SimNode start(Task<?> main) {
        return start(1, main);
    }

    /**
     * Starts the next node: id {@code nodes().size() + 1}, an empty disk, its clock reading the simulation's time,
     * and {@code main} as its first lifetime's root task (it runs from the next step on).
     *
     * @param workers the node's workers, {@code 1 <= workers <= MAX_WORKERS_PER_NODE}
     * @param main the node's main task, run again from the start by every {@link SimNode#restart()}
     * @return the node
     * @throws IllegalArgumentException naming {@code workers} if out of range, or when the cluster is full
     * @throws NullPointerException if {@code main} is null
     */
    public SimNode start(int workers, Task<?> main) {
        check("SimCluster.start");
        Objects.requireNonNull(main, "main");
        if (workers < 1 || workers > MAX_WORKERS_PER_NODE) {
            throw new IllegalArgumentException("a node's workers must be between 1 and " + MAX_WORKERS_PER_NODE
                    + ", was " + workers);
        }
        if (nodes.size() == MAX_NODES) {
            throw new IllegalArgumentException("a cluster has at most " + MAX_NODES + " nodes");
        }
        int id = nodes.size() + 1;
        SimFileSystem files = new SimFileSystem(simulation.generator, simulation.auditor, StorageFaults.NONE);
        SimNode node = new SimNode(this, id, workers, address(id), main, files,
                new NodeClock(simulation.clock.nowNanos(), 0));
        nodes.add(node);
        if (failStop) {
            node.failStop(true);
        }
        node.boot();
        return node;
    }

    /**
     * Makes every node started from now on fail-stop (or not): a node whose main task throws goes down instead of
     * failing the run (see {@link SimNode}'s "Fail-stop"). Nodes already started keep their setting.
     *
     * @param on whether nodes started from now on are fail-stop
     */
    public void failStop(boolean on) {
        check("SimCluster.failStop");
        failStop = on;
    }

    /**
     * A node by id.
     *
     * @param id the id
     * @return the node
     * @throws UnknownNodeException naming {@code id} if no node has it
     */
    public SimNode node(int id) {
        check("SimCluster.node");
        if (id < 1 || id > nodes.size()) {
            throw new UnknownNodeException(id, nodes.size());
        }
        return nodes.get(id - 1);
    }

    /**
     * Every node, by id.
     *
     * @return an unmodifiable snapshot
     */
    public List<SimNode> nodes() {
        check("SimCluster.nodes");
        return List.copyOf(nodes);
    }

    void check(String what) {
        simulation.checkConfined(what);
    }

    // ------------------------------------------------------------------------------- the simulation's side

    /** A lifetime started: its engine is the run's from now on. */
    void started(NodeRun run) {
        engines.add(run.engine);
        running.add(run);
    }

    /** A node's armed I/O boundary fired: it crashes before the next step (not inside the ring that saw it). */
    void crashDue(SimNode node, SimNode.IoBoundary boundary, int syncsInFlight) {
        dueCrashes.add(new DueCrash(node, boundary, syncsInFlight));
    }

    private record DueCrash(SimNode node, SimNode.IoBoundary boundary, int syncsInFlight) {
    }

    /** A lifetime died; it retires once its tasks and requests are gone. */
    void ending(NodeRun run) {
        running.remove(run);
        ending.add(run);
    }

    /** Whether {@code engine} is a node engine of this run; any thread. */
    boolean owns(Engine engine) {
        return engines.contains(engine);
    }

    /**
     * Between two steps: a lifetime whose main task returned starts ending, one that may retire does, and the first
     * failure of a node (its main task threw, its runtime failed) is returned for the run to fail with.
     *
     * @return the failure, or null
     */
    String settle() {
        if (!dueCrashes.isEmpty()) {
            List<DueCrash> due = List.copyOf(dueCrashes);
            dueCrashes.clear();
            for (DueCrash crash : due) {
                crash.node().crashAtBoundary(crash.boundary(), crash.syncsInFlight());
            }
        }
        for (int i = 0; i < running.size(); i++) {
            NodeRun run = running.get(i);
            Throwable runtime = run.engine.failure();
            if (runtime != null) {
                return "node " + run.node().id() + " (lifetime " + run.lifetime() + ") failed: " + runtime;
            }
            if (run.rootDone()) {
                Throwable failed = run.rootFailure();
                if (failed != null && run.node().failStopOn() && run.node().run() == run) {
                    run.node().failStopped(run, failed); // moves the run from running to ending
                    i--;
                    continue;
                }
                if (failed != null) {
                    return "node " + run.node().id() + "'s main task failed in lifetime " + run.lifetime() + ": "
                            + failed;
                }
                running.remove(i--);
                ending.add(run);
            }
        }
        for (int i = 0; i < ending.size(); i++) {
            NodeRun run = ending.get(i);
            if (run.canRetire()) {
                ending.remove(i--);
                run.retire(simulation.scheduler(), null);
                if (!run.isDead()) {
                    exited.add(run);
                    if (run.node().run() == run) {
                        run.node().exited();
                    }
                }
            }
        }
        return null;
    }

    /** Aborts every task of every node, paused ones resumed first: the run ends. */
    void abortAll() {
        for (NodeRun run : running) {
            run.halt(simulation.scheduler(), false);
            run.abortAll();
        }
    }

    /** Live fibers of every node. */
    int liveFibers() {
        int live = 0;
        for (NodeRun run : running) {
            live += run.engine.liveFibers();
        }
        for (NodeRun run : ending) {
            live += run.engine.liveFibers();
        }
        return live;
    }

    /** {@link Engine#fiberWaitingOutsideLockstep()} over every node. */
    String fiberWaitingOutsideLockstep() {
        for (NodeRun run : all()) {
            String outside = run.engine.fiberWaitingOutsideLockstep();
            if (outside != null) {
                return "node " + run.node().id() + ": " + outside;
            }
        }
        return null;
    }

    /** The live fibers of every node, for a stall's message. */
    List<dev.lockstep.engine.task.Fiber> fibers() {
        List<dev.lockstep.engine.task.Fiber> fibers = new ArrayList<>();
        for (NodeRun run : all()) {
            fibers.addAll(run.engine.fibers());
        }
        return fibers;
    }

    private List<NodeRun> all() {
        List<NodeRun> all = new ArrayList<>(running);
        all.addAll(ending);
        return all;
    }

    /** At the end of the run: every lifetime not yet retired retires, moving time with {@code onIdle}. */
    void retireAll(java.util.function.Function<dev.lockstep.engine.worker.Worker, Runnable> onIdle) {
        for (NodeRun run : all()) {
            run.retire(simulation.scheduler(), onIdle);
            if (!run.isDead()) {
                exited.add(run);
            }
        }
        running.clear();
        ending.clear();
    }

    /** What every lifetime that did not die left open (see {@link NodeRun#leftOver()}). */
    List<String> leftOver() {
        List<String> held = new ArrayList<>();
        for (NodeRun run : exited) {
            held.addAll(run.leftOver());
        }
        return held;
    }

    @Override
    public String toString() {
        return "SimCluster(" + nodes.size() + " nodes)";
    }
}
