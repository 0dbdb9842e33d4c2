package dev.lockstep.sim.os;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * {@code calloc} and {@code free} from the C library, so the simulated rings hand out the same kind of memory as
 * io_uring's: native, zeroed, at a real address. Addresses differ from run to run; nothing that decides a run
 * (the generator, the audit chain, the order of any walk) may depend on them.
 */
final class NativeMemory {
    private static final MethodHandle CALLOC;
    private static final MethodHandle FREE;

    static {
        Linker linker = Linker.nativeLinker();
        CALLOC = linker.downcallHandle(linker.defaultLookup().find("calloc").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
        FREE = linker.downcallHandle(linker.defaultLookup().find("free").orElseThrow(),
                FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));
    }

    private NativeMemory() {
    }

    /**
     * Zeroed native memory of {@code bytes} bytes, at a non-zero address (also for 0 bytes).
     *
     * @throws KernelException {@code ENOMEM} naming the size if the C library has none
     */
    @SuppressWarnings("restricted") // calloc returns a bare pointer; its size is the one just asked for.
    static MemorySegment calloc(long bytes) {
        MemorySegment memory;
        try {
            // calloc(1, 0) may return NULL; asking for at least one byte keeps NULL meaning "out of memory".
            memory = (MemorySegment) CALLOC.invokeExact(1L, Math.max(1L, bytes));
        } catch (Throwable impossible) {
            throw new IllegalStateException("calloc failed to run", impossible);
        }
        if (memory.address() == 0) {
            throw new KernelException(Errno.ENOMEM, "calloc", bytes + " bytes");
        }
        return memory.reinterpret(bytes);
    }

    /** Returns memory from {@link #calloc} to the C library. */
    static void free(MemorySegment memory) {
        try {
            FREE.invokeExact(memory);
        } catch (Throwable impossible) {
            throw new IllegalStateException("free failed to run", impossible);
        }
    }
}
