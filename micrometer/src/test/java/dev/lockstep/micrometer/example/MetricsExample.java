package dev.lockstep.micrometer.example;

import dev.lockstep.Blob;
import dev.lockstep.micrometer.LockstepMetrics;
import dev.lockstep.uring.UringRunner;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;

public class MetricsExample {
    public static double bytesWritten(Path data) {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();   // in production: Prometheus, OTLP, JMX, ...
        LockstepMetrics metrics = new LockstepMetrics();
        metrics.bindTo(registry);
        UringRunner.builder().storage(data).metrics(metrics).build().start(ctx -> {
            try (Blob blob = ctx.open("log", "0").await().blob()) {
                blob.writeAt(0, new byte[4096]).await();
                blob.sync().await();
            }
            return null;
        });
        // One counter per worker (tag worker=N) and kind (read, write); the run's final counts, summed.
        return registry.get("lockstep.storage.bytes").tag("kind", "write").functionCounters().stream()
                .mapToDouble(FunctionCounter::count).sum();
    }
}
