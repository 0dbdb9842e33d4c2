package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** {@link SimControl#openFds()}: the simulated kernel's fds as a task sees them, for leak checks mid-run. */
class SimControlOpenFdsTest {

    @Test
    void aBlobsFileIsOpenWhileTheBlobIsAndGoneAfterItCloses() {
        List<Integer> opened = SimRunner.seeded(3).start(ctx -> {
            SimControl control = SimRunner.control(ctx);
            List<Integer> before = control.openFds();
            Blob blob = ctx.open("p", "b").await().blob();
            List<Integer> during = new ArrayList<>(control.openFds());
            during.removeAll(before);
            blob.close();
            for (int turn = 0; turn < 1000 && !control.openFds().equals(before); turn++) {
                Thread.yield();
            }
            assertEquals(before, control.openFds(), "the blob's file is closed with it");
            return during;
        });
        assertEquals(1, opened.size(), "opening a blob opened one file: " + opened);
    }

    @Test
    void aCallFromAPlainThreadIsRefused() {
        AtomicReference<SimControl> control = new AtomicReference<>();
        SimRunner.seeded(3).start(ctx -> {
            control.set(SimRunner.control(ctx));
            return null;
        });
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> control.get().openFds());
        assertTrue(refused.getMessage().contains("openFds"), refused.getMessage());
    }
}
