package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Task;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * When two runs of a seed end with different digests, {@link DeterminismCheck} says where they part: the first
 * event that differs on each side, with its kind, worker, fiber, time and the user's line, and the events before
 * it that both runs share.
 */
class DivergenceLocalizationTest {

    @Test
    void theFirstEventWhereTwoRunsPartIsNamedOnBothSides() {
        AtomicInteger runs = new AtomicInteger();
        Task<Void> task = ctx -> {
            ctx.sleep(Duration.ofMillis(1));
            // Leaks state between runs: every other run takes the other branch.
            if (runs.incrementAndGet() % 2 == 1) {
                ctx.sleep(Duration.ofMillis(2)); // odd runs
            } else {
                ctx.sleep(Duration.ofMillis(3)); // even runs
            }
            ctx.sleep(Duration.ofMillis(1));
            return null;
        };
        DeterminismCheck.DivergenceException divergence = assertThrows(DeterminismCheck.DivergenceException.class,
                () -> DeterminismCheck.check(SimConfig.builder().seed(5).build(), task));
        String report = divergence.getMessage();
        assertEquals(4, runs.get(), "two runs to compare, two traced runs to locate");
        assertTrue(report.contains("two runs of seed 5 ended with different audit digests"), report);
        assertTrue(report.contains("the runs part at event #"), report);
        String first = line(report, "  first run:  ");
        String second = line(report, "  second run: ");
        int oddLine = lineOf("odd runs");
        int evenLine = lineOf("even runs");
        assertTrue(first.contains("DivergenceLocalizationTest.java:" + oddLine), "first run's side names line "
                + oddLine + ": " + first);
        assertTrue(second.contains("DivergenceLocalizationTest.java:" + evenLine), "second run's side names line "
                + evenLine + ": " + second);
        for (String side : new String[] {first, second}) {
            assertTrue(side.contains("worker 0") && side.contains("fiber 'root'") && side.contains("at 2026-01-01T"),
                    "kind, worker, fiber and time: " + side);
        }
        assertTrue(report.contains("the last events before it, the same in both runs:\n    #"), report);
        assertTrue(report.contains("replay: SimRunner.of("), report);
    }

    @Test
    void aDeterministicTaskPassesWithItsDigest() {
        Task<Void> task = ctx -> {
            ctx.sleep(Duration.ofMillis(1));
            return null;
        };
        SimRunner alone = SimRunner.of(SimConfig.builder().seed(6).build());
        alone.start(task);
        assertEquals(alone.digest(), DeterminismCheck.check(SimConfig.builder().seed(6).build(), task));
    }

    private static String line(String report, String prefix) {
        for (String line : report.split("\n")) {
            if (line.startsWith(prefix)) {
                return line;
            }
        }
        throw new AssertionError("no line starting with '" + prefix + "' in:\n" + report);
    }

    /** The line number of this file's line that ends with the comment {@code marker}. */
    private static int lineOf(String marker) {
        try {
            java.util.List<String> lines = java.nio.file.Files.readAllLines(
                    java.nio.file.Path.of("src/test/java/dev/lockstep/sim/DivergenceLocalizationTest.java"));
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).endsWith("// " + marker)) {
                    return i + 1;
                }
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        throw new AssertionError("no line marked " + marker);
    }
}
