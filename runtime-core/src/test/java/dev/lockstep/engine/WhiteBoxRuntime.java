package dev.lockstep.engine;

import dev.lockstep.Blob;
import dev.lockstep.Context;
import dev.lockstep.Operation;
import dev.lockstep.Runner;
import dev.lockstep.engine.io.DurabilityPermit;
import dev.lockstep.engine.request.Registration;
import dev.lockstep.engine.request.WaiterId;
import dev.lockstep.engine.worker.Worker;
import java.net.InetAddress;
import java.nio.file.Path;

/**
 * One runtime configuration a white-box case ({@link WhiteBoxCases}) runs under, with what the case inspects
 * inside the engine. Both runtimes run the same engine, so the inspecting methods read the current
 * {@link Worker}; what each runtime supplies is how a runner is built, the loopback address of a worker and how
 * the test writes the peer of a {@link SocketPair} past the runtime.
 *
 * <p>The worker-level hooks are the Java forms of the seed's reaches into {@code Local}: requests admitted and
 * not yet retired ({@code driver.len()}), whether the worker's state is borrowed right now ({@code check_local}),
 * marking the worker closing ({@code local.closing = true}), the worker's cached clock ({@code local.now}) and
 * an operation's identity ({@code operation.key()}). Every method but {@link #runner} runs on a fiber of the
 * runtime.
 */
public interface WhiteBoxRuntime {

    /**
     * A fresh runner.
     *
     * @param ringEntries ring entries per worker (1: the seed's "one in-flight request")
     * @param storage the storage directory (runtime-uring; the simulator's disk is its own)
     * @param leakChecked whether a run that ends holding resources it did not start with fails (the simulator;
     *     runtime-uring closes what is left either way)
     * @return the runner, single use
     */
    Runner runner(int ringEntries, Path storage, boolean leakChecked);

    /**
     * Whether this is the simulator.
     *
     * @return true for runtime-sim
     */
    boolean isSim();

    /**
     * Writes {@code data} into the peer socket directly, as the seed's {@code peer.write_all}: not through a
     * worker's ring, so it never competes with the one in-flight slot of a ring of size 1.
     *
     * @param peerFd the peer's fd
     * @param data the bytes, all of which are written
     */
    void writeDirect(int peerFd, byte[] data);

    /**
     * The file descriptors the runtime's kernel has open right now, for leak checks: the simulated kernel's fd
     * table, or this process's {@code /proc/self/fd} in production.
     *
     * @return the open fds, a fresh set the caller may change
     */
    java.util.Set<Integer> openFds();

    /**
     * The loopback address the calling fiber's worker binds: {@code 127.0.0.1} in production; in the simulator,
     * where each worker is its own host, that worker's address.
     *
     * @return the address
     */
    default InetAddress localHost() {
        return InetAddress.getLoopbackAddress();
    }

    /**
     * The worker of the calling fiber.
     *
     * @return the worker
     * @throws IllegalStateException on a plain thread
     */
    default Worker worker() {
        Worker worker = Worker.current();
        if (worker == null) {
            throw new IllegalStateException("the white-box hooks must be used from a fiber of the runtime");
        }
        return worker;
    }

    /**
     * Requests admitted to the current worker and not yet retired: the seed's {@code admitted()}.
     *
     * @return the count
     */
    default int admitted() {
        return worker().admitted();
    }

    /**
     * Whether the current worker's state is borrowed right now. A waker callback that sees true runs inside the
     * critical section. On a plain thread there is no current worker: false.
     *
     * @return true while borrowed
     */
    default boolean borrowed() {
        Worker worker = Worker.current();
        return worker != null && worker.isBorrowed();
    }

    /**
     * The critical section the calling thread is inside, for {@link dev.lockstep.Reentrant}: the current worker's
     * borrow, or null outside one.
     *
     * @return a description, or null
     */
    default String criticalSection() {
        return borrowed() ? "the current worker's borrow" : null;
    }

    /** Marks the current worker closing: the seed's {@code local.closing = true}. */
    default void markClosing() {
        worker().markClosing();
    }

    /**
     * The current worker's cached clock: the seed's {@code local.now}.
     *
     * @return epoch nanoseconds
     */
    default long nowNanos() {
        return worker().nowNanos();
    }

    /**
     * The identity of an operation registered on a worker: the seed's {@code operation.key()}.
     *
     * @param operation the operation
     * @return its waiter id, or null for one refused by a closing worker
     */
    default WaiterId key(Operation<?> operation) {
        return ((Registration<?>) operation).key();
    }

    /**
     * The durability permit of an open blob: the seed's {@code shared.durability}.
     *
     * @param blob an open blob of this runtime
     * @return its permit
     */
    default DurabilityPermit permit(Blob blob) {
        return DurabilityPermit.of(blob);
    }

    /**
     * A connected socket pair on loopback; see {@link SocketPair}.
     *
     * @param ctx the calling task's context
     * @return the pair
     */
    default SocketPair socketPair(Context ctx) {
        return SocketPair.open(this, ctx);
    }
}
