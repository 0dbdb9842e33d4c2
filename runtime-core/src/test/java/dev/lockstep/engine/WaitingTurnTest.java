package dev.lockstep.engine;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.kernel.Opcode;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A worker with nothing else to do waits for a request in the same {@code enter} that submits it: a request that
 * completes after its submission (a buffered write the kernel hands to a worker thread, a direct read) costs one
 * {@code enter}, not a submitting one and then a waiting one. The fiber's own wake-up in the turn before must not
 * keep the next turn from waiting.
 */
class WaitingTurnTest {
    private static final int WRITES = 300;

    @Test
    void aRequestCompletedAfterItsSubmissionCostsOneEnter() throws Exception {
        ScriptedKernel kernel = new ScriptedKernel();
        kernel.autoCompleteFiles();
        AtomicBoolean done = new AtomicBoolean();
        // Completes each write some time after the worker submitted it, from another thread, as a device does.
        Thread device = new Thread(() -> {
            while (!done.get()) {
                ScriptedKernel.Pending write = kernel.pending().stream().filter(p -> p.opcode() == Opcode.WRITE)
                        .findFirst().orElse(null);
                if (write == null) {
                    Thread.onSpinWait();
                    continue;
                }
                kernel.complete(write, kernel.files.execute(write));
            }
        }, "device");
        int[] enters = new int[1];
        new ThreadedRunner(kernel, 1, 8, "/store", "waiting").start(ctx -> {
            try (Blob blob = ctx.open("p", "b").await().blob()) {
                kernel.autoComplete(p -> p.opcode() == Opcode.WRITE ? Integer.MIN_VALUE : kernel.files.execute(p));
                device.start();
                blob.writeAt(0, new byte[] {0}).await(); // the first turn after the rule changed
                int before = kernel.enters();
                for (int i = 0; i < WRITES; i++) {
                    blob.writeAt(i, new byte[] {1}).await();
                }
                enters[0] = kernel.enters() - before;
            } finally {
                done.set(true);
            }
            return null;
        });
        device.join();
        // One enter per write that submits and waits; a stale "runnable" made it two. A wait the scripted ring
        // caps after 50 ms of a stalled device thread adds one now and then, far from WRITES more.
        assertTrue(enters[0] < WRITES * 3 / 2, enters[0] + " enters for " + WRITES + " writes completed later");
    }
}
