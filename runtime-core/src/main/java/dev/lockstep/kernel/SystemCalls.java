package dev.lockstep.kernel;

import java.net.InetSocketAddress;
import java.util.List;

/**
 * The synchronous calls of a kernel: metadata, directories, locks and socket set-up. They may block the
 * calling thread briefly (an {@code fsync} of a directory). Every failure is a {@link KernelException} naming
 * the call, its subject (a path or an address) and the errno. Thread-safe.
 */
public interface SystemCalls {

    /** Open for reading and writing. */
    int O_RDWR = 02;
    /** Create if missing. */
    int O_CREAT = 0100;
    /** Fail if it exists (with {@link #O_CREAT}). */
    int O_EXCL = 0200;
    /** Open a directory. */
    int O_DIRECTORY = 0200000;
    /** Bypass the page cache. */
    int O_DIRECT = 040000;

    /**
     * Opens a file with {@code O_CLOEXEC} and the given flags, mode {@code 0644} when created.
     *
     * @param path the path
     * @param flags {@code O_*} flags
     * @return the fd
     */
    int open(String path, int flags);

    /**
     * Closes an fd.
     *
     * @param fd the fd
     */
    void close(int fd);

    /**
     * The size of an open file ({@code fstat}).
     *
     * @param fd the fd
     * @return the size in bytes
     */
    long size(int fd);

    /**
     * The alignment direct I/O on an open file needs — of file offsets, lengths and memory addresses alike: the
     * larger of {@code statx}'s {@code stx_dio_offset_align} and {@code stx_dio_mem_align}
     * ({@code STATX_DIOALIGN}), the file system's logical block size.
     *
     * @param fd an open file
     * @return a power of two; 0 if the file system cannot do direct I/O on it
     */
    int directIoAlignment(int fd);

    /**
     * Sets the size of an open file ({@code ftruncate}).
     *
     * @param fd the fd
     * @param length the new size
     */
    void truncate(int fd, long length);

    /**
     * {@code fsync} of an fd, typically a directory's.
     *
     * @param fd the fd
     */
    void fsync(int fd);

    /**
     * Flushes every dirty page of the file system holding {@code fd} ({@code syncfs}).
     *
     * @param fd any fd on that file system
     */
    void syncFileSystem(int fd);

    /**
     * Creates a directory, mode {@code 0755}.
     *
     * @param path the path
     */
    void mkdir(String path);

    /**
     * Removes a file.
     *
     * @param path the path
     */
    void unlink(String path);

    /**
     * Renames a file ({@code rename(2)}), atomically replacing a file at {@code to}. The change is durable once
     * the directory holding both names is synced.
     *
     * @param from the existing path
     * @param to the new path, in the same directory
     */
    void rename(String from, String to);

    /**
     * Removes an empty directory.
     *
     * @param path the path
     */
    void rmdir(String path);

    /**
     * The entries of a directory, without {@code .} and {@code ..}, sorted.
     *
     * @param path the directory
     * @return the names
     */
    List<String> list(String path);

    /**
     * Whether a path exists and is a directory.
     *
     * @param path the path
     * @return true for a directory; false if missing
     * @throws KernelException with {@code ENOTDIR} if it exists and is not a directory
     */
    boolean isDirectory(String path);

    /**
     * Takes an exclusive, non-blocking lock on a lock file, creating it.
     *
     * @param path the lock file
     * @return the fd holding the lock; closing it releases the lock
     * @throws KernelException with {@code EWOULDBLOCK} if someone else holds it
     */
    int lock(String path);

    /**
     * A new non-blocking TCP socket with {@code SOCK_CLOEXEC}, for the family of {@code address}.
     *
     * @param address decides IPv4 or IPv6
     * @return the fd
     */
    int socket(InetSocketAddress address);

    /**
     * Binds with {@code SO_REUSEADDR} and listens.
     *
     * @param fd a socket
     * @param address the local address
     * @param backlog the listen backlog
     */
    void bindAndListen(int fd, InetSocketAddress address, int backlog);

    /**
     * Sets {@code TCP_NODELAY}.
     *
     * @param fd a connected socket
     */
    void noDelay(int fd);

    /**
     * Sets the options of a socket not yet connected or listening: {@code SO_KEEPALIVE} and, where not 0,
     * {@code SO_SNDBUF} and {@code SO_RCVBUF}. A kernel without them refuses with {@code EOPNOTSUPP}.
     *
     * @param fd a socket
     * @param keepAlive whether to probe an idle connection
     * @param sendBufferBytes the send buffer size, or 0 to leave the system's
     * @param receiveBufferBytes the receive buffer size, or 0 to leave the system's
     * @throws KernelException naming the option the kernel refused
     */
    default void setSocketOptions(int fd, boolean keepAlive, int sendBufferBytes, int receiveBufferBytes) {
        throw new KernelException(Errno.EOPNOTSUPP, "setsockopt", "fd " + fd);
    }

    /**
     * The local address of a socket.
     *
     * @param fd the socket
     * @return the address
     */
    InetSocketAddress localAddress(int fd);

    /**
     * The peer address of a connected socket.
     *
     * @param fd the socket
     * @return the address
     */
    InetSocketAddress peerAddress(int fd);

    /**
     * Shuts down the writing side of a socket.
     *
     * @param fd the socket
     */
    void shutdownWrite(int fd);

    /**
     * Encodes an address as a {@code sockaddr} into {@code ring}'s memory for a {@link Opcode#CONNECT}.
     *
     * @param ring the ring whose memory to use
     * @param address the address
     * @return the encoded sockaddr; free with {@link Ring#free} after the connect completes
     */
    java.lang.foreign.MemorySegment sockaddr(Ring ring, InetSocketAddress address);
}
