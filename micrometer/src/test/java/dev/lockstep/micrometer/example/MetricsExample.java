package dev.lockstep.micrometer.example;

import dev.lockstep.Blob;
import dev.lockstep.micrometer.LockstepMetrics;
import dev.lockstep.uring.UringRunner;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;

/** The README's metrics example: its block is the body below, between the registry and the return. */
public class MetricsExample {
    /**
     * Writes and syncs 4096 bytes on a live runner bound to a registry, and reads the bytes written from it.
     *
     * @param data the storage directory
     * @return the bytes the registry says were written
     */
    public static double bytesWritten(Path data) {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        LockstepMetrics metrics = new LockstepMetrics();
        metrics.bindTo(registry);                                   // any MeterRegistry: Prometheus, OTLP, JMX, ...
        UringRunner.builder().storage(data).metrics(metrics).build().start(ctx -> {
            try (Blob blob = ctx.open("log", "0").await().blob()) {
                blob.writeAt(0, new byte[4096]).await();
                blob.sync().await();
            }
            return null;
        });
        // One counter per worker (tag worker=N) and kind (read, write): the run's final counts, summed here.
        double written = registry.get("lockstep.storage.bytes").tag("kind", "write").functionCounters().stream()
                .mapToDouble(FunctionCounter::count).sum();
        return written;
    }
}
