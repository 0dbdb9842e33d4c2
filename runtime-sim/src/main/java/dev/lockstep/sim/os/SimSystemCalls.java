package dev.lockstep.sim.os;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.SystemCalls;
import dev.lockstep.sim.KernelBehavior;
import dev.lockstep.sim.StorageFaults;
import dev.lockstep.sim.audit.Auditor;
import dev.lockstep.sim.audit.Site;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The synchronous calls of a {@link SimKernel}: file-system calls on its {@link SimFileSystem}, socket set-up on
 * its {@link SimNetwork}. They are subject to the file system's injected faults (see {@link StorageFaults} for
 * which call rolls which rate).
 *
 * <h2>Time</h2>
 * runtime-uring makes each of these calls as a blocking system call on the calling worker's thread: the worker
 * runs nothing else until it returns. So each call here takes simulated time: a latency drawn at
 * {@link Site#SYSCALL_LATENCY} from {@link KernelBehavior}'s call range ({@code fsync} and {@code syncfs}: its
 * sync-call range), by which {@link SyscallLatency#blockFor} moves the clock before the call takes effect. Timers and
 * completions that fall due meanwhile are handled after the call returns, as on a blocked worker thread. Calls
 * made inside a {@code BLOCKING_CALL} (storage metadata, which runtime-uring runs on an offload thread) draw the
 * same latency, but it is added to that request's completion time instead of moving the clock
 * ({@link SyscallLatency#runOffloaded}): the workers go on meanwhile.
 *
 * <p>Every call is recorded in the auditor after it returns, as {@code ("sys", name, arguments..., outcome)}
 * where the outcome is the result or the errno, so failed calls are audited too.
 *
 * <p>Confined to the simulator thread; see {@link SimKernel}.
 */
public final class SimSystemCalls implements SystemCalls {

    /** {@code AF_INET}. */
    static final short AF_INET = 2;
    /** {@code AF_INET6}. */
    static final short AF_INET6 = 10;
    /** {@code sizeof(struct sockaddr_in)}. */
    static final int SOCKADDR_IN_BYTES = 16;
    /** {@code sizeof(struct sockaddr_in6)}. */
    static final int SOCKADDR_IN6_BYTES = 28;

    private static final ValueLayout.OfShort NATIVE_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.nativeOrder());
    private static final ValueLayout.OfShort NETWORK_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final SimKernel kernel;

    SimSystemCalls(SimKernel kernel) {
        this.kernel = kernel;
    }

    private <T> T audited(String name, Supplier<T> call, byte[]... arguments) {
        return audited(name, call, null, arguments);
    }

    /**
     * {@link #audited(String, Supplier, byte[]...)} with one more field after the result, when {@code payload} is
     * not null: what it makes of the result (the bytes a read returned, so that a read's event has its payload as
     * a ring read's completion does); empty if the call threw.
     */
    private <T> T audited(String name, Supplier<T> call, java.util.function.Function<T, byte[]> payload,
            byte[]... arguments) {
        beginCall(name.equals("fsync") || name.equals("syncFileSystem"));
        byte[][] fields = new byte[arguments.length + (payload == null ? 3 : 4)][];
        fields[0] = Auditor.utf8(name);
        System.arraycopy(arguments, 0, fields, 1, arguments.length);
        try {
            T result = call.get();
            fields[arguments.length + 1] = Auditor.u32(0);
            fields[arguments.length + 2] = Auditor.utf8(String.valueOf(result));
            if (payload != null) {
                fields[arguments.length + 3] = payload.apply(result);
            }
            kernel.auditor().record("sys", fields);
            return result;
        } catch (KernelException e) {
            fields[arguments.length + 1] = Auditor.u32(e.errno());
            fields[arguments.length + 2] = Auditor.utf8(e.call());
            if (payload != null) {
                fields[arguments.length + 3] = new byte[0];
            }
            kernel.auditor().record("sys", fields);
            throw e;
        }
    }

    /**
     * What every call does before its work: counts it and keeps the worker busy for a seeded latency, a sync's
     * ({@code sync}) or any other call's ({@link KernelBehavior}), drawn at {@link Site#SYSCALL_LATENCY}.
     */
    private void beginCall(boolean sync) {
        kernel.systemCalls++;
        KernelBehavior behavior = kernel.behavior();
        kernel.syscallLatency().blockFor(kernel.generator().nextLongBetween(Site.SYSCALL_LATENCY,
                sync ? behavior.minSyncCallLatencyNanos() : behavior.minCallLatencyNanos(),
                sync ? behavior.maxSyncCallLatencyNanos() : behavior.maxCallLatencyNanos()));
    }

    private void audited(String name, Runnable call, byte[]... arguments) {
        audited(name, () -> {
            call.run();
            return "ok";
        }, arguments);
    }

    private Description description(int fd, String call) {
        Description description = kernel.fds().description(fd);
        if (description == null) {
            throw new KernelException(Errno.EBADF, call, "fd " + fd);
        }
        return description;
    }

    private FileDescription file(int fd, String call) {
        Description description = description(fd, call);
        if (!(description instanceof FileDescription file)) {
            throw new KernelException(Errno.EINVAL, call, "fd " + fd + " (" + description.subject() + ")");
        }
        return file;
    }

    private SimSocket socket(int fd, String call) {
        Description description = description(fd, call);
        if (!(description instanceof SocketDescription socket)) {
            throw new KernelException(Errno.ENOTSOCK, call, "fd " + fd + " (" + description.subject() + ")");
        }
        return socket.socket;
    }

    // -------------------------------------------------------------------------------------------- files

    /**
     * Opens a file; see {@link SimFileSystem#open} for the flags and errors. The fd is the lowest free one.
     *
     * @param path the path
     * @param flags {@code O_*} flags
     * @return the fd
     */
    @Override
    public int open(String path, int flags) {
        return audited("open", () -> {
            kernel.fds().reserve("open", path);
            SimFileSystem.Handle handle = kernel.fileSystem().open(path, flags);
            return kernel.install(new FileDescription(kernel.fileSystem(), handle,
                    (flags & O_DIRECT) != 0), "open");
        }, Auditor.utf8(path), Auditor.u32(flags));
    }

    /**
     * Closes an fd. A file or socket still used by a request in flight is released when that request completes.
     *
     * @param fd the fd
     * @throws KernelException {@code EBADF} if it is not open
     */
    @Override
    public void close(int fd) {
        audited("close", () -> {
            if (kernel.fds().remove(fd) == null) {
                throw new KernelException(Errno.EBADF, "close", "fd " + fd);
            }
        }, Auditor.u32(fd));
    }

    /**
     * {@code preadv2(fd, [destination], 1, offset, RWF_NOWAIT)}: the bytes the page cache holds, without waiting for
     * the device ({@link SimRing#readWithoutWaiting}, runtime-uring's read at the call). Whether every page asked
     * for is cached is rolled at {@link Site#INLINE_COMPLETION} with {@link KernelBehavior#inlineCompletionRate()}
     * (the file system keeps no record of what was evicted): if not, {@code -EAGAIN}; if so, the bytes, cut short
     * at {@link KernelBehavior#shortReadRate()} as a ring read is ({@link Site#SHORT_READ}), but with no injected
     * read fault: cached pages need no device ({@link StorageFaults#readRate()} is the device's), and a read at
     * the call that failed would only be read again by the ring, which rolls for the fault. A file opened with
     * {@code O_DIRECT} always waits for its device: {@code -EAGAIN}, with no roll. A synchronous call, with its
     * latency and audit, whose event has the bytes read as its payload.
     *
     * @param fd the fd
     * @param destination where the bytes go, all of it asked for
     * @param offset the file offset, {@code >= 0}
     * @return the bytes read (0 at the end of the file), or {@code -EAGAIN}, {@code -EBADF}, {@code -EOPNOTSUPP}
     *     (not a file) or {@code -EIO}
     */
    int readWithoutWaiting(int fd, MemorySegment destination, long offset) {
        // What audited(...) does, without its allocations: a warm read's hot path. The same draws in the same
        // order (beginCall's latency, then the call's own) and an event encoded as the generic one is, the payload hashed
        // straight from the destination, or a whole page looked up by the array it was copied from
        // (Auditor.recordPositionedRead; AuditorTest pins the equality).
        int length = (int) destination.byteSize();
        beginCall(false);
        KernelBehavior behavior = kernel.behavior();
        Description description = kernel.fds().description(fd);
        int read = switch (description) {
            case null -> -Errno.EBADF;
            case FileDescription file when file.direct -> -Errno.EAGAIN;
            case FileDescription file -> kernel.generator().chance(Site.INLINE_COMPLETION,
                    behavior.inlineCompletionRate())
                    ? file.fileSystem.readCached(file.handle, offset, destination, shortened(length))
                    : -Errno.EAGAIN;
            default -> -Errno.EOPNOTSUPP;
        };
        // A whole page read: the auditor may look its bytes up by the page they were copied from.
        byte[] unchanging = read == Auditor.BLOCK_BYTES && description instanceof FileDescription file
                ? file.fileSystem.unchangingBytes(file.handle, offset, read) : null;
        kernel.auditor().recordPositionedRead(PREADV2, fd, offset, length, read, destination, Math.max(read, 0),
                unchanging);
        return read;
    }

    private static final byte[] PREADV2 = Auditor.utf8("preadv2");

    /** {@code length}, or a seeded {@code [1, length - 1]} at {@link KernelBehavior#shortReadRate()}. */
    private int shortened(int length) {
        boolean cut = kernel.generator().chance(Site.SHORT_READ, kernel.behavior().shortReadRate());
        return cut && length >= 2 ? 1 + kernel.generator().nextInt(Site.SHORT_READ, length - 1) : length;
    }

    /**
     * The live size of a file (what reads see); 0 for a directory or a socket.
     *
     * @param fd the fd
     * @return the size
     */
    @Override
    public long size(int fd) {
        return audited("size", () -> switch (description(fd, "size")) {
            case FileDescription file -> kernel.fileSystem().size(file.handle);
            case SocketDescription ignored -> 0L;
        }, Auditor.u32(fd));
    }

    /**
     * {@inheritDoc}
     *
     * <p>Every simulated file can do direct I/O, aligned to 512 bytes.
     *
     * @throws KernelException {@code EBADF} if the fd is not open, {@code EINVAL} for a socket
     */
    @Override
    public int directIoAlignment(int fd) {
        return audited("directIoAlignment", () -> {
            file(fd, "directIoAlignment");
            return FileDescription.DIRECT_IO_ALIGNMENT;
        }, Auditor.u32(fd));
    }

    /**
     * Sets a file's size; see {@link SimFileSystem#truncate}. Not durable until the file is synced.
     *
     * @param fd the fd
     * @param length the new size
     */
    @Override
    public void truncate(int fd, long length) {
        audited("truncate", () -> kernel.fileSystem().truncate(file(fd, "truncate").handle, length),
                Auditor.u32(fd), Auditor.u64(length));
    }

    /**
     * {@code fsync}: of a directory, makes its entries durable; of a file, its contents and size.
     *
     * @param fd the fd
     * @throws KernelException {@code EIO} if a fault was injected (what became of the file's unsynced data is
     *                         the {@link StorageFaults#syncFailure()} model's), {@code EBADF}, {@code EINVAL} for a
     *                         socket
     */
    @Override
    public void fsync(int fd) {
        audited("fsync", () -> {
            FileDescription file = file(fd, "fsync");
            int result = kernel.fileSystem().sync(file.handle, false);
            if (result < 0) {
                throw new KernelException(-result, "fsync", file.subject());
            }
        }, Auditor.u32(fd));
    }

    /**
     * {@code syncfs}: makes this kernel's whole file system durable; see {@link SimFileSystem#syncAll}.
     *
     * @param fd any open file or directory fd
     * @throws KernelException {@code EIO} if a fault was injected (see {@link SimFileSystem#syncAll}),
     *                         {@code EBADF}, {@code EINVAL} for a socket
     */
    @Override
    public void syncFileSystem(int fd) {
        audited("syncFileSystem", () -> {
            FileDescription file = file(fd, "syncfs");
            int result = file.fileSystem.syncAll();
            if (result < 0) {
                throw new KernelException(-result, "syncfs", file.subject());
            }
        }, Auditor.u32(fd));
    }

    /**
     * Creates a directory; see {@link SimFileSystem#mkdir}.
     *
     * @param path the path
     */
    @Override
    public void mkdir(String path) {
        audited("mkdir", () -> kernel.fileSystem().mkdir(path), Auditor.utf8(path));
    }

    /**
     * Removes a file; see {@link SimFileSystem#unlink}.
     *
     * @param path the path
     */
    @Override
    public void unlink(String path) {
        audited("unlink", () -> kernel.fileSystem().unlink(path), Auditor.utf8(path));
    }

    /**
     * Renames a file; see {@link SimFileSystem#rename}.
     *
     * @param from the existing path
     * @param to the new path, in the same directory
     */
    @Override
    public void rename(String from, String to) {
        audited("rename", () -> kernel.fileSystem().rename(from, to), Auditor.utf8(from), Auditor.utf8(to));
    }

    /**
     * Removes an empty directory; see {@link SimFileSystem#rmdir}.
     *
     * @param path the path
     */
    @Override
    public void rmdir(String path) {
        audited("rmdir", () -> kernel.fileSystem().rmdir(path), Auditor.utf8(path));
    }

    /**
     * A directory's entries, sorted; see {@link SimFileSystem#list}.
     *
     * @param path the directory
     * @return the names
     */
    @Override
    public List<String> list(String path) {
        return audited("list", () -> kernel.fileSystem().list(path), Auditor.utf8(path));
    }

    /**
     * Whether a path is a directory; see {@link SimFileSystem#isDirectory}.
     *
     * @param path the path
     * @return true for a directory, false if missing
     */
    @Override
    public boolean isDirectory(String path) {
        return audited("isDirectory", () -> kernel.fileSystem().isDirectory(path), Auditor.utf8(path));
    }

    /**
     * Opens (creating) a lock file and takes its exclusive lock. The open is subject to the open fault rate.
     * Locks are per open file description, so a second {@code lock} of the same file fails even from the same
     * kernel; and per file system, so two kernels sharing one file system exclude each other.
     *
     * @param path the lock file
     * @return the fd holding the lock; closing it releases the lock
     * @throws KernelException {@code EWOULDBLOCK} if another description holds it
     */
    @Override
    public int lock(String path) {
        return audited("lock", () -> {
            kernel.fds().reserve("lock", path);
            SimFileSystem fileSystem = kernel.fileSystem();
            SimFileSystem.Handle handle = fileSystem.open(path, O_RDWR | O_CREAT);
            if (!fileSystem.tryLock(handle)) {
                fileSystem.close(handle);
                throw new KernelException(Errno.EWOULDBLOCK, "lock", path);
            }
            return kernel.install(new FileDescription(fileSystem, handle, false), "lock");
        }, Auditor.utf8(path));
    }

    // ------------------------------------------------------------------------------------------ sockets

    /**
     * A new TCP socket on this host, IPv6 if {@code address} is (or is unresolved to) an IPv6 address.
     *
     * @param address decides the family
     * @return the fd
     */
    @Override
    public int socket(InetSocketAddress address) {
        String subject = String.valueOf(address);
        return audited("socket", () -> {
            kernel.fds().reserve("socket", subject);
            boolean ipv6 = !address.isUnresolved() && address.getAddress() instanceof Inet6Address;
            SimSocket socket = kernel.network().open(kernel.socketHost(ipv6), ipv6, kernel.hasWorkerHosts());
            return kernel.install(new SocketDescription(kernel.network(), socket), "socket");
        }, Auditor.utf8(subject));
    }

    /**
     * Binds and listens; see {@link SimNetwork} for addresses and ports.
     *
     * @param fd a socket
     * @param address this host's address or the wildcard; port 0 for an ephemeral one
     * @param backlog recorded, not enforced
     * @throws KernelException {@code EADDRINUSE}, {@code EADDRNOTAVAIL}, {@code EINVAL} (already bound),
     *                         {@code ENOTSOCK}, {@code EBADF}
     */
    @Override
    public void bindAndListen(int fd, InetSocketAddress address, int backlog) {
        audited("bindAndListen", () -> kernel.network().bindAndListen(socket(fd, "bind"), address, backlog),
                Auditor.u32(fd), Auditor.utf8(String.valueOf(address)), Auditor.u32(backlog));
    }

    /**
     * Sets {@code TCP_NODELAY}: a no-op, since the simulated network sends every segment at once.
     *
     * @param fd a socket
     */
    @Override
    public void noDelay(int fd) {
        audited("noDelay", () -> socket(fd, "setsockopt"), Auditor.u32(fd));
    }

    /**
     * Sets {@code SO_KEEPALIVE} (recorded: the simulated network has no idle timeout to probe against) and, where
     * not 0, the send and receive buffer sizes the network's flow control bounds a connection by (see
     * {@link SimNetwork}): taken as given, where Linux doubles them.
     *
     * @param fd a socket, not yet connected or listening
     * @param keepAlive whether to probe an idle connection
     * @param sendBufferBytes the send buffer size, or 0 to keep it
     * @param receiveBufferBytes the receive buffer size, or 0 to keep it
     * @throws KernelException {@code ENOTSOCK}, {@code EBADF}
     */
    @Override
    public void setSocketOptions(int fd, boolean keepAlive, int sendBufferBytes, int receiveBufferBytes) {
        audited("setSocketOptions", () -> {
            SimSocket socket = socket(fd, "setsockopt");
            if (sendBufferBytes > 0) {
                socket.sendBufferBytes = sendBufferBytes;
            }
            if (receiveBufferBytes > 0) {
                socket.receiveBufferBytes = receiveBufferBytes;
            }
        }, Auditor.u32(fd), Auditor.u32(keepAlive ? 1 : 0), Auditor.u32(sendBufferBytes), Auditor.u32(receiveBufferBytes));
    }

    /**
     * The local address: the bound or connected one, or the wildcard with port 0 for a fresh socket.
     *
     * @param fd the socket
     * @return the address
     */
    @Override
    public InetSocketAddress localAddress(int fd) {
        return audited("localAddress", () -> {
            SimSocket socket = socket(fd, "getsockname");
            if (socket.local != null) {
                return socket.local;
            }
            return new InetSocketAddress(wildcard(socket.ipv6), 0);
        }, Auditor.u32(fd));
    }

    /**
     * The peer address of a connected socket.
     *
     * @param fd the socket
     * @return the address
     * @throws KernelException {@code ENOTCONN} if not connected
     */
    @Override
    public InetSocketAddress peerAddress(int fd) {
        return audited("peerAddress", () -> {
            SimSocket socket = socket(fd, "getpeername");
            if (socket.state != SimSocket.State.CONNECTED) {
                throw new KernelException(Errno.ENOTCONN, "getpeername", "fd " + fd);
            }
            return socket.remote;
        }, Auditor.u32(fd));
    }

    /**
     * Shuts down the writing side: the peer reads end of stream after the data already sent; later sends fail
     * {@code EPIPE}.
     *
     * @param fd the socket
     * @throws KernelException {@code ENOTCONN} if not connected
     */
    @Override
    public void shutdownWrite(int fd) {
        audited("shutdownWrite", () -> kernel.network().shutdownWrite(socket(fd, "shutdown")), Auditor.u32(fd));
    }

    /**
     * Encodes an address as Linux's {@code struct sockaddr_in} (16 bytes) or {@code sockaddr_in6} (28 bytes):
     * the family in native byte order, the port in network byte order, then the address.
     *
     * @param ring a {@link SimRing} of this kernel, whose memory to use
     * @param address a resolved address
     * @return the sockaddr, to be freed with {@link Ring#free} after the connect completes
     * @throws IllegalArgumentException if the ring is not a {@link SimRing} or the address is unresolved
     */
    @Override
    public MemorySegment sockaddr(Ring ring, InetSocketAddress address) {
        Objects.requireNonNull(address, "address");
        if (!(ring instanceof SimRing simRing)) {
            throw new IllegalArgumentException("SimSystemCalls.sockaddr needs a SimRing, got " + ring);
        }
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("SimSystemCalls.sockaddr needs a resolved address, got " + address);
        }
        byte[] ip = address.getAddress().getAddress();
        boolean ipv6 = ip.length == 16;
        MemorySegment segment = simRing.allocate(ipv6 ? SOCKADDR_IN6_BYTES : SOCKADDR_IN_BYTES);
        segment.set(NATIVE_SHORT, 0, ipv6 ? AF_INET6 : AF_INET);
        segment.set(NETWORK_SHORT, 2, (short) address.getPort());
        // sockaddr_in: sin_addr at 4; sockaddr_in6: sin6_flowinfo at 4 (zero), sin6_addr at 8.
        MemorySegment.copy(ip, 0, segment, ValueLayout.JAVA_BYTE, ipv6 ? 8 : 4, ip.length);
        kernel.auditor().record("sys", Auditor.utf8("sockaddr"), Auditor.utf8(String.valueOf(address)));
        return segment;
    }

    /**
     * Decodes a sockaddr written by {@link #sockaddr}.
     *
     * @return the address, or null if the bytes are not a valid sockaddr of that length
     */
    static InetSocketAddress decodeSockaddr(MemorySegment buffer, int length) {
        if (length < Short.BYTES || buffer.byteSize() < length) {
            return null;
        }
        short family = buffer.get(NATIVE_SHORT, 0);
        int port = Short.toUnsignedInt(buffer.get(NETWORK_SHORT, 2));
        byte[] ip;
        if (family == AF_INET && length >= SOCKADDR_IN_BYTES) {
            ip = new byte[4];
            MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, 4, ip, 0, 4);
        } else if (family == AF_INET6 && length >= SOCKADDR_IN6_BYTES) {
            ip = new byte[16];
            MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, 8, ip, 0, 16);
        } else {
            return null;
        }
        try {
            return new InetSocketAddress(InetAddress.getByAddress(ip), port);
        } catch (UnknownHostException impossibleForRawBytes) {
            return null;
        }
    }

    private static InetAddress wildcard(boolean ipv6) {
        try {
            return ipv6 ? Inet6Address.getByAddress(new byte[16]) : Inet4Address.getByAddress(new byte[4]);
        } catch (UnknownHostException impossibleForRawBytes) {
            throw new IllegalStateException(impossibleForRawBytes);
        }
    }

    /**
     * The fds of this kernel's open files and sockets, as {@link SimKernel#openFds()}.
     *
     * @return the fds, ascending
     */
    public List<Integer> openFds() {
        return new ArrayList<>(kernel.openFds());
    }
}
