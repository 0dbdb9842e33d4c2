package dev.lockstep.engine;

import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.SystemCalls;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * System calls for fd bookkeeping tests over one fd: counts {@code close} and {@code shutdownWrite}, and a
 * shutdown that came after the close (the kernel may have given the number to another file by then); refuses
 * the rest.
 */
final class CountingSystemCalls implements SystemCalls {
    final AtomicInteger closes = new AtomicInteger();
    final AtomicInteger shutdowns = new AtomicInteger();
    final AtomicInteger shutdownsAfterClose = new AtomicInteger();

    @Override
    public void close(int fd) {
        closes.incrementAndGet();
    }

    @Override
    public void shutdownWrite(int fd) {
        shutdowns.incrementAndGet();
        if (closes.get() > 0) {
            shutdownsAfterClose.incrementAndGet();
        }
    }

    private static UnsupportedOperationException refused(String call) {
        return new UnsupportedOperationException(call + " is not part of this test");
    }

    @Override
    public int open(String path, int flags) {
        throw refused("open");
    }

    @Override
    public long size(int fd) {
        throw refused("size");
    }

    @Override
    public int directIoAlignment(int fd) {
        throw refused("directIoAlignment");
    }

    @Override
    public void truncate(int fd, long length) {
        throw refused("truncate");
    }

    @Override
    public void fsync(int fd) {
        throw refused("fsync");
    }

    @Override
    public void syncFileSystem(int fd) {
        throw refused("syncFileSystem");
    }

    @Override
    public void mkdir(String path) {
        throw refused("mkdir");
    }

    @Override
    public void unlink(String path) {
        throw refused("unlink");
    }

    @Override
    public void rename(String from, String to) {
        throw refused("rename");
    }

    @Override
    public void rmdir(String path) {
        throw refused("rmdir");
    }

    @Override
    public List<String> list(String path) {
        throw refused("list");
    }

    @Override
    public boolean isDirectory(String path) {
        throw refused("isDirectory");
    }

    @Override
    public int lock(String path) {
        throw refused("lock");
    }

    @Override
    public int socket(InetSocketAddress address) {
        throw refused("socket");
    }

    @Override
    public void bindAndListen(int fd, InetSocketAddress address, int backlog) {
        throw refused("bindAndListen");
    }

    @Override
    public void noDelay(int fd) {
        throw refused("noDelay");
    }

    @Override
    public InetSocketAddress localAddress(int fd) {
        throw refused("localAddress");
    }

    @Override
    public InetSocketAddress peerAddress(int fd) {
        throw refused("peerAddress");
    }

    @Override
    public MemorySegment sockaddr(Ring ring, InetSocketAddress address) {
        throw refused("sockaddr");
    }
}
