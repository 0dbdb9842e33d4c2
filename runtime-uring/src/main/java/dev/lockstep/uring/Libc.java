package dev.lockstep.uring;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.lockstep.kernel.KernelException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.util.Locale;

/**
 * The libc functions and raw system calls runtime-uring needs, as FFM downcalls, and the one mechanism by which
 * they are called.
 *
 * <h2>Adding a call</h2>
 * One line binds it: {@code static final MethodHandle FOO = errnoReturning("foo", FunctionDescriptor.of(...));}.
 * The handle takes a call-state segment ({@link #newCallState}) first, in which the linker captures
 * {@code errno} ({@link Linker.Option#captureCallState}), and returns the C result when it succeeded or
 * {@code -errno} when C returned {@code -1}, the way the kernel reports errors: that conversion is part of the
 * handle, not of each caller. A caller invokes it with {@code invokeExact} and exact types inside a
 * {@link Call}, e.g. {@code Libc.invoke(state, s -> (int) Libc.FSYNC.invokeExact(s, fd))} (or
 * {@code LinuxSystemCalls}' own wrapper of {@link Call}, which adds the {@code EINTR} retry and the
 * exception); {@link #invoke} is the one place that handles what a downcall may throw. {@link #check} turns a
 * negative result into a {@link KernelException}. Pointers come back as zero-length segments.
 *
 * <h2>The hot path</h2>
 * The calls made per operation or per worker loop turn ({@link #syscall} for {@code io_uring_enter},
 * {@link #read} for eventfd drains, {@link #writeIgnoringErrno} for wakes, {@link #calloc} and {@link #free}
 * for request buffers) are named methods instead, so that no lambda, capture or interface call sits between
 * the caller and {@code invokeExact} on a {@code static final} handle, which the JIT inlines to the native
 * call itself; their results still come from the same {@link #errnoReturning} handles. The worker's
 * {@code io_uring_enter} and the page-cache read at a {@code Blob.readInto} ({@code preadv2}) ask first through
 * {@link #syscallUncaptured}, which skips the errno capture and is repeated with it only after a failure; the
 * batch submission, whose result nobody reads, never captures. Besides its cost in time, a captured downcall
 * makes a slice of the call-state segment on the heap ({@code SharedUtils.checkCaptureSegment}) that only C2's
 * escape analysis removes, and not in every compilation: a call made per operation must not capture on its
 * common path, or an operation allocates in some JVMs and not in others.
 *
 * <h2>Threads</h2>
 * Thread-safe: the handles are immutable; each caller brings its own call-state segment.
 *
 * <h2>Blocking</h2>
 * No handle is {@link Linker.Option#critical critical}: several of these calls block ({@code io_uring_enter}
 * waiting, {@code fsync}), and a critical downcall that blocks stalls every safepoint of the JVM.
 *
 * <p>Only Linux on x86-64 and aarch64 is supported ({@link #requireSupportedPlatform}); the few constants
 * that differ between those two are chosen here.
 */
final class Libc {
    static final int EINTR = 4;
    static final int EAGAIN = 11;
    static final int EBUSY = 16;
    static final int EINVAL = 22;
    static final int ETIME = 62;

    static final long SYS_IO_URING_SETUP = 425;
    static final long SYS_IO_URING_ENTER = 426;
    static final long SYS_IO_URING_REGISTER = 427;

    static final int PROT_READ_WRITE = 0x1 | 0x2;
    static final int MAP_SHARED_POPULATE = 0x01 | 0x8000;

    static final int O_RDONLY = 0;
    static final int O_CLOEXEC = 02000000;
    static final int AT_FDCWD = -100;
    static final int AT_EMPTY_PATH = 0x1000;
    static final int STATX_TYPE = 0x1;
    static final int STATX_SIZE = 0x200;
    static final int STATX_BUFFER_SIZE = 256;
    static final long STATX_MODE_OFFSET = 28;
    static final long STATX_SIZE_OFFSET = 40;
    static final int S_IFMT = 0170000;
    static final int S_IFDIR = 0040000;

    static final int LOCK_EX = 2;
    static final int LOCK_NB = 4;

    static final int AF_INET = 2;
    static final int AF_INET6 = 10;
    static final int SOCK_STREAM = 1;
    static final int SOCK_NONBLOCK = 04000;
    static final int SOCK_CLOEXEC = 02000000;
    static final int SOL_SOCKET = 1;
    static final int SO_REUSEADDR = 2;
    static final int IPPROTO_TCP = 6;
    static final int TCP_NODELAY = 1;
    static final int SO_SNDBUF = 7;
    static final int SO_RCVBUF = 8;
    static final int SO_KEEPALIVE = 9;
    static final int SHUT_WR = 1;
    static final int MSG_NOSIGNAL = 0x4000;

    static final int EFD_NONBLOCK = 04000;
    static final int EFD_CLOEXEC = 02000000;

    private static final String ARCH = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    private static final boolean X86_64 = ARCH.equals("amd64") || ARCH.equals("x86_64");
    /** The aarch64 ABI (the generic system call table); x86-64 otherwise. */
    static final boolean AARCH64 = ARCH.equals("aarch64");
    private static final boolean LINUX = System.getProperty("os.name", "").equals("Linux");

    /** {@code preadv2} is 327 in the x86-64 table and 286 in the generic one aarch64 uses. */
    static final long SYS_PREADV2 = X86_64 ? 327 : 286;
    /** {@code preadv2}'s flag: return {@code EAGAIN} rather than wait for the device or a page lock. */
    static final long RWF_NOWAIT = 0x08;
    /** {@code getdents64} is 217 in the x86-64 table and 61 in the generic one aarch64 uses. */
    static final long SYS_GETDENTS64 = X86_64 ? 217 : 61;
    /** {@code pwrite64} is 18 in the x86-64 table and 68 in the generic one aarch64 uses. */
    static final long SYS_PWRITE64 = AARCH64 ? 68 : 18;
    /** {@code O_DSYNC} and {@code __O_SYNC} (what {@code O_SYNC} adds to it), the same in both ABIs. */
    static final int O_DSYNC = 010000;
    static final int O_SYNC_BIT = 04000000;
    /** The two open flags whose bits differ between the x86-64 and aarch64 ABIs. */
    static final int NATIVE_O_DIRECTORY = AARCH64 ? 040000 : 0200000;
    static final int NATIVE_O_DIRECT = AARCH64 ? 0200000 : 040000;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO =
            CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    private static final MethodHandle INT_RESULT;
    private static final MethodHandle LONG_RESULT;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            INT_RESULT = lookup.findStatic(Libc.class, "intResult",
                    MethodType.methodType(int.class, int.class, MemorySegment.class));
            LONG_RESULT = lookup.findStatic(Libc.class, "longResult",
                    MethodType.methodType(long.class, long.class, MemorySegment.class));
        } catch (ReflectiveOperationException impossible) {
            throw new ExceptionInInitializerError(impossible);
        }
    }

    // glibc's syscall() always reads six variadic longs, so every system call passes six, zeros unused.
    private static final MethodHandle SYSCALL = errnoReturning("syscall",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
                    JAVA_LONG),
            Linker.Option.firstVariadicArg(1));
    // The same call without the errno capture, for the worker's io_uring_enter: see syscallUncaptured.
    private static final MethodHandle SYSCALL_UNCAPTURED = downcall("syscall",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
                    JAVA_LONG),
            Linker.Option.firstVariadicArg(1));
    // The same call as a critical function (no thread-state transition): see syscallCritical.
    private static final MethodHandle SYSCALL_CRITICAL = downcall("syscall",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
                    JAVA_LONG),
            Linker.Option.firstVariadicArg(1), Linker.Option.critical(false));
    static final MethodHandle OPEN = errnoReturning("open",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT),
            Linker.Option.firstVariadicArg(2));
    static final MethodHandle CLOSE = errnoReturning("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    static final MethodHandle FSYNC = errnoReturning("fsync", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    static final MethodHandle FDATASYNC = errnoReturning("fdatasync", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    static final MethodHandle SYNCFS = errnoReturning("syncfs", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    static final MethodHandle FTRUNCATE = errnoReturning("ftruncate",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG));
    static final MethodHandle FALLOCATE = errnoReturning("fallocate",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG));
    static final MethodHandle STATX = errnoReturning("statx",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS));
    static final MethodHandle UNLINK = errnoReturning("unlink", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    static final MethodHandle MKDIR = errnoReturning("mkdir", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    static final MethodHandle RMDIR = errnoReturning("rmdir", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    static final MethodHandle RENAME = errnoReturning("rename", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle FLOCK = errnoReturning("flock", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    static final MethodHandle SOCKET = errnoReturning("socket",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
    static final MethodHandle BIND = errnoReturning("bind",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    static final MethodHandle LISTEN = errnoReturning("listen", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    static final MethodHandle SETSOCKOPT = errnoReturning("setsockopt",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    static final MethodHandle GETSOCKNAME = errnoReturning("getsockname",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle GETPEERNAME = errnoReturning("getpeername",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle SHUTDOWN = errnoReturning("shutdown",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    static final MethodHandle EVENTFD = errnoReturning("eventfd",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle READ = errnoReturning("read",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));

    // The calls below report failure otherwise than by -1 and errno, so they are bound plainly.
    private static final MethodHandle MMAP = downcall("mmap",
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG),
            CAPTURE_ERRNO);
    private static final MethodHandle MUNMAP = downcall("munmap", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    // Wakes come from any thread and have no failure worth reporting, so this one captures nothing.
    private static final MethodHandle WRITE_IGNORING_ERRNO = downcall("write",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle CALLOC = downcall("calloc", FunctionDescriptor.of(ADDRESS, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle FREE = downcall("free", FunctionDescriptor.ofVoid(ADDRESS));

    private Libc() {
    }

    // Restricted by design: binding libc is this class's whole job; the JVM runs with native access enabled.
    @SuppressWarnings("restricted")
    private static MethodHandle downcall(String name, FunctionDescriptor descriptor, Linker.Option... options) {
        MemorySegment symbol = LIBC.find(name)
                .orElseThrow(() -> new UnsatisfiedLinkError("libc has no " + name));
        return LINKER.downcallHandle(symbol, descriptor, options);
    }

    /**
     * Binds a libc function that returns {@code -1} and sets {@code errno} on failure (an {@code int} or
     * {@code long} result) as a handle of type {@code (MemorySegment callState, arguments...)} returning the
     * result or {@code -errno}.
     *
     * <p>The handle is the downcall with {@code errno} captured, its result filtered by {@link #intResult} or
     * {@link #longResult} with the same call-state segment ({@code collectArguments} then
     * {@code permuteArguments} to pass that one segment twice): plain method-handle combinators, which the JIT
     * inlines through when the handle is a constant, so the caller pays for the check and nothing else.
     *
     * @param name the libc symbol
     * @param descriptor its C signature, without the call-state segment
     * @param options linker options besides the errno capture, e.g. {@link Linker.Option#firstVariadicArg}
     * @return the handle
     */
    static MethodHandle errnoReturning(String name, FunctionDescriptor descriptor, Linker.Option... options) {
        Linker.Option[] withCapture = java.util.Arrays.copyOf(options, options.length + 1);
        withCapture[options.length] = CAPTURE_ERRNO;
        MethodHandle raw = downcall(name, descriptor, withCapture);
        Class<?> result = raw.type().returnType();
        MethodHandle filter = result == int.class ? INT_RESULT
                : result == long.class ? LONG_RESULT
                : null;
        if (filter == null) {
            throw new IllegalArgumentException(name + " returns " + result + ", not int or long");
        }
        // (state, args...) -> R  becomes  (state, args..., state) -> R  becomes  (state, args...) -> R.
        MethodHandle filtered = MethodHandles.collectArguments(filter, 0, raw);
        int parameters = raw.type().parameterCount();
        int[] reorder = new int[parameters + 1];
        for (int index = 0; index < parameters; index++) {
            reorder[index] = index;
        }
        reorder[parameters] = 0;
        return MethodHandles.permuteArguments(filtered, raw.type(), reorder);
    }

    /**
     * One downcall through a handle of this class, made by {@link #invoke}: {@code invokeExact} with exact
     * types, returning the handle's result ({@code -errno} on failure).
     */
    @FunctionalInterface
    interface Call {
        /**
         * @param callState where the linker captures errno
         * @return the result, or {@code -errno}
         * @throws Throwable only because {@code invokeExact} is declared so; {@link #invoke} rethrows it unchecked
         */
        long make(MemorySegment callState) throws Throwable;
    }

    /**
     * Makes one call.
     *
     * @param callState the caller's call-state segment
     * @param call the call
     * @return its result, or {@code -errno}
     */
    static long invoke(MemorySegment callState, Call call) {
        try {
            return call.make(callState);
        } catch (Throwable thrown) {
            throw propagate(thrown);
        }
    }

    /**
     * Fails unless this JVM runs on a platform whose constants this class knows.
     *
     * @throws UnsupportedOperationException naming the platform otherwise
     */
    static void requireSupportedPlatform() {
        if (!LINUX || !(X86_64 || AARCH64)) {
            throw new UnsupportedOperationException("runtime-uring needs Linux on x86-64 or aarch64, this is "
                    + System.getProperty("os.name") + " on " + ARCH);
        }
    }

    /**
     * A segment the linker captures {@code errno} into, from {@code arena}.
     *
     * @param arena where to allocate it
     * @return the segment
     */
    static MemorySegment newCallState(java.lang.foreign.SegmentAllocator arena) {
        return arena.allocate(CALL_STATE);
    }

    /**
     * Throws for a failed call.
     *
     * @param result a result of this class: {@code -errno} on failure
     * @param call the call's name
     * @param subject what it was called on
     * @return {@code result} when it is not negative
     * @throws KernelException naming call, subject and errno when {@code result} is negative
     */
    static long check(long result, String call, String subject) {
        if (result < 0) {
            throw new KernelException((int) -result, call, subject);
        }
        return result;
    }

    private static int errno(MemorySegment callState) {
        return (int) ERRNO.get(callState, 0L);
    }

    // Reached through INT_RESULT and LONG_RESULT.
    private static int intResult(int result, MemorySegment callState) {
        return result == -1 ? -errno(callState) : result;
    }

    private static long longResult(long result, MemorySegment callState) {
        return result == -1 ? -errno(callState) : result;
    }

    /**
     * Rethrows what a downcall handle threw; a checked throwable is impossible but must be typed.
     *
     * @param thrown what {@code invokeExact} threw
     * @return never returns normally for unchecked throwables; wraps a checked one
     */
    static RuntimeException propagate(Throwable thrown) {
        if (thrown instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (thrown instanceof Error error) {
            throw error;
        }
        return new IllegalStateException("downcall failed", thrown);
    }

    /**
     * {@code syscall(number, a1..a6)}: the raw system call, per loop turn for {@code io_uring_enter}.
     *
     * @return the result, or {@code -errno}
     */
    static long syscall(MemorySegment callState, long number, long a1, long a2, long a3, long a4, long a5,
                        long a6) {
        try {
            return (long) SYSCALL.invokeExact(callState, number, a1, a2, a3, a4, a5, a6);
        } catch (Throwable thrown) {
            throw propagate(thrown);
        }
    }

    /**
     * {@code syscall(number, a1..a6)} without capturing {@code errno}: the result as C returns it, {@code -1} on
     * any failure. Capturing {@code errno} is a call into the JVM after every downcall (about 3 % of a NOP round
     * trip's samples under perf) and a heap slice of the call-state segment that only escape analysis removes,
     * so the calls made per worker turn or per operation ask without it and repeat themselves with
     * {@link #syscall} only when they failed: a caller may do that only for a call that is safe to make twice and
     * still answers the same question, as an {@code io_uring_enter} that consumed no entry is (see
     * {@code RingEnter.enterOnce}), a positioned {@code preadv2} that read nothing is ({@code PageCacheRead}) and
     * a positioned {@code pwrite} that failed, so wrote nothing, is ({@code InlineWrite}), or for a call whose
     * failure it ignores.
     *
     * @return the result, or {@code -1}
     */
    static long syscallUncaptured(long number, long a1, long a2, long a3, long a4, long a5, long a6) {
        try {
            return (long) SYSCALL_UNCAPTURED.invokeExact(number, a1, a2, a3, a4, a5, a6);
        } catch (Throwable thrown) {
            throw propagate(thrown);
        }
    }

    /**
     * {@link #syscallUncaptured} as a critical downcall ({@link Linker.Option#critical}): the thread stays in the
     * JVM's Java state for the call, so the downcall makes none of the transitions to native and back (its stub was
     * about 4 % of a warm page-cache read's samples under perf), and no safepoint can begin until the call returns.
     * Only for a call that cannot wait, returns within microseconds whatever it is asked and never calls back into
     * the JVM: a {@code preadv2(RWF_NOWAIT)} of at most {@code PageCacheRead.CRITICAL_MAX_BYTES} into native
     * memory, which copies what the page cache holds or answers {@code EAGAIN} at once.
     *
     * @return the result, or {@code -1}
     */
    static long syscallCritical(long number, long a1, long a2, long a3, long a4, long a5, long a6) {
        try {
            return (long) SYSCALL_CRITICAL.invokeExact(number, a1, a2, a3, a4, a5, a6);
        } catch (Throwable thrown) {
            throw propagate(thrown);
        }
    }

    /**
     * {@code read(2)}, per wake for eventfd drains.
     *
     * @return the bytes read, or {@code -errno}
     */
    static long read(MemorySegment callState, int fd, MemorySegment buffer, long length) {
        try {
            return (long) READ.invokeExact(callState, fd, buffer, length);
        } catch (Throwable thrown) {
            throw propagate(thrown);
        }
    }

    /**
     * {@code write(2)} whose failure is not reported: the wake of a ring's eventfd, from any thread.
     *
     * @return the bytes written, or -1
     */
    static long writeIgnoringErrno(int fd, MemorySegment buffer, long length) {
        try {
            return (long) WRITE_IGNORING_ERRNO.invokeExact(fd, buffer, length);
        } catch (Throwable thrown) {
            throw propagate(thrown);
        }
    }

    /**
     * {@code calloc(count, size)}.
     *
     * @return zeroed memory as a zero-length segment, {@link MemorySegment#NULL} when out of memory
     */
    static MemorySegment calloc(long count, long size) {
        try {
            return (MemorySegment) CALLOC.invokeExact(count, size);
        } catch (Throwable thrown) {
            throw propagate(thrown);
        }
    }

    static void free(MemorySegment pointer) {
        try {
            FREE.invokeExact(pointer);
        } catch (Throwable thrown) {
            throw propagate(thrown);
        }
    }

    /**
     * {@code mmap(NULL, length, ...)}, which reports failure as {@code MAP_FAILED} rather than {@code -1}.
     *
     * @return the mapping as a zero-length segment
     * @throws KernelException naming {@code subject} if the kernel refuses
     */
    static MemorySegment mmap(MemorySegment callState, long length, int protection, int flags, int fd, long offset,
                              String subject) {
        MemorySegment mapped;
        try {
            mapped = (MemorySegment) MMAP.invokeExact(callState, MemorySegment.NULL, length, protection, flags, fd,
                    offset);
        } catch (Throwable thrown) {
            throw propagate(thrown);
        }
        if (mapped.address() == -1L) {
            throw new KernelException(errno(callState), "mmap", subject);
        }
        return mapped;
    }

    /** Unmaps; runs from arena cleanups, where there is nobody to report a failure to. */
    static void munmapQuietly(MemorySegment address, long length) {
        try {
            int ignored = (int) MUNMAP.invokeExact(address, length);
        } catch (Throwable thrown) {
            throw propagate(thrown);
        }
    }
}
