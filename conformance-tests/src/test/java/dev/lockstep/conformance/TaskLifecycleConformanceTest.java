package dev.lockstep.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.ExitedException;
import dev.lockstep.sim.SimulationFailure;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * What a task's end leaves behind, the same on every runtime: a task's own exception is what {@code start}
 * reports even when the task left resources open (the simulator's leak check attaches its finding to that
 * exception as suppressed, and runtime-uring closes what is left).
 */
class TaskLifecycleConformanceTest {

    /** The leak reports attached to {@code thrown}: none on runtime-uring, which has no leak check. */
    private static List<SimulationFailure> leakReports(Throwable thrown) {
        return Arrays.stream(thrown.getSuppressed()).filter(SimulationFailure.class::isInstance)
                .map(SimulationFailure.class::cast).toList();
    }

    private static void assertLeakNamed(Runtimes rt, Throwable thrown, String blobName) {
        List<SimulationFailure> leaks = leakReports(thrown);
        if (!rt.isSim()) {
            assertEquals(List.of(), leaks);
            return;
        }
        assertEquals(1, leaks.size(), () -> "suppressed: " + Arrays.toString(thrown.getSuppressed()));
        String message = leaks.getFirst().getMessage();
        assertTrue(message.contains("resource leak") && message.contains("blob 'p/" + blobName + "'")
                && message.contains("TaskLifecycleConformanceTest.java"), message);
    }

    /** A root that throws while holding an open blob: its own exception leaves start, unchanged. */
    @Conformance
    void aRootsExceptionWinsOverTheBlobItLeftOpen(Runtimes rt) {
        IllegalStateException mine = new IllegalStateException("the task's own failure");
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> rt.runner().start(ctx -> {
            Blob held = ctx.open("p", "held-at-the-throw").await().blob();
            held.writeAt(0, "x".getBytes(StandardCharsets.UTF_8)).await();
            throw mine;
        }));
        assertSame(mine, thrown);
        assertLeakNamed(rt, thrown, "held-at-the-throw");
    }

    /** The same with a checked exception: start wraps it in ExitedException, whose cause is the task's. */
    @Conformance
    void aRootsCheckedExceptionWinsOverTheBlobItLeftOpen(Runtimes rt) {
        IOException mine = new IOException("the task's own checked failure");
        ExitedException thrown = assertThrows(ExitedException.class, () -> rt.runner().start(ctx -> {
            ctx.open("p", "held-at-the-checked-throw").await();
            throw mine;
        }));
        assertSame(mine, thrown.getCause());
        assertLeakNamed(rt, thrown, "held-at-the-checked-throw");
    }
}
