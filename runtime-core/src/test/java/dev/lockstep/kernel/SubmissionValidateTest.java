package dev.lockstep.kernel;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * What every ring refuses at {@link Ring#stage} before anything is staged ({@link Submission#validate()}), one
 * rule each, with the bad value named in the message; and what it lets through.
 */
class SubmissionValidateTest {

    private static Submission of(Opcode opcode, MemorySegment buffer, int length, long offset) {
        Submission submission = new Submission();
        submission.opcode = opcode;
        submission.fd = 3;
        submission.buffer = buffer;
        submission.length = length;
        submission.offset = offset;
        return submission;
    }

    private static String refusal(Submission submission) {
        return assertThrows(IllegalArgumentException.class, submission::validate).getMessage();
    }

    /** {@code from\0to\0} in native memory: a rename's two paths as the engine lays them out. */
    private static MemorySegment paths(Arena arena, String... names) {
        byte[] joined = (String.join("\0", names) + "\0").getBytes(StandardCharsets.UTF_8);
        return arena.allocate(joined.length).copyFrom(MemorySegment.ofArray(joined));
    }

    @Test
    void wellFormedSubmissionsPass() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(Statx.BYTES);
            assertDoesNotThrow(() -> of(Opcode.READ, buffer, 8, 0).validate());
            assertDoesNotThrow(() -> of(Opcode.WRITE, buffer, 0, 1L << 40).validate());
            assertDoesNotThrow(() -> of(Opcode.RECV, buffer, Statx.BYTES, -1).validate(), "no offset of its own");
            assertDoesNotThrow(() -> of(Opcode.STATX, buffer, Statx.BYTES, 0).validate());
            assertDoesNotThrow(() -> of(Opcode.FTRUNCATE, MemorySegment.NULL, 0, 4096).validate());
            assertDoesNotThrow(() -> new Submission().validate(), "a NOP uses nothing");
            Submission fsync = of(Opcode.FSYNC, MemorySegment.ofArray(new byte[1]), -5, -5);
            assertDoesNotThrow(fsync::validate, "an opcode without a buffer ignores the buffer's fields");
            assertDoesNotThrow(() -> of(Opcode.OPENAT, paths(arena, "dir"), 3, 0).validate());
            assertDoesNotThrow(() -> of(Opcode.RENAMEAT, paths(arena, "a", "bcd"), 1, 2).validate());
        }
    }

    @Test
    void aReceiveIntoABufferTheRingSelectsHasNoBufferOfItsOwnAndAPositiveLength() {
        Submission selecting = of(Opcode.RECV, MemorySegment.NULL, 64, 0);
        selecting.flags = Submission.SELECT_BUFFER;
        assertDoesNotThrow(selecting::validate);
        try (Arena arena = Arena.ofConfined()) {
            Submission withBuffer = of(Opcode.RECV, arena.allocate(64), 64, 0);
            withBuffer.flags = Submission.SELECT_BUFFER;
            assertTrue(refusal(withBuffer).contains("has no buffer of its own"), refusal(withBuffer));
        }
        Submission empty = of(Opcode.RECV, MemorySegment.NULL, 0, 0);
        empty.flags = Submission.SELECT_BUFFER;
        assertTrue(refusal(empty).contains("positive length, was 0"), refusal(empty));
        Submission notSelecting = of(Opcode.RECV, MemorySegment.NULL, 64, 0);
        assertTrue(refusal(notSelecting).contains("native buffer"), "without the flag a receive brings its buffer");
    }

    @Test
    void aBufferTheKernelCannotUseIsRefusedByName() {
        try (Arena arena = Arena.ofConfined()) {
            String heap = refusal(of(Opcode.READ, MemorySegment.ofArray(new byte[8]), 8, 0));
            assertTrue(heap.contains("native buffer") && heap.contains("READ"), heap);
            String none = refusal(of(Opcode.SEND, MemorySegment.NULL, 0, 0));
            assertTrue(none.contains("native buffer"), none);
            String tooLong = refusal(of(Opcode.WRITE, arena.allocate(8), 9, 0));
            assertTrue(tooLong.contains("length 9") && tooLong.contains("8 bytes"), tooLong);
            String negativeLength = refusal(of(Opcode.RECV, arena.allocate(8), -1, 0));
            assertTrue(negativeLength.contains("length -1"), negativeLength);
        }
    }

    @Test
    void aNegativeOffsetOrNewLengthIsRefusedByName() {
        try (Arena arena = Arena.ofConfined()) {
            String read = refusal(of(Opcode.READ, arena.allocate(8), 4, -1));
            assertTrue(read.contains("was -1"), read);
            String truncate = refusal(of(Opcode.FTRUNCATE, MemorySegment.NULL, 0, -4096));
            assertTrue(truncate.contains("was -4096"), truncate);
        }
    }

    @Test
    void aFallocateNeedsAPositiveRangeFromANonNegativeOffset() {
        Submission allocate = of(Opcode.FALLOCATE, MemorySegment.NULL, 0, 4096);
        allocate.rangeLength = 1L << 33;
        assertDoesNotThrow(allocate::validate, "a range past 2 GiB is fine");
        allocate.rangeLength = 0;
        String empty = refusal(allocate);
        assertTrue(empty.contains("must be positive, was 0"), empty);
        allocate.rangeLength = 1;
        allocate.offset = -2;
        String negative = refusal(allocate);
        assertTrue(negative.contains("was -2"), negative);
    }

    @Test
    void pathsMustEndInTheirNulByte() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment unterminated = arena.allocate(4).fill((byte) 'a');
            String open = refusal(of(Opcode.OPENAT, unterminated, 4, 0));
            assertTrue(open.contains("NUL byte after its 4 bytes"), open);
            String shortOfNul = refusal(of(Opcode.UNLINKAT, paths(arena, "abc"), 2, 0));
            assertTrue(shortOfNul.contains("after its 2 bytes"), shortOfNul);
            String elsewhere = refusal(of(Opcode.RENAMEAT, paths(arena, "a", "bcd"), 1, 3));
            assertTrue(elsewhere.contains("must start at 2"), elsewhere);
            MemorySegment secondUnterminated = arena.allocate(5).fill((byte) 'b');
            secondUnterminated.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 1, (byte) 0);
            String unterminatedSecond = refusal(of(Opcode.RENAMEAT, secondUnterminated, 1, 2));
            assertTrue(unterminatedSecond.contains("end in a NUL byte within the buffer"), unterminatedSecond);
        }
    }

    @Test
    void aStatxNeedsTheWholeStruct() {
        try (Arena arena = Arena.ofConfined()) {
            String statx = refusal(of(Opcode.STATX, arena.allocate(64), 64, 0));
            assertTrue(statx.contains("needs " + Statx.BYTES) && statx.contains("was 64"), statx);
        }
    }

    @Test
    void aMissingOpcodeIsNamed() {
        Submission submission = new Submission();
        submission.opcode = null;
        assertEquals("submission.opcode",
                assertThrows(NullPointerException.class, submission::validate).getMessage());
    }

    @Test
    void theSecondPathIsMeasuredToItsNul() {
        try (Arena arena = Arena.ofConfined()) {
            assertEquals(3, of(Opcode.RENAMEAT, paths(arena, "a", "bcd"), 1, 2).secondPathLength());
            assertEquals(-1, of(Opcode.RENAMEAT, arena.allocate(4).fill((byte) 'x'), 1, 2).secondPathLength());
            assertEquals(-1, of(Opcode.RENAMEAT, paths(arena, "a", "b"), 1, -1).secondPathLength());
        }
    }
}
