package dev.lockstep.sim.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.kernel.SystemCalls;
import dev.lockstep.sim.StorageFaults;
import org.junit.jupiter.api.Test;

/**
 * Linux reserves the descriptor before it looks the path up (do_sys_openat2: get_unused_fd_flags, then
 * do_filp_open), so an open(O_CREAT) that fails with EMFILE creates nothing, and a retry with O_EXCL once a
 * descriptor is free succeeds; the simulator refuses in the same order (it used to create the file first).
 */
class OpenFileLimitSideEffectTest {

    @Test
    void anOpenRefusedWithEmfileCreatesNoFile() {
        Harness harness = new Harness(1);
        SimKernel kernel = SimKernel.builder(harness.generator, harness.auditor, harness.clock)
                .network(harness.network)
                .fileSystem(new SimFileSystem(harness.generator, harness.auditor, StorageFaults.NONE))
                .openFileLimit(8)
                .build();
        SimSystemCalls system = kernel.system();
        int[] held = new int[8];
        int opened = 0;
        for (; opened < 8; opened++) {
            try {
                held[opened] = system.open("/f" + opened, SystemCalls.O_RDWR | SystemCalls.O_CREAT);
            } catch (KernelException full) {
                break;
            }
        }
        int flags = SystemCalls.O_RDWR | SystemCalls.O_CREAT | SystemCalls.O_EXCL;
        KernelException refused = assertThrows(KernelException.class, () -> system.open("/new", flags));
        assertEquals(Errno.EMFILE, refused.errno());
        assertFalse(kernel.fileSystem().exists("/new"), "an open refused with EMFILE created its file");
        system.close(held[0]);
        system.close(system.open("/new", flags)); // succeeds, as on Linux (the file was not made by the refusal)
    }
}
