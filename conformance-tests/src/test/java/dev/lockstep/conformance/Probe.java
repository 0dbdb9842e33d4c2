package dev.lockstep.conformance;

import dev.lockstep.Context;
import dev.lockstep.ReceiveLimits;
import dev.lockstep.Runner;
import dev.lockstep.spi.MetricsSink;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.Set;

/**
 * What differs per runtime in building a runner and in what a case may observe beyond the calls it makes, each
 * through the runtime's public API: the runner's builder, its metrics sink, the fds its kernel has open
 * ({@code SimControl.openFds(ctx)} in the simulator, this process's {@code /proc/self/fd} in production) and the
 * loopback address a worker binds ({@code SimControl.host()}). Cases use nothing of the engine.
 */
public interface Probe {

    /**
     * The probe of a runtime.
     *
     * @param kind the runtime
     * @return its probe
     */
    static Probe of(RuntimeKind kind) {
        return kind == RuntimeKind.SIM ? SimProbe.INSTANCE : UringProbe.INSTANCE;
    }

    /**
     * A fresh runner.
     *
     * @param config the configuration
     * @param ringEntries ring entries per worker
     * @param storage the storage directory (runtime-uring; the simulator's disk is its own)
     * @param leakChecked whether a run that ends holding resources it did not start with fails (the simulator;
     *     runtime-uring closes what is left either way)
     * @param metrics the runner's metrics sink
     * @return the runner
     */
    Runner runner(RuntimeConfig config, int ringEntries, Path storage, boolean leakChecked, MetricsSink metrics);

    /**
     * A fresh runner without storage whose buffered receive memory is bounded by {@code limits}.
     *
     * @param config the configuration
     * @param ringEntries ring entries per worker
     * @param limits the bounds
     * @param metrics the runner's metrics sink
     * @return the runner
     */
    Runner runner(RuntimeConfig config, int ringEntries, ReceiveLimits limits, MetricsSink metrics);

    /**
     * Bytes of buffered receive memory {@code runner} holds now (see {@link ReceiveLimits}): the runner's own
     * {@code receiveBufferBytes()}.
     *
     * @param runner a runner this probe made
     * @return bytes
     */
    long receiveBufferBytes(Runner runner);

    /**
     * The loopback address the calling task's worker binds: {@code 127.0.0.1} in production; in the simulator,
     * where each worker is its own host, that worker's address.
     *
     * @param ctx the calling task's context
     * @return the address
     */
    default InetAddress localHost(Context ctx) {
        return InetAddress.getLoopbackAddress();
    }

    /**
     * The file descriptors the runtime's kernel has open right now, for leak checks.
     *
     * @param ctx the calling task's context
     * @return the open fds, a fresh set the caller may change
     */
    Set<Integer> openFds(Context ctx);
}
