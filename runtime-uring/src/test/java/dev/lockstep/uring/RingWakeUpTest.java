package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import java.lang.foreign.Arena;
import org.junit.jupiter.api.Test;

/**
 * A failed completion of the wake-up poll: a multishot poll refused with {@code EINVAL} (a kernel without
 * multishot polls) turns later polls one-shot; any other failure is thrown, naming the errno, instead of being
 * taken for that refusal.
 */
class RingWakeUpTest {
    /** No CQE flags: the poll ended. */
    private static final int NO_FLAGS = 0;

    @Test
    void aMultishotPollRefusedWithEinvalIsReArmedOneShot() {
        try (Arena arena = Arena.ofConfined()) {
            RingWakeUp wakeUp = newWakeUp(arena);
            wakeUp.onPollCompletion(-Libc.EINVAL, NO_FLAGS);
            assertTrue(wakeUp.woken(), "the enter is not left waiting");
            assertTrue(wakeUp.needsArming(), "the refused poll is armed again");
            // The one-shot poll has nothing left to fall back on: the same refusal now fails.
            KernelException failure = assertThrows(KernelException.class,
                    () -> wakeUp.onPollCompletion(-Libc.EINVAL, NO_FLAGS));
            assertEquals(Libc.EINVAL, failure.errno());
        }
    }

    @Test
    void anyOtherFailureOfAMultishotPollIsThrownNamingTheErrno() {
        try (Arena arena = Arena.ofConfined()) {
            RingWakeUp wakeUp = newWakeUp(arena);
            KernelException failure = assertThrows(KernelException.class,
                    () -> wakeUp.onPollCompletion(-Errno.EBADF, NO_FLAGS));
            assertEquals(Errno.EBADF, failure.errno());
            assertTrue(failure.getMessage().contains(Errno.describe(Errno.EBADF))
                    && failure.getMessage().contains("ring 0"), failure.getMessage());
        }
    }

    /** A wake-up whose eventfd these tests never reach: a failed completion neither drains nor writes it. */
    private static RingWakeUp newWakeUp(Arena arena) {
        return new RingWakeUp(-1, arena, Libc.newCallState(arena), "ring 0");
    }
}
