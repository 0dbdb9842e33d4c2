package dev.lockstep.kernel;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * The arguments every ring that answers {@link Ring#readWithoutWaiting} refuses, with one message on every runtime
 * ({@link Ring#checkReadWithoutWaiting}): a buffer that is not native memory, a range that does not fit it, a
 * negative offset — each named in the message.
 */
class ReadWithoutWaitingArgumentsTest {

    private static String refusal(MemorySegment buffer, long at, int length, long offset) {
        return assertThrows(IllegalArgumentException.class,
                () -> Ring.checkReadWithoutWaiting(buffer, at, length, offset)).getMessage();
    }

    @Test
    void badArgumentsAreRefusedByName() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(16);
            assertDoesNotThrow(() -> Ring.checkReadWithoutWaiting(buffer, 0, 16, 0));
            assertDoesNotThrow(() -> Ring.checkReadWithoutWaiting(buffer, 15, 1, 1L << 40));
            String heap = refusal(MemorySegment.ofArray(new byte[16]), 0, 4, 0);
            assertTrue(heap.contains("4 bytes at 0"), heap);
            String past = refusal(buffer, 12, 5, 0);
            assertTrue(past.contains("5 bytes at 12"), past);
            String empty = refusal(buffer, 0, 0, 0);
            assertTrue(empty.contains("0 bytes at 0"), empty);
            String before = refusal(buffer, -1, 4, 0);
            assertTrue(before.contains("4 bytes at -1"), before);
            String offset = refusal(buffer, 0, 4, -7);
            assertTrue(offset.contains("-7"), offset);
        }
    }
}
