package dev.lockstep.uring;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Statx;
import dev.lockstep.kernel.SystemCalls;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * {@link SystemCalls} on Linux: libc through FFM.
 *
 * <h2>Contract</h2>
 * Exactly the one of {@link SystemCalls}: every failure is a {@link KernelException} naming the call, its
 * subject (the path, the address, or {@code fd N}) and the errno. Calls interrupted by a signal
 * ({@code EINTR}) are retried, except {@code close}, after which Linux has released the fd anyway. Every fd
 * this class creates has {@code FD_CLOEXEC}, so a child process never inherits a file, lock or socket.
 * Arguments the kernel cannot take (a path containing NUL, an unresolved address) are rejected with
 * {@link IllegalArgumentException} naming the value.
 *
 * <h2>Threads</h2>
 * Thread-safe and stateless: each call uses its own confined native memory, or for the socket calls made per
 * connection on a platform thread that thread's {@link SocketCallScratch}, so it may run on any thread, including a
 * fiber (a virtual thread; the downcall pins its carrier for the call's duration).
 */
public final class LinuxSystemCalls implements SystemCalls {
    private static final LinuxSystemCalls INSTANCE = new LinuxSystemCalls();

    private static final int FILE_MODE = 0644;
    private static final int DIRECTORY_MODE = 0755;
    private static final int DIRECTORY_BUFFER_BYTES = 32 * 1024;
    private static final long DIRENT_RECORD_LENGTH_OFFSET = 16;
    private static final long DIRENT_NAME_OFFSET = 19;
    private static final int SOCKADDR_IN_BYTES = 16;
    private static final int SOCKADDR_IN6_BYTES = 28;
    private static final int SOCKADDR_STORAGE_BYTES = 128;
    private static final ValueLayout.OfShort NETWORK_SHORT = JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private LinuxSystemCalls() {
    }

    /**
     * The one instance; it has no state.
     *
     * @return the system calls
     */
    public static LinuxSystemCalls instance() {
        return INSTANCE;
    }

    /**
     * One call of a {@link Libc} handle ({@code invokeExact} with exact types) with its own call-state segment and
     * arena for its arguments, returning a result or {@code -errno}.
     */
    @FunctionalInterface
    private interface NativeCall {
        long invoke(MemorySegment callState, Arena arena) throws Throwable;
    }

    private static long call(String name, String subject, NativeCall call) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment callState = Libc.newCallState(arena);
            return Libc.check(retryInterrupted(call, callState, arena), name, subject);
        }
    }

    private static long retryInterrupted(NativeCall call, MemorySegment callState, Arena arena) {
        long result;
        do {
            result = Libc.invoke(callState, state -> call.invoke(state, arena));
        } while (result == -Libc.EINTR);
        return result;
    }

    private static MemorySegment cString(Arena arena, String path) {
        Objects.requireNonNull(path, "path");
        if (path.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("a path must not contain NUL, was " + path.replace("\0", "\\0"));
        }
        return arena.allocateFrom(path);
    }

    private static String fd(int fd) {
        return "fd " + fd;
    }

    /** The SPI's flag values are x86-64's; aarch64 swaps the bits of two of them. */
    static int nativeOpenFlags(int flags) {
        int translated = flags & ~(O_DIRECTORY | O_DIRECT);
        if ((flags & O_DIRECTORY) != 0) {
            translated |= Libc.NATIVE_O_DIRECTORY;
        }
        if ((flags & O_DIRECT) != 0) {
            translated |= Libc.NATIVE_O_DIRECT;
        }
        return translated | Libc.O_CLOEXEC;
    }

    /**
     * {@inheritDoc}
     *
     * @throws KernelException naming the path, e.g. {@code ENOENT} without {@link #O_CREAT}, {@code EEXIST} with
     *     {@link #O_EXCL}
     */
    @Override
    public int open(String path, int flags) {
        return (int) call("open", path, (callState, arena) ->
                (int) Libc.OPEN.invokeExact(callState, cString(arena, path), nativeOpenFlags(flags), FILE_MODE));
    }

    /**
     * {@inheritDoc}
     *
     * <p>The fd is released even when this throws ({@code EIO} from a deferred write error, say).
     *
     * @throws KernelException naming the fd, e.g. {@code EBADF} for an fd that is not open
     */
    @Override
    public void close(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment callState = Libc.newCallState(arena);
            long result = Libc.invoke(callState, state -> (int) Libc.CLOSE.invokeExact(state, fd));
            // Linux releases the fd before an EINTR is reported; retrying could close someone else's.
            if (result != -Libc.EINTR) {
                Libc.check(result, "close", fd(fd));
            }
        }
    }

    @Override
    public long size(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment status = arena.allocate(Libc.STATX_BUFFER_SIZE, 8);
            statxInto(fd, Libc.STATX_SIZE, status);
            return status.get(ValueLayout.JAVA_LONG, Libc.STATX_SIZE_OFFSET);
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>{@code statx} with {@code STATX_DIOALIGN}; a kernel or file system that does not report it
     * answers 0.
     */
    @Override
    public int directIoAlignment(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment status = arena.allocate(Libc.STATX_BUFFER_SIZE, 8);
            statxInto(fd, Statx.DIOALIGN, status);
            if ((status.get(ValueLayout.JAVA_INT, Statx.MASK_OFFSET) & Statx.DIOALIGN) == 0) {
                return 0;
            }
            return Math.max(status.get(ValueLayout.JAVA_INT, Statx.DIO_MEM_ALIGN_OFFSET),
                    status.get(ValueLayout.JAVA_INT, Statx.DIO_OFFSET_ALIGN_OFFSET));
        }
    }

    /**
     * {@code statx} of an open fd into a caller's buffer laid out as Linux's {@code struct statx} ({@link Statx}):
     * what {@link #size} and {@link #directIoAlignment} read, and the fallback of an {@code STATX} ring submission
     * on a kernel without the opcode.
     *
     * @param fd the fd
     * @param mask the {@code STATX_*} fields asked for
     * @param status at least {@code Statx.BYTES} bytes of native memory
     * @throws KernelException naming the fd
     */
    void statxInto(int fd, int mask, MemorySegment status) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment callState = Libc.newCallState(arena);
            MemorySegment emptyPath = arena.allocateFrom("");
            long result = retryInterrupted((state, ignored) ->
                    (int) Libc.STATX.invokeExact(state, fd, emptyPath, Libc.AT_EMPTY_PATH, mask, status),
                    callState, arena);
            Libc.check(result, "statx", fd(fd));
        }
    }

    @Override
    public void truncate(int fd, long length) {
        call("ftruncate", fd(fd), (callState, arena) -> (int) Libc.FTRUNCATE.invokeExact(callState, fd, length));
    }

    @Override
    public void fsync(int fd) {
        call("fsync", fd(fd), (callState, arena) -> (int) Libc.FSYNC.invokeExact(callState, fd));
    }

    /**
     * {@inheritDoc}
     *
     * @throws KernelException naming the fd, e.g. {@code EIO} when a page of that file system failed to write
     */
    @Override
    public void syncFileSystem(int fd) {
        call("syncfs", fd(fd), (callState, arena) -> (int) Libc.SYNCFS.invokeExact(callState, fd));
    }

    /**
     * {@code fdatasync} of an fd: the data and the metadata needed to read it back, not timestamps.
     *
     * @param fd the fd
     * @throws KernelException naming the fd
     */
    public void fdatasync(int fd) {
        call("fdatasync", fd(fd), (callState, arena) -> (int) Libc.FDATASYNC.invokeExact(callState, fd));
    }

    @Override
    public void mkdir(String path) {
        call("mkdir", path, (callState, arena) ->
                (int) Libc.MKDIR.invokeExact(callState, cString(arena, path), DIRECTORY_MODE));
    }

    @Override
    public void unlink(String path) {
        call("unlink", path, (callState, arena) -> (int) Libc.UNLINK.invokeExact(callState, cString(arena, path)));
    }

    /**
     * {@code fallocate(fd, 0, offset, length)}: allocates the range and extends the file to its end if shorter; the
     * offloaded form of a {@code FALLOCATE} submission on a kernel without the opcode.
     *
     * @param fd the fd, open for writing
     * @param offset where the range starts
     * @param length its bytes, more than zero
     */
    void allocate(int fd, long offset, long length) {
        call("fallocate", fd(fd), (callState, arena) ->
                (int) Libc.FALLOCATE.invokeExact(callState, fd, 0, offset, length));
    }

    @Override
    public void rename(String from, String to) {
        call("rename", from + " -> " + to, (callState, arena) ->
                (int) Libc.RENAME.invokeExact(callState, cString(arena, from), cString(arena, to)));
    }

    @Override
    public void rmdir(String path) {
        call("rmdir", path, (callState, arena) -> (int) Libc.RMDIR.invokeExact(callState, cString(arena, path)));
    }

    /**
     * {@inheritDoc}
     *
     * <p>Sorted by {@link String#compareTo}; names are decoded as UTF-8.
     *
     * @return the names, unmodifiable
     * @throws KernelException naming the path: {@code ENOENT} if missing, {@code ENOTDIR} if not a directory
     */
    @Override
    public List<String> list(String path) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment callState = Libc.newCallState(arena);
            MemorySegment cPath = cString(arena, path);
            int directoryFd = (int) Libc.check(retryInterrupted((state, ignored) ->
                    (int) Libc.OPEN.invokeExact(state, cPath, Libc.O_RDONLY | Libc.NATIVE_O_DIRECTORY | Libc.O_CLOEXEC,
                            0),
                    callState, arena), "open", path);
            try {
                return readDirectory(directoryFd, path, callState, arena);
            } finally {
                Libc.invoke(callState, state -> (int) Libc.CLOSE.invokeExact(state, directoryFd));
            }
        }
    }

    private static List<String> readDirectory(int directoryFd, String path, MemorySegment callState, Arena arena) {
        MemorySegment buffer = arena.allocate(DIRECTORY_BUFFER_BYTES, 8);
        List<String> names = new ArrayList<>();
        while (true) {
            long filled = Libc.check(retryInterrupted((state, ignored) -> Libc.syscall(state, Libc.SYS_GETDENTS64,
                    directoryFd, buffer.address(), buffer.byteSize(), 0, 0, 0), callState, arena), "getdents64", path);
            if (filled == 0) {
                break;
            }
            long position = 0;
            while (position < filled) {
                int recordLength = Short.toUnsignedInt(
                        buffer.get(JAVA_SHORT_UNALIGNED, position + DIRENT_RECORD_LENGTH_OFFSET));
                String name = buffer.getString(position + DIRENT_NAME_OFFSET);
                if (!name.equals(".") && !name.equals("..")) {
                    names.add(name);
                }
                position += recordLength;
            }
        }
        Collections.sort(names);
        return Collections.unmodifiableList(names);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Follows symbolic links. A path through a non-directory ({@code file/child}) also fails with
     * {@code ENOTDIR}.
     */
    @Override
    public boolean isDirectory(String path) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment callState = Libc.newCallState(arena);
            MemorySegment cPath = cString(arena, path);
            MemorySegment status = arena.allocate(Libc.STATX_BUFFER_SIZE, 8);
            long result = retryInterrupted((state, ignored) ->
                    (int) Libc.STATX.invokeExact(state, Libc.AT_FDCWD, cPath, 0, Libc.STATX_TYPE, status),
                    callState, arena);
            if (result == -Errno.ENOENT) {
                return false;
            }
            Libc.check(result, "statx", path);
            int mode = Short.toUnsignedInt(status.get(JAVA_SHORT, Libc.STATX_MODE_OFFSET));
            if ((mode & Libc.S_IFMT) != Libc.S_IFDIR) {
                throw new KernelException(Errno.ENOTDIR, "isDirectory", path);
            }
            return true;
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>An {@code flock} lock: it belongs to the open file, so a second {@code lock} of the same path fails
     * even within this process, and it is released when the fd is closed or the process dies.
     *
     * @throws KernelException naming the path, {@code errno() == Errno.EWOULDBLOCK} if held elsewhere
     */
    @Override
    public int lock(String path) {
        int fd = open(path, O_RDWR | O_CREAT);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment callState = Libc.newCallState(arena);
            long result = retryInterrupted((state, ignored) ->
                    (int) Libc.FLOCK.invokeExact(state, fd, Libc.LOCK_EX | Libc.LOCK_NB), callState, arena);
            if (result < 0) {
                Libc.invoke(callState, state -> (int) Libc.CLOSE.invokeExact(state, fd));
                throw new KernelException((int) -result, "flock", path);
            }
            return fd;
        }
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException if the address is unresolved
     */
    @Override
    public int socket(InetSocketAddress address) {
        int domain = resolved(address) instanceof Inet6Address ? Libc.AF_INET6 : Libc.AF_INET;
        return (int) call("socket", describe(address), (callState, arena) ->
                (int) Libc.SOCKET.invokeExact(callState, domain,
                        Libc.SOCK_STREAM | Libc.SOCK_NONBLOCK | Libc.SOCK_CLOEXEC, 0));
    }

    /**
     * {@inheritDoc}
     *
     * @throws KernelException naming the address, e.g. {@code EADDRINUSE} when another socket listens on it
     * @throws IllegalArgumentException if the address is unresolved
     */
    @Override
    public void bindAndListen(int fd, InetSocketAddress address, int backlog) {
        InetAddress ip = resolved(address);
        String subject = describe(address);
        setIntOption(fd, Libc.SOL_SOCKET, Libc.SO_REUSEADDR, "setsockopt(SO_REUSEADDR)");
        call("bind", subject, (callState, arena) -> {
            MemorySegment sockaddr = arena.allocate(sockaddrBytes(ip), 8);
            encodeSockaddr(sockaddr, ip, address.getPort());
            return (int) Libc.BIND.invokeExact(callState, fd, sockaddr, (int) sockaddr.byteSize());
        });
        call("listen", subject, (callState, arena) -> (int) Libc.LISTEN.invokeExact(callState, fd, backlog));
    }

    @Override
    public void noDelay(int fd) {
        setIntOption(fd, Libc.IPPROTO_TCP, Libc.TCP_NODELAY, "setsockopt(TCP_NODELAY)");
    }

    @Override
    public void setSocketOptions(int fd, boolean keepAlive, int sendBufferBytes, int receiveBufferBytes) {
        if (keepAlive) {
            setIntOption(fd, Libc.SOL_SOCKET, Libc.SO_KEEPALIVE, "setsockopt(SO_KEEPALIVE)");
        }
        if (sendBufferBytes > 0) {
            setIntOption(fd, Libc.SOL_SOCKET, Libc.SO_SNDBUF, sendBufferBytes, "setsockopt(SO_SNDBUF)");
        }
        if (receiveBufferBytes > 0) {
            setIntOption(fd, Libc.SOL_SOCKET, Libc.SO_RCVBUF, receiveBufferBytes, "setsockopt(SO_RCVBUF)");
        }
    }

    private static void setIntOption(int fd, int level, int option, String name) {
        setIntOption(fd, level, option, 1, name);
    }

    private static void setIntOption(int fd, int level, int option, int value, String name) {
        SocketCallScratch scratch = SocketCallScratch.ofCurrentThread();
        if (scratch != null) {
            scratch.option.set(JAVA_INT, 0, value);
            MemorySegment enabled = scratch.option;
            Libc.check(retryInterrupted((state, ignored) -> (int) Libc.SETSOCKOPT.invokeExact(state, fd, level,
                    option, enabled, (int) enabled.byteSize()), scratch.callState, null), name, fd(fd));
            return;
        }
        call(name, fd(fd), (callState, arena) -> {
            MemorySegment enabled = arena.allocateFrom(JAVA_INT, value);
            return (int) Libc.SETSOCKOPT.invokeExact(callState, fd, level, option, enabled,
                    (int) enabled.byteSize());
        });
    }

    @Override
    public InetSocketAddress localAddress(int fd) {
        return socketAddress(fd, "getsockname", true);
    }

    @Override
    public InetSocketAddress peerAddress(int fd) {
        return socketAddress(fd, "getpeername", false);
    }

    private static InetSocketAddress socketAddress(int fd, String name, boolean local) {
        SocketCallScratch scratch = SocketCallScratch.ofCurrentThread();
        if (scratch != null) {
            return socketAddress(fd, name, local, scratch.callState, scratch.sockaddr, scratch.length);
        }
        try (Arena arena = Arena.ofConfined()) {
            return socketAddress(fd, name, local, Libc.newCallState(arena),
                    arena.allocate(SOCKADDR_STORAGE_BYTES, 8), arena.allocate(JAVA_INT));
        }
    }

    /** {@code getsockname} or {@code getpeername} through the given memory, which outlives the call. */
    private static InetSocketAddress socketAddress(int fd, String name, boolean local, MemorySegment callState,
                                                   MemorySegment sockaddr, MemorySegment length) {
        length.set(JAVA_INT, 0, SOCKADDR_STORAGE_BYTES);
        long result = retryInterrupted((state, ignored) -> local
                ? (int) Libc.GETSOCKNAME.invokeExact(state, fd, sockaddr, length)
                : (int) Libc.GETPEERNAME.invokeExact(state, fd, sockaddr, length), callState, null);
        Libc.check(result, name, fd(fd));
        return decodeSockaddr(sockaddr, fd);
    }

    @Override
    public void shutdownWrite(int fd) {
        call("shutdown", fd(fd), (callState, arena) ->
                (int) Libc.SHUTDOWN.invokeExact(callState, fd, Libc.SHUT_WR));
    }

    /**
     * {@inheritDoc}
     *
     * <p>A {@code sockaddr_in} (16 bytes) for IPv4, a {@code sockaddr_in6} (28 bytes, with the scope id) for
     * IPv6; the segment's size is the length a {@code CONNECT} passes.
     *
     * @throws IllegalArgumentException if the address is unresolved
     */
    @Override
    public MemorySegment sockaddr(Ring ring, InetSocketAddress address) {
        InetAddress ip = resolved(address);
        MemorySegment sockaddr = ring.allocate(sockaddrBytes(ip));
        encodeSockaddr(sockaddr, ip, address.getPort());
        return sockaddr;
    }

    private static InetAddress resolved(InetSocketAddress address) {
        Objects.requireNonNull(address, "address");
        InetAddress ip = address.getAddress();
        if (ip == null) {
            throw new IllegalArgumentException("the address must be resolved, was " + address);
        }
        return ip;
    }

    /**
     * An address as {@code host:port}, IPv6 hosts in brackets: the subject of socket errors.
     *
     * @param address the address
     * @return its description
     */
    static String describe(InetSocketAddress address) {
        InetAddress ip = address.getAddress();
        String host = ip == null ? address.getHostString() : ip.getHostAddress();
        return (ip instanceof Inet6Address ? "[" + host + "]" : host) + ":" + address.getPort();
    }

    private static int sockaddrBytes(InetAddress ip) {
        return ip instanceof Inet6Address ? SOCKADDR_IN6_BYTES : SOCKADDR_IN_BYTES;
    }

    /** sockaddr_in: family@0 (host order), port@2 (network order), address@4. sockaddr_in6: address@8, scope@24. */
    static void encodeSockaddr(MemorySegment target, InetAddress ip, int port) {
        target.fill((byte) 0);
        target.set(NETWORK_SHORT, 2, (short) port);
        byte[] bytes = ip.getAddress();
        if (ip instanceof Inet6Address ip6) {
            target.set(JAVA_SHORT, 0, (short) Libc.AF_INET6);
            MemorySegment.copy(bytes, 0, target, JAVA_BYTE, 8, bytes.length);
            target.set(JAVA_INT, 24, ip6.getScopeId());
        } else {
            target.set(JAVA_SHORT, 0, (short) Libc.AF_INET);
            MemorySegment.copy(bytes, 0, target, JAVA_BYTE, 4, bytes.length);
        }
    }

    static InetSocketAddress decodeSockaddr(MemorySegment source, int fd) {
        int family = Short.toUnsignedInt(source.get(JAVA_SHORT, 0));
        int port = Short.toUnsignedInt(source.get(NETWORK_SHORT, 2));
        try {
            if (family == Libc.AF_INET) {
                byte[] bytes = new byte[4];
                MemorySegment.copy(source, JAVA_BYTE, 4, bytes, 0, 4);
                return new InetSocketAddress(Inet4Address.getByAddress(bytes), port);
            }
            if (family == Libc.AF_INET6) {
                byte[] bytes = new byte[16];
                MemorySegment.copy(source, JAVA_BYTE, 8, bytes, 0, 16);
                int scopeId = source.get(JAVA_INT, 24);
                InetAddress ip = scopeId == 0 ? InetAddress.getByAddress(bytes)
                        : Inet6Address.getByAddress(null, bytes, scopeId);
                return new InetSocketAddress(ip, port);
            }
        } catch (UnknownHostException impossible) {
            throw new IllegalStateException("the kernel returned a malformed address for " + fd(fd), impossible);
        }
        throw new KernelException(Errno.EOPNOTSUPP, "sockaddr family " + family, fd(fd));
    }
}
