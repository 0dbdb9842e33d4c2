package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.kernel.Submission;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@ExtendWith(FdLeakCheck.class)
class UringKernelTest {
    private static final UringKernel KERNEL = new UringKernel();

    @ParameterizedTest
    @ValueSource(ints = {0, 3, 65536, -1, 32769, 6})
    void ringSizesThatAreNotAPowerOfTwoUpToTheMaximumAreRejectedNamingTheValue(int entries) {
        IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class,
                () -> KERNEL.openRing(entries));
        assertTrue(thrown.getMessage().endsWith("was " + entries), thrown.getMessage());
    }

    @Test
    void everyPowerOfTwoUpToTheMaximumOpens() {
        assertEquals(32768, KERNEL.maxEntries());
        for (int entries = 1; entries <= KERNEL.maxEntries(); entries *= 2) {
            try (UringRing ring = KERNEL.openRing(entries)) {
                assertEquals(entries, ring.entries());
            }
        }
    }

    @Test
    void openingAndClosing200RingsLeavesNoFdOrMappingBehind() {
        UringRing warmUp = KERNEL.openRing(8);
        assertFalse(OpenDescriptors.ringMappings().isEmpty(), "an open ring shows its mappings");
        warmUp.close();
        int fdsBefore = OpenDescriptors.fdCount();
        Completions completions = new Completions();
        Submission nop = new Submission();
        for (int i = 0; i < 200; i++) {
            try (UringRing ring = KERNEL.openRing(8)) {
                nop.userData = i;
                assertTrue(ring.stage(nop));
                ring.wake();
                completions.awaitAll(ring, i);
            }
        }
        assertEquals(200, completions.all().size());
        assertEquals(fdsBefore, OpenDescriptors.fdCount(), () -> "fds now: " + OpenDescriptors.fds());
        assertEquals(List.of(), OpenDescriptors.ringMappings());
    }

    @Test
    void aRingWhoseOpenedHookThrowsIsClosedBeforeTheFailureIsRethrown() {
        KERNEL.openRing(8).close(); // warm up
        int fdsBefore = OpenDescriptors.fdCount();
        IllegalStateException hook = new IllegalStateException("hook refused the ring");
        UringKernel refusing = new UringKernel(UringRing.RECEIVE_BUFFERS, ring -> {
            throw hook;
        });
        assertSame(hook, assertThrows(IllegalStateException.class, () -> refusing.openRing(8)));
        assertEquals(fdsBefore, OpenDescriptors.fdCount(), () -> "fds now: " + OpenDescriptors.fds());
        assertEquals(List.of(), OpenDescriptors.ringMappings());
    }

    @Test
    void aVirtualThreadCannotOwnARing() throws InterruptedException {
        Throwable[] failure = new Throwable[1];
        Thread.ofVirtual().start(() -> {
            try {
                KERNEL.openRing(1).close();
            } catch (Throwable thrown) {
                failure[0] = thrown;
            }
        }).join();
        assertTrue(failure[0] instanceof IllegalStateException, () -> "got " + failure[0]);
    }
}
