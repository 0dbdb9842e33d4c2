package dev.lockstep.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.Listener;
import dev.lockstep.Operation;
import dev.lockstep.Task;
import dev.lockstep.sim.SimRunner;
import dev.lockstep.spi.Meter;
import dev.lockstep.uring.UringRunner;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LockstepMetricsTest {
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    /** What the task writes to a blob, in three writes, and sends to itself over loopback. */
    private static final int[] WRITES = {4096, 1000, 77};
    private static final int WRITTEN = Arrays.stream(WRITES).sum();
    private static final int SENT = 5000;

    /** Writes, syncs and reads back a blob, then sends bytes over a connection to itself; returns bytes read. */
    private static int storageAndNetwork(Context ctx) {
        try (Blob blob = ctx.open("metrics", "blob").await().blob()) {
            long at = 0;
            for (int length : WRITES) {
                blob.writeAt(at, new byte[length]).await();
                at += length;
            }
            blob.sync().await();
            byte[] back = blob.readAt(0, WRITTEN).await();
            try (Listener listener = ctx.bind(ANY_PORT).await()) {
                Operation<Connection> accepted = listener.accept();
                try (Connection client = ctx.dial(listener.localAddress()).await();
                     Connection server = accepted.await()) {
                    client.sink().send(new byte[SENT]).await();
                    server.stream().recv(SENT).await();
                }
            }
            return back.length;
        }
    }

    /** The sum over workers of a counter with these tags. */
    private static double counted(MeterRegistry registry, String name, String... tags) {
        return registry.get(name).tags(tags).functionCounters().stream().mapToDouble(FunctionCounter::count).sum();
    }

    @Test
    void tagSetsWhoseTextLooksAlikeAreTwoMeters() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        LockstepMetrics metrics = new LockstepMetrics();
        metrics.bindTo(registry);
        // As text both tag sets read {a=1, b=2}: one tag whose value holds ", b=2", and two tags.
        Map<String, String> oneTag = Map.of("a", "1, b=2");
        Map<String, String> twoTags = Map.of("a", "1", "b", "2");
        metrics.runStarted(List.of(
                new Meter.Gauge("test.gauge", "a gauge", "things", oneTag, () -> 1),
                new Meter.Gauge("test.gauge", "a gauge", "things", twoTags, () -> 2)));
        assertEquals(1, registry.get("test.gauge").tags("a", "1, b=2").gauge().value());
        assertEquals(2, registry.get("test.gauge").tags("a", "1", "b", "2").gauge().value());
        assertEquals(2, registry.find("test.gauge").gauges().size());
    }

    @Test
    void aLiveUringRunnerCountsWhatItsTasksDid(@TempDir Path data) {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        LockstepMetrics metrics = new LockstepMetrics();
        metrics.bindTo(registry);
        UringRunner runner = UringRunner.builder().workers(2).storage(data).metrics(metrics).build();
        double[] writtenWhileRunning = new double[1];
        int read = runner.start(ctx -> {
            int bytes = storageAndNetwork(ctx);
            // Read live, from the task itself, while the run goes on.
            writtenWhileRunning[0] = counted(registry, "lockstep.storage.bytes", "kind", "write");
            return bytes;
        });
        assertEquals(WRITTEN, read);
        assertEquals(WRITTEN, writtenWhileRunning[0], "bytes written, read during the run");
        assertEquals(WRITTEN, counted(registry, "lockstep.storage.bytes", "kind", "write"));
        assertEquals(WRITTEN, counted(registry, "lockstep.storage.bytes", "kind", "read"));
        assertEquals(WRITES.length, counted(registry, "lockstep.storage.operations", "kind", "write"));
        assertEquals(1, counted(registry, "lockstep.storage.operations", "kind", "read"));
        assertEquals(SENT, counted(registry, "lockstep.network.bytes", "kind", "sent"));
        assertEquals(SENT, counted(registry, "lockstep.network.bytes", "kind", "received"));
        assertEquals(1, counted(registry, "lockstep.network.connections", "kind", "accepted"));
        assertEquals(1, counted(registry, "lockstep.network.connections", "kind", "dialled"));
        assertEquals(0, counted(registry, "lockstep.network.resets"));
        assertTrue(counted(registry, "lockstep.ring.enters") > 0, "the workers entered their rings");
        FunctionTimer syncs = registry.get("lockstep.storage.sync").tag("worker", "0").functionTimer();
        assertEquals(1, syncs.count(), "the one sync, on worker 0 where the root task runs");
        assertTrue(syncs.totalTime(TimeUnit.NANOSECONDS) > 0, "a flush takes time");
        // One meter per worker of each name and tags, with the worker's index.
        assertEquals(2, registry.get("lockstep.requests.inflight").gauges().size());
        assertEquals(0, registry.get("lockstep.requests.inflight").gauges().stream()
                .mapToDouble(gauge -> gauge.value()).sum(), "gauges read 0 once the run ended");
    }

    @Test
    void theSimulatorCountsTheSameWithoutChangingItsRun() {
        Task<Integer> task = LockstepMetricsTest::storageAndNetwork;
        SimRunner plain = SimRunner.seeded(7);
        plain.start(task);

        SimpleMeterRegistry first = new SimpleMeterRegistry();
        LockstepMetrics firstMetrics = new LockstepMetrics();
        firstMetrics.bindTo(first);
        SimRunner measured = SimRunner.seeded(7).metrics(firstMetrics);
        measured.start(task);
        Map<String, Double> firstValues = values(first);

        SimpleMeterRegistry second = new SimpleMeterRegistry();
        LockstepMetrics secondMetrics = new LockstepMetrics();
        secondMetrics.bindTo(second);
        SimRunner again = SimRunner.seeded(7).metrics(secondMetrics);
        again.start(task);

        assertEquals(plain.digest(), measured.digest(), "a sink that reads the meters leaves the run as it was");
        assertEquals(firstValues, values(second), "the same seed counts the same");
        assertEquals(WRITTEN, counted(first, "lockstep.storage.bytes", "kind", "write"));
        assertEquals(WRITTEN, counted(first, "lockstep.storage.bytes", "kind", "read"));
        assertEquals(SENT, counted(first, "lockstep.network.bytes", "kind", "sent"));
        assertEquals(SENT, counted(first, "lockstep.network.bytes", "kind", "received"));
        assertEquals(1, counted(first, "lockstep.network.connections", "kind", "accepted"));
        FunctionTimer syncs = first.get("lockstep.storage.sync").tag("worker", "0").functionTimer();
        assertEquals(1, syncs.count());
        assertTrue(syncs.totalTime(TimeUnit.NANOSECONDS) > 0, "a simulated flush takes simulated time");
    }

    /** Every meter's value by its name and tags; a timer by its count and total. */
    private static Map<String, Double> values(MeterRegistry registry) {
        Map<String, Double> values = new TreeMap<>();
        registry.forEachMeter(meter -> {
            String key = meter.getId().getName() + meter.getId().getTags();
            if (meter instanceof FunctionTimer timer) {
                values.put(key + ".count", timer.count());
                values.put(key + ".total", timer.totalTime(TimeUnit.NANOSECONDS));
            } else {
                meter.measure().forEach(sample -> values.put(key + "." + sample.getStatistic(), sample.getValue()));
            }
        });
        assertTrue(values.size() > 10, "the run's meters are registered: " + values.keySet());
        return values;
    }
}
