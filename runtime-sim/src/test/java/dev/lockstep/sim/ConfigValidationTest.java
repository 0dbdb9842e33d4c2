package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
