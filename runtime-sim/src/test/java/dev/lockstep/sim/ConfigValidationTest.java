package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.sim.os.Harness;
import dev.lockstep.sim.os.SimKernel;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ConfigValidationTest {

    private static void assertNames(String field, String value, Executable build) {
        IllegalArgumentException failure = assertThrows(IllegalArgumentException.class, build);
        assertTrue(failure.getMessage().contains(field), failure.getMessage() + " should name " + field);
        assertTrue(failure.getMessage().contains(value), failure.getMessage() + " should show " + value);
    }

    @ParameterizedTest
    @ValueSource(strings = {"openRate", "readRate", "writeRate", "syncRate", "resizeRate", "removeRate", "scanRate",
            "partialWriteRate"})
    void storageFaultRatesOutsideZeroToOneAreRejectedByName(String field) {
        for (double bad : new double[] {-0.5, 1.5, Double.NaN}) {
            assertNames(field, String.valueOf(bad), () -> setter(field).accept(bad));
        }
    }

    private static Consumer<Double> setter(String field) {
        return rate -> {
            StorageFaults.Builder builder = StorageFaults.builder();
            switch (field) {
                case "openRate" -> builder.openRate(rate);
                case "readRate" -> builder.readRate(rate);
                case "writeRate" -> builder.writeRate(rate);
                case "syncRate" -> builder.syncRate(rate);
                case "resizeRate" -> builder.resizeRate(rate);
                case "removeRate" -> builder.removeRate(rate);
                case "scanRate" -> builder.scanRate(rate);
                default -> builder.partialWriteRate(rate);
            }
            builder.build();
        };
    }

    @Test
    void otherConfigurationIsValidatedByName() {
        assertNames("capacityBytes", "-1", () -> StorageFaults.builder().capacityBytes(-1).build());
        assertNames("shortReadRate", "2.0", () -> KernelBehavior.DEFAULT.withShortTransfers(2.0, 0));
        assertNames("cancelRaceRate", "-1.0", () -> KernelBehavior.DEFAULT.withCancelRaceRate(-1.0));
        assertNames("maxLatencyNanos", "5", () -> KernelBehavior.DEFAULT.withLatency(10, 5));
        assertNames("maxRingEntries", "3", () -> KernelBehavior.DEFAULT.withMaxRingEntries(3));
        assertNames("breakRate", "1.01", () -> NetworkConfig.DEFAULT.withBreakRate(1.01));
        assertNames("connectTimeoutNanos", "0", () -> NetworkConfig.DEFAULT.withConnectTimeoutNanos(0));
        assertNames("jitterNanos", "20", () -> new LinkProfile(10, 20));
        assertNames("latencyNanos", "-3", () -> new LinkProfile(-3, 0));
    }

    @Test
    void simConfigIsValidatedWhenBuiltByField() {
        assertField("SimConfig.workers", "was -2", () -> SimConfig.builder().workers(-2).build());
        assertField("SimConfig.ringEntries", "was 0", () -> SimConfig.builder().ringEntries(0).build());
        assertField("SimConfig.ringEntries", "was 48", () -> SimConfig.builder().ringEntries(48).build());
        assertField("SimConfig.ringEntries", "was 64", () -> SimConfig.builder()
                .kernelBehavior(KernelBehavior.DEFAULT.withMaxRingEntries(32)).ringEntries(64).build());
        assertField("SimConfig.startNanos", "was -1", () -> SimConfig.builder().startNanos(-1).build());
        assertField("SimConfig.start", "1900", () -> SimConfig.builder()
                .start(java.time.Instant.parse("1900-01-01T00:00:00Z")).build());
        // A start near the end of epoch nanoseconds would make a 1 ms sleep's deadline overflow: refused here.
        long nearTheEnd = Long.MAX_VALUE - 1_000_000;
        assertField("SimConfig.startNanos", "was " + nearTheEnd, () -> SimConfig.builder().startNanos(nearTheEnd)
                .build());
        assertField("SimConfig.start", "2262", () -> SimConfig.builder()
                .start(java.time.Instant.parse("2262-04-11T23:47:16.853775807Z")).build());
        assertField("SimConfig.start", "3000", () -> SimConfig.builder()
                .start(java.time.Instant.parse("3000-01-01T00:00:00Z")).build());
        SimConfig latest = SimConfig.builder().start(SimConfig.LATEST_START).build();
        java.time.Instant woke = SimRunner.of(latest).start(ctx -> {
            ctx.sleep(java.time.Duration.ofMillis(1));
            return ctx.now();
        });
        assertTrue(!woke.isBefore(SimConfig.LATEST_START.plusMillis(1)), "a run at the latest start sleeps: " + woke);
        assertField("SimConfig.timeLimit", "PT0S", () -> SimConfig.builder().timeLimit(java.time.Duration.ZERO)
                .build());
        assertField("SimConfig.timeLimit", "PT-1S", () -> SimConfig.builder()
                .timeLimit(java.time.Duration.ofSeconds(-1)).build());
        assertField("SimConfig.crashWithin", "PT-1S", () -> SimConfig.builder()
                .crashWithin(java.time.Duration.ofSeconds(-1)).build());
        assertField("SimConfig.storageFaults", "null", () -> SimConfig.builder().storageFaults(null).build());
        assertField("SimConfig.network", "null", () -> SimConfig.builder().network(null).build());
        assertField("SimConfig.crashPolicy", "null", () -> SimConfig.builder().crashPolicy(null).build());
        assertField("SimConfig.kernelBehavior", "null", () -> SimConfig.builder().kernelBehavior(null).build());
        assertField("SimConfig.storageRoot", "'data'", () -> SimConfig.builder().storageRoot("data").build());
        // Nested configurations refuse bad values where they are made, by the same exception.
        assertField("StorageFaults.syncRate", "1.5", () -> SimConfig.builder()
                .storageFaults(StorageFaults.builder().syncRate(1.5).build()).build());
        assertField("NetworkConfig.breakRate", "-0.1", () -> SimConfig.builder()
                .network(NetworkConfig.DEFAULT.withBreakRate(-0.1)).build());
        // Huge durations saturate instead of overflowing; every good value builds.
        SimConfig config = SimConfig.builder().timeLimit(java.time.Duration.ofDays(365L * 1000))
                .crashWithin(java.time.Duration.ofSeconds(3)).start(java.time.Instant.EPOCH)
                .network(NetworkConfig.DEFAULT).crashPolicy(CrashPolicy.PREFIX).storageRoot("/x").build();
        assertEquals(Long.MAX_VALUE, config.timeLimitNanos());
        assertEquals(0, config.startNanos());
        assertEquals(config, config.toBuilder().build());
    }

    private static void assertField(String field, String value, Executable build) {
        InvalidConfigException failure = assertThrows(InvalidConfigException.class, build);
        org.junit.jupiter.api.Assertions.assertEquals(field, failure.field(), failure.getMessage());
        assertTrue(failure.getMessage().contains(field), failure.getMessage() + " should name " + field);
        assertTrue(failure.getMessage().contains(value), failure.getMessage() + " should show " + value);
    }

    @Test
    void ringEntriesMustBeAPowerOfTwoWithinTheMaximum() {
        Harness harness = new Harness(1);
        SimKernel kernel = harness.kernel();
        assertNames("entries", "was 0", () -> kernel.openRing(0));
        assertNames("entries", "was -4", () -> kernel.openRing(-4));
        assertNames("entries", "was 3", () -> kernel.openRing(3));
        assertNames("entries", "was 65536", () -> kernel.openRing(65536));
        kernel.openRing(1).close();
        kernel.openRing(kernel.maxEntries()).close();
    }
}
