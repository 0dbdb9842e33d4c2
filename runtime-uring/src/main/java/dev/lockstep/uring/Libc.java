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
import java.lang.invoke.VarHandle;
import java.util.Locale;

/**
 * The libc functions and raw system calls runtime-uring needs, as FFM downcalls.
 *
 * <h2>Results</h2>
 * Every call that can fail takes a call-state segment ({@link #newCallState}) first, in which the linker
 * captures {@code errno}, and returns the C result when it succeeded or {@code -errno} when it failed, the way
 * the kernel reports errors. {@link #check} turns a negative result into a {@link KernelException}. Pointers
 * come back as zero-length segments.
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
    static final int SHUT_WR = 1;
    static final int MSG_NOSIGNAL = 0x4000;

    static final int EFD_NONBLOCK = 04000;
    static final int EFD_CLOEXEC = 02000000;

    private static final String ARCH = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    private static final boolean X86_64 = ARCH.equals("amd64") || ARCH.equals("x86_64");
    private static final boolean AARCH64 = ARCH.equals("aarch64");
    private static final boolean LINUX = System.getProperty("os.name", "").equals("Linux");

    /** {@code getdents64} is 217 in the x86-64 table and 61 in the generic one aarch64 uses. */
    static final long SYS_GETDENTS64 = X86_64 ? 217 : 61;
    /** The two open flags whose bits differ between the x86-64 and aarch64 ABIs. */
    static final int NATIVE_O_DIRECTORY = AARCH64 ? 040000 : 0200000;
    static final int NATIVE_O_DIRECT = AARCH64 ? 0200000 : 040000;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO =
            CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    // glibc's syscall() always reads six variadic longs, so every system call passes six, zeros unused.
    private static final MethodHandle SYSCALL = downcall("syscall",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
                    JAVA_LONG),
            Linker.Option.firstVariadicArg(1), CAPTURE_ERRNO);
    private static final MethodHandle MMAP = downcall("mmap",
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG),
            CAPTURE_ERRNO);
    private static final MethodHandle MUNMAP = downcall("munmap",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle OPEN = downcall("open",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT),
            Linker.Option.firstVariadicArg(2), CAPTURE_ERRNO);
    private static final MethodHandle CLOSE = downcall("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT),
            CAPTURE_ERRNO);
    private static final MethodHandle FSYNC = downcall("fsync", FunctionDescriptor.of(JAVA_INT, JAVA_INT),
            CAPTURE_ERRNO);
    private static final MethodHandle FDATASYNC = downcall("fdatasync",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT), CAPTURE_ERRNO);
    private static final MethodHandle SYNCFS = downcall("syncfs", FunctionDescriptor.of(JAVA_INT, JAVA_INT),
            CAPTURE_ERRNO);
    private static final MethodHandle FTRUNCATE = downcall("ftruncate",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG), CAPTURE_ERRNO);
    private static final MethodHandle STATX = downcall("statx",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS), CAPTURE_ERRNO);
    private static final MethodHandle UNLINK = downcall("unlink", FunctionDescriptor.of(JAVA_INT, ADDRESS),
            CAPTURE_ERRNO);
    private static final MethodHandle MKDIR = downcall("mkdir",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), CAPTURE_ERRNO);
    private static final MethodHandle RMDIR = downcall("rmdir", FunctionDescriptor.of(JAVA_INT, ADDRESS),
            CAPTURE_ERRNO);
    private static final MethodHandle FLOCK = downcall("flock",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), CAPTURE_ERRNO);
    private static final MethodHandle SOCKET = downcall("socket",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), CAPTURE_ERRNO);
    private static final MethodHandle BIND = downcall("bind",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), CAPTURE_ERRNO);
    private static final MethodHandle LISTEN = downcall("listen",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), CAPTURE_ERRNO);
    private static final MethodHandle SETSOCKOPT = downcall("setsockopt",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), CAPTURE_ERRNO);
    private static final MethodHandle GETSOCKNAME = downcall("getsockname",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS), CAPTURE_ERRNO);
    private static final MethodHandle GETPEERNAME = downcall("getpeername",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS), CAPTURE_ERRNO);
    private static final MethodHandle SHUTDOWN = downcall("shutdown",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), CAPTURE_ERRNO);
    private static final MethodHandle EVENTFD = downcall("eventfd",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), CAPTURE_ERRNO);
    private static final MethodHandle READ = downcall("read",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG), CAPTURE_ERRNO);
    // Wakes come from any thread and have no failure worth reporting, so this one captures nothing.
    private static final MethodHandle WRITE_IGNORING_ERRNO = downcall("write",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle CALLOC = downcall("calloc",
            FunctionDescriptor.of(ADDRESS, JAVA_LONG, JAVA_LONG));
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

    private static int intResult(int result, MemorySegment callState) {
        return result == -1 ? -errno(callState) : result;
    }

    private static long longResult(long result, MemorySegment callState) {
        return result == -1 ? -errno(callState) : result;
    }

    /** Rethrows what a downcall handle threw; a checked throwable is impossible but must be typed. */
    private static RuntimeException propagate(Throwable thrown) {
        if (thrown instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (thrown instanceof Error error) {
            throw error;
        }
        return new IllegalStateException("downcall failed", thrown);
    }

    static long syscall(MemorySegment callState, long number, long a1, long a2, long a3, long a4, long a5,
                        long a6) {
        try {
            return longResult((long) SYSCALL.invokeExact(callState, number, a1, a2, a3, a4, a5, a6), callState);
        } catch (Throwable thrown) {
            throw propagate(thrown);
        }
    }

    /**
     * {@code mmap(NULL, length, ...)}.
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

    static int open(MemorySegment callState, MemorySegment path, int flags, int mode) {
        try {
            return intResult((int) OPEN.invokeExact(callState, path, flags, mode), callState);
        } catch (Throwable thrown) {
            throw propagate(thrown);
        }
    }

    static int close(MemorySegment callState, int fd) {
        try {
            return intResult((int) CLOSE.invokeExact(callState, fd), callState);
        } catch (Throwable thrown) {
            throw propagate(thrown);
        }
    }

    static int fsync(MemorySegment callState, int fd) {
        try {
            return intResult((int) FSYNC.invokeExact(callState, fd), callState);
        } catch (Throwable thrown) {
            throw propagate(thrown);
        }
    }

    static int fdatasync(MemorySegment callState, int fd) {
        try {
            return intResult((int) FDATASYNC.invokeExact(callState, fd), callState);
        } catch (Throwable thrown) {
            throw propagate(thrown);
        }
    }

    static int syncfs(MemorySegment callState, int fd) {
        try {
            return intResult((int) SYNCFS.invokeExact(callState, fd), callState);
        } catch (Throwable thrown) {
            throw propagate(thrown);
        }
    }

    static int ftruncate(MemorySegment callState, int fd, long length) {
        try {
            return intResult((int) FTRUNCATE.invokeExact(callState, fd, length), callState);
        } catch (Throwable thrown) {
            throw propagate(thrown);
        }
    }

    static int statx(MemorySegment callState, int directoryFd, MemorySegment path, int flags, int mask,
                     MemorySegment buffer) {
        try {
            return intResult((int) STATX.invokeExact(callState, directoryFd, path, flags, mask, buffer), callState);
        } catch (Throwable thrown) {
            throw propagate(thrown);
        }
    }

    static int unlink(MemorySegment callState, MemorySegment path) {
        try {
            return intResult((int) UNLINK.invokeExact(callState, path), callState);
        } catch (Throwable thrown) {
            throw propagate(thrown);
        }
    }

    static int mkdir(MemorySegment callState, MemorySegment path, int mode) {
        try {
            return intResult((int) MKDIR.invokeExact(callState, path, mode), callState);
        } catch (Throwable thrown) {
            throw propagate(thrown);
        }
    }

    static int rmdir(MemorySegment callState, MemorySegment path) {
        try {
            return intResult((int) RMDIR.invokeExact(callState, path), callState);
        } catch (Throwable thrown) {
            throw propagate(thrown);
        }
    }

    static int flock(MemorySegment callState, int fd, int operation) {
        try {
            return intResult((int) FLOCK.invokeExact(callState, fd, operation), callState);
        } catch (Throwable thrown) {
            throw propagate(thrown);
        }
    }

    static int socket(MemorySegment callState, int domain, int type, int protocol) {
        try {
            return intResult((int) SOCKET.invokeExact(callState, domain, type, protocol), callState);
        } catch (Throwable thrown) {
            throw propagate(thrown);
        }
    }

    static int bind(MemorySegment callState, int fd, MemorySegment address, int length) {
        try {
            return intResult((int) BIND.invokeExact(callState, fd, address, length), callState);
        } catch (Throwable thrown) {
            throw propagate(thrown);
        }
    }

    static int listen(MemorySegment callState, int fd, int backlog) {
        try {
            return intResult((int) LISTEN.invokeExact(callState, fd, backlog), callState);
        } catch (Throwable thrown) {
            throw propagate(thrown);
        }
    }

    static int setsockopt(MemorySegment callState, int fd, int level, int option, MemorySegment value,
                          int length) {
        try {
            return intResult((int) SETSOCKOPT.invokeExact(callState, fd, level, option, value, length), callState);
        } catch (Throwable thrown) {
            throw propagate(thrown);
        }
    }

    static int getsockname(MemorySegment callState, int fd, MemorySegment address, MemorySegment length) {
        try {
            return intResult((int) GETSOCKNAME.invokeExact(callState, fd, address, length), callState);
        } catch (Throwable thrown) {
            throw propagate(thrown);
        }
    }

    static int getpeername(MemorySegment callState, int fd, MemorySegment address, MemorySegment length) {
        try {
            return intResult((int) GETPEERNAME.invokeExact(callState, fd, address, length), callState);
        } catch (Throwable thrown) {
            throw propagate(thrown);
        }
    }

    static int shutdown(MemorySegment callState, int fd, int how) {
        try {
            return intResult((int) SHUTDOWN.invokeExact(callState, fd, how), callState);
        } catch (Throwable thrown) {
            throw propagate(thrown);
        }
    }

    static int eventfd(MemorySegment callState, int initialValue, int flags) {
        try {
            return intResult((int) EVENTFD.invokeExact(callState, initialValue, flags), callState);
        } catch (Throwable thrown) {
            throw propagate(thrown);
        }
    }

    static long read(MemorySegment callState, int fd, MemorySegment buffer, long length) {
        try {
            return longResult((long) READ.invokeExact(callState, fd, buffer, length), callState);
        } catch (Throwable thrown) {
            throw propagate(thrown);
        }
    }

    /**
     * {@code write(2)} whose failure is not reported.
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
}
