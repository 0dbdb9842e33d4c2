package dev.lockstep.uring;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.kernel.Errno;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.lang.invoke.WrongMethodTypeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The one call mechanism of {@link Libc}: results and {@code -errno} from every kind of handle. */
@ExtendWith(FdLeakCheck.class)
class LibcTest {
    /** A call this class does not bind, joined in one line: what adding a system call takes. */
    private static final MethodHandle DUP = Libc.errnoReturning("dup", FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    @Test
    void aNewCallReturnsItsResultOnSuccessAndMinusErrnoOnFailure() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Libc.newCallState(arena);
            long copy = Libc.invoke(state, s -> (int) DUP.invokeExact(s, 0));
            assertTrue(copy >= 0, () -> "dup(0) returned " + copy);
            assertEquals(0, Libc.invoke(state, s -> (int) Libc.CLOSE.invokeExact(s, (int) copy)));
            assertEquals(-Errno.EBADF, Libc.invoke(state, s -> (int) DUP.invokeExact(s, -1)));
        }
    }

    @Test
    void intLongAndRawSystemCallResultsCarryErrno() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Libc.newCallState(arena);
            MemorySegment buffer = arena.allocate(8);
            assertEquals(-Errno.EBADF, Libc.invoke(state, s -> (int) Libc.FSYNC.invokeExact(s, -1)));
            assertEquals(-Errno.EBADF, Libc.read(state, -1, buffer, buffer.byteSize()));
            assertEquals(-Errno.ENOSYS, Libc.syscall(state, 100_000, 0, 0, 0, 0, 0, 0));
            assertEquals(-1, Libc.syscallUncaptured(100_000, 0, 0, 0, 0, 0, 0), "the uncaptured call: C's -1");
            // A result of -1 that is not a failure cannot come from these calls; a successful one passes through.
            MemorySegment path = arena.allocateFrom("/dev/null");
            long fd = Libc.invoke(state, s -> (int) Libc.OPEN.invokeExact(s, path, Libc.O_RDONLY | Libc.O_CLOEXEC,
                    0));
            assertTrue(fd >= 0, () -> "open(/dev/null) returned " + fd);
            assertEquals(0, Libc.read(state, (int) fd, buffer, buffer.byteSize()), "end of /dev/null");
            assertEquals(0, Libc.invoke(state, s -> (int) Libc.CLOSE.invokeExact(s, (int) fd)));
        }
    }

    @Test
    void handlesTakeTheCallStateFirstAndExactTypes() {
        assertEquals(MethodType.methodType(int.class, MemorySegment.class, int.class), Libc.CLOSE.type());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Libc.newCallState(arena);
            // invokeExact with a widened argument is a different call site type: refused, never converted.
            assertThrows(WrongMethodTypeException.class,
                    () -> Libc.invoke(state, s -> (int) Libc.CLOSE.invokeExact(s, (long) -1)));
        }
    }

    @Test
    void onlyCallsThatReportByMinusOneCanBeBoundSo() {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> Libc.errnoReturning("malloc", FunctionDescriptor.of(ADDRESS, JAVA_INT)));
        assertTrue(refused.getMessage().contains("malloc"), refused.getMessage());
    }
}
