package dev.lockstep.sim;

import dev.lockstep.ExitedException;
import dev.lockstep.Handle;
import dev.lockstep.Poll;
import dev.lockstep.Task;
import dev.lockstep.engine.Engine;
import dev.lockstep.engine.worker.Worker;
import dev.lockstep.sim.audit.Auditor;
import dev.lockstep.sim.os.IoBoundaryListener;
import dev.lockstep.sim.os.SimFileSystem;
import dev.lockstep.sim.os.SimKernel;
import dev.lockstep.sim.os.SimNetwork;
import dev.lockstep.sim.sched.Scheduler;
import java.util.ArrayList;
import java.util.List;

/**
 * One lifetime of a {@link SimNode}: the process that runs the node's main task, from its start to its death or
 * exit. It has its own {@link SimKernel} (fd table, rings, the node's address and clock) over the node's
 * {@link SimFileSystem}, which outlives it, and its own {@link Engine} (workers, supervision tree, stop state,
 * storage hold), whose workers the simulation's {@link Scheduler} drives beside every other.
 *
 * <h2>Ending</h2>
 * A lifetime ends by death ({@link #die}: a crash or a kill) or by exit (its main task finished). Death aborts
 * every task at once and closes the workers to new requests, so nothing the node's code does afterwards reaches
 * its disk or the network; the tasks still unwind (their awaits throw {@code ClosedException} or
 * {@code AbortedException}, their {@code finally} blocks run) and the requests the kernel already had complete,
 * on handles the crash or kill made stale. Once no task is left and no request is in flight, the lifetime
 * {@link #retire}s: its workers close, what a dead process left open is closed with it (an exit's leftovers are
 * the run's leaks), its native memory is freed.
 *
 * <p>Simulator thread only.
 */
final class NodeRun implements IoBoundaryListener {
    private final SimNode node;
    private final int lifetime;
    final SimKernel kernel;
    final Engine engine;
    private final List<Worker> workers = new ArrayList<>();
    private final Handle<?> root;
    private int hold = -1;
    private boolean dead;
    private boolean retired;
    /** The lifetime's meters, offered to the simulation's sink at its start and end. */
    private final List<dev.lockstep.spi.Meter> meters;
    private final Simulation simulation;

    NodeRun(Simulation simulation, SimNode node, int lifetime, Task<?> main) {
        this.node = node;
        this.lifetime = lifetime;
        this.simulation = simulation;
        SimConfig config = simulation.config();
        this.kernel = SimKernel.builder(simulation.generator, simulation.auditor, simulation.clock)
                .fileSystem(node.files)
                .network(simulation.network)
                .hostAddress(node.address())
                .behavior(config.kernelBehavior())
                .openFileLimit(config.openFileLimit())
                .nodeClock(node.clock)
                .build();
        kernel.simulation = simulation;
        kernel.nodeRun = this;
        this.engine = new Engine(kernel, node.workers(), config.ringEntries(), simulation.fiberScheduler(),
                config.storageRoot());
        engine.receiveMemory(new dev.lockstep.engine.buffer.ReceiveMemory(config.receiveLimits()));
        simulation.adopt(engine);
        for (int i = 0; i < node.workers(); i++) {
            Worker worker = engine.createWorker(i);
            workers.add(worker);
            simulation.scheduler().addWorker(worker);
        }
        // Reading meters draws and records nothing, so a sink leaves the run's digest as it was.
        this.meters = engine.meters(java.util.Map.of("node", Integer.toString(node.id())));
        simulation.metrics().runStarted(meters);
        // As a machine boots: the storage root made and held before the node's code runs, without faults.
        StorageFaults faults = simulation.files.faults();
        node.files.setFaults(StorageFaults.NONE);
        if (lifetime == 1) {
            Simulation.makeParents(node.files, config.storageRoot());
        }
        hold = engine.storageHold();
        node.files.setFaults(faults);
        simulation.auditor.record("node.start", Auditor.u32(node.id()), Auditor.u32(lifetime),
                Auditor.u64(kernel.localNanos()));
        simulation.cluster().started(this);
        this.root = engine.startRoot(main);
    }

    int lifetime() {
        return lifetime;
    }

    SimNode node() {
        return node;
    }

    boolean isDead() {
        return dead;
    }

    boolean isRetired() {
        return retired;
    }

    /** Whether the main task finished. */
    boolean rootDone() {
        return root.isDone();
    }

    /** The main task's own failure (it threw), or null: it succeeded, was aborted, or has not finished. */
    Throwable rootFailure() {
        if (!root.isDone()) {
            return null;
        }
        Poll<?> outcome = root.poll(null);
        try {
            outcome.get();
            return null;
        } catch (ExitedException failed) {
            return failed.getCause() == null ? failed : failed.getCause();
        } catch (RuntimeException abortedOrClosed) {
            return null;
        }
    }

    /**
     * The process reached an I/O boundary: if the node is armed for it ({@link SimNode#crashAt}) and this is its
     * current lifetime, the cluster crashes it before the next step.
     */
    @Override
    public void ioBoundary(SimNode.IoBoundary boundary) {
        if (!dead && node.run() == this && node.armedFor(boundary)) {
            node.triggered(boundary, kernel.syncsInFlight());
        }
    }

    /** Syncs in flight on this lifetime's rings. */
    int syncsInFlight() {
        return kernel.syncsInFlight();
    }

    /** Halts or resumes every worker: a paused process. */
    void halt(Scheduler scheduler, boolean halt) {
        for (Worker worker : workers) {
            scheduler.halt(worker, halt);
        }
    }

    /**
     * The process dies now: every task aborted, the workers closed to new requests, the node's connections
     * reset and its listeners closed (so its address refuses connections until a new lifetime binds it).
     */
    void die(SimNetwork network) {
        dead = true;
        for (Worker worker : workers) {
            worker.markClosing();
        }
        engine.abortAll();
        kernel.closeListeners();
        network.breakConnections(node.address());
    }

    /** Aborts every task, for the end of the run. */
    void abortAll() {
        engine.abortAll();
    }

    /** Whether the lifetime may retire: no task left, no request in the kernel. */
    boolean canRetire() {
        if (engine.liveFibers() > 0) {
            return false;
        }
        for (Worker worker : workers) {
            if (worker.hasRingWork()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Closes the workers and stops scheduling them; a dead process's open fds are closed as its death closes
     * them. The caller made sure {@link #canRetire()}, or, at the end of the run, passes a way to move time.
     *
     * @param onIdle for each worker, what moves time while it waits for its ring; null if it needs none
     */
    void retire(Scheduler scheduler, java.util.function.Function<Worker, Runnable> onIdle) {
        if (retired) {
            return;
        }
        retired = true;
        for (Worker worker : workers) {
            worker.close(onIdle == null ? null : onIdle.apply(worker));
            scheduler.retire(worker);
        }
        engine.endRun();
        simulation.metrics().runEnded(meters);
        if (dead) {
            kernel.closeAllFds();
        } else {
            engine.releaseStorageHold(hold);
        }
        hold = -1;
    }

    /** What this lifetime's kernel still holds, and its fibers still alive, each named (see Simulation). */
    List<String> leftOver() {
        List<String> held = new ArrayList<>();
        for (String resource : kernel.heldResources()) {
            held.add("node " + node.id() + " (lifetime " + lifetime + "): " + resource);
        }
        kernel.freeLeakedMemory();
        for (dev.lockstep.engine.task.Fiber live : engine.fibers()) {
            Thread fiber = live.thread();
            if (fiber != null && fiber.getState() != Thread.State.TERMINATED) {
                held.add("node " + node.id() + " (lifetime " + lifetime + "): fiber '" + fiber.getName()
                        + "', still running" + LeakWatch.where(fiber.getStackTrace()));
            }
        }
        return held;
    }

    /** Frees what a dead lifetime's kernel still holds in native memory. */
    void freeMemory() {
        kernel.freeLeakedMemory();
    }

    @Override
    public String toString() {
        return "node " + node.id() + " lifetime " + lifetime + (dead ? " (dead)" : "") + (retired ? " (retired)" : "");
    }
}
