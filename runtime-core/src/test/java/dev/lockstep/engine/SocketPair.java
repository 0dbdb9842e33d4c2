package dev.lockstep.engine;

import dev.lockstep.ConnectionFailedException;
import dev.lockstep.Context;
import dev.lockstep.Operation;
import dev.lockstep.RecvFailedException;
import dev.lockstep.SendFailedException;
import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;
import dev.lockstep.kernel.SystemCalls;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The seed's {@code socket()}: a connected pair whose local end is shared by raw one-byte requests and whose
 * peer the test writes directly.
 *
 * <p>The pair is made on loopback with the runtime's own calls: a listener bound on port 0 of the worker's
 * loopback address ({@link WhiteBoxRuntime#localHost()}: {@code 127.0.0.1}, or the worker's simulated host), a
 * connect, then an accept — the accepted socket is the peer. It is built from the kernel SPI (the same
 * {@code socket}/{@code bindAndListen} calls and {@code CONNECT}/{@code ACCEPT} requests {@code ctx.bind} and
 * {@code ctx.dial} make), not from {@code ctx.bind}/{@code ctx.dial}, because the seed's requests need what the
 * public {@code Connection} rightly hides: (1) a raw fd shared by many requests, where a timed-out or cancelled
 * receive leaves the next receive working (the public {@code Stream} is poisoned by both), (2) receives with
 * a deadline, and (3) a peer written past the ring, so a ring of size 1 whose only slot holds a blocked
 * receive can still be fed. The connect is awaited before the accept is registered, so the pair is made with a
 * ring of 1 too.
 *
 * <p>{@link RawFd} is the Java form of the seed's {@code Arc<OwnedFd>}: every request holds a reference until
 * the driver releases it, and {@link RawFd#held()} is the seed's {@code Arc::strong_count(&fd) - 1}.
 */
public final class SocketPair implements AutoCloseable {
    private final WhiteBoxRuntime probe;
    private final RawFd local;
    private final RawFd peer;

    private SocketPair(WhiteBoxRuntime probe, RawFd local, RawFd peer) {
        this.probe = probe;
        this.local = local;
        this.peer = peer;
    }

    static SocketPair open(WhiteBoxRuntime probe, Context ctx) {
        Worker worker = probe.worker();
        SystemCalls system = worker.engine().kernel().system();
        InetSocketAddress any = new InetSocketAddress(probe.localHost(), 0);
        int listener = system.socket(any);
        try {
            system.bindAndListen(listener, any, 16);
            InetSocketAddress address = system.localAddress(listener);
            int client = system.socket(address);
            RawFd local = new RawFd(client, system, "local end of " + address);
            try {
                Operation<Void> connect = worker.register(new ConnectRequest(local.acquire(), address));
                connect.await();
                Operation<Integer> accept = worker.register(new AcceptRequest(listener, address));
                int accepted = accept.await();
                return new SocketPair(probe, local, new RawFd(accepted, system, "peer of " + address));
            } catch (RuntimeException failure) {
                local.close();
                throw failure;
            }
        } finally {
            system.close(listener);
        }
    }

    /**
     * The local end, shared by the requests.
     *
     * @return the fd
     */
    public RawFd fd() {
        return local;
    }

    /**
     * The peer end.
     *
     * @return the fd
     */
    public RawFd peer() {
        return peer;
    }

    /**
     * Registers a one-byte exact receive on the local end: the seed's {@code recv(fd, deadline)} without its
     * deadline (a deadline is a {@code Clock.timeout} around the await).
     *
     * @return the operation
     */
    public Registration<byte[]> recv() {
        return probe.worker().register(new RecvRequest(local.acquire(), 1));
    }

    /**
     * Registers a one-byte send on the local end: the seed's {@code send(fd)}.
     *
     * @return the operation
     */
    public Registration<Void> send() {
        return probe.worker().register(new SendRequest(local.acquire(), new byte[] {1}));
    }

    /**
     * Writes the peer directly: the seed's {@code peer.write_all}.
     *
     * @param data the bytes
     */
    public void writePeer(byte[] data) {
        probe.writeDirect(peer.fd(), data);
    }

    /** Drops the test's references: each fd closes once no request holds it. Idempotent. */
    @Override
    public void close() {
        peer.close();
        local.close();
    }

    /** An fd shared by its owner and the requests naming it; closed when both let go. Thread-safe. */
    public static final class RawFd {
        private final int fd;
        private final SystemCalls system;
        private final String subject;
        private final AtomicInteger held = new AtomicInteger();
        private final AtomicInteger closes = new AtomicInteger();
        private volatile boolean ownerClosed;

        RawFd(int fd, SystemCalls system, String subject) {
            this.fd = fd;
            this.system = system;
            this.subject = subject;
        }

        /**
         * The fd number.
         *
         * @return the fd
         */
        public int fd() {
            return fd;
        }

        RawFd acquire() {
            held.incrementAndGet();
            return this;
        }

        void release() {
            if (held.decrementAndGet() == 0 && ownerClosed) {
                closeOnce();
            }
        }

        /**
         * References held by requests not yet released.
         *
         * @return the count; 0 once every request retired
         */
        public int held() {
            return held.get();
        }

        /**
         * Whether the fd was closed (owner closed and no request held it).
         *
         * @return true once closed
         */
        public boolean isClosed() {
            return closes.get() > 0;
        }

        /** The owner lets go. Idempotent. */
        public void close() {
            if (!ownerClosed) {
                ownerClosed = true;
                if (held.get() == 0) {
                    closeOnce();
                }
            }
        }

        private void closeOnce() {
            if (closes.compareAndSet(0, 1)) {
                system.close(fd);
            }
        }

        @Override
        public String toString() {
            return subject + " (fd " + fd + ", held by " + held + ")";
        }
    }

    /** A connect of the local socket. */
    private static final class ConnectRequest extends Request {
        private final RawFd fd;
        private final InetSocketAddress address;
        private MemorySegment sockaddr;

        ConnectRequest(RawFd fd, InetSocketAddress address) {
            this.fd = fd;
            this.address = address;
        }

        @Override
        public Kind kind() {
            return Kind.RING;
        }

        @Override
        public void prepare(Submission submission, Ring ring) {
            if (sockaddr == null) {
                sockaddr = fd.system.sockaddr(ring, address);
            }
            submission.opcode = Opcode.CONNECT;
            submission.fd = fd.fd();
            submission.buffer = sockaddr;
            submission.length = (int) sockaddr.byteSize();
        }

        @Override
        public boolean complete(int result) {
            if (result == -Errno.EINTR || result == -Errno.EAGAIN) {
                return false;
            }
            return result < 0 ? fail(new ConnectionFailedException("test connect to " + address + ": "
                    + Errno.describe(-result))) : succeed(null);
        }

        @Override
        public String describe() {
            return "test connect to " + address;
        }

        @Override
        public void release(Ring ring) {
            if (sockaddr != null) {
                ring.free(sockaddr);
                sockaddr = null;
            }
            fd.release();
        }
    }

    /** An accept on the test's listener; yields the accepted fd. */
    private static final class AcceptRequest extends Request {
        private final int listener;
        private final InetSocketAddress address;

        AcceptRequest(int listener, InetSocketAddress address) {
            this.listener = listener;
            this.address = address;
        }

        @Override
        public Kind kind() {
            return Kind.RING;
        }

        @Override
        public void prepare(Submission submission, Ring ring) {
            submission.opcode = Opcode.ACCEPT;
            submission.fd = listener;
        }

        @Override
        public boolean complete(int result) {
            if (result == -Errno.EINTR || result == -Errno.EAGAIN || result == -Errno.ECONNABORTED) {
                return false;
            }
            return result < 0 ? fail(new ConnectionFailedException("test accept on " + address + ": "
                    + Errno.describe(-result))) : succeed(result);
        }

        @Override
        public String describe() {
            return "test accept on " + address;
        }
    }

    /** An exact receive of {@code length} bytes; a short receive is resubmitted. */
    static final class RecvRequest extends Request {
        private final RawFd fd;
        private final int length;
        /** Every completion's result, in order, or null: how many pieces the kernel took. */
        private final java.util.List<Integer> pieces;
        private MemorySegment buffer;
        private int done;

        RecvRequest(RawFd fd, int length) {
            this(fd, length, null);
        }

        RecvRequest(RawFd fd, int length, java.util.List<Integer> pieces) {
            this.fd = fd;
            this.length = length;
            this.pieces = pieces;
        }

        @Override
        public Kind kind() {
            return Kind.RING;
        }

        @Override
        public void prepare(Submission submission, Ring ring) {
            if (buffer == null) {
                buffer = ring.allocate(length);
            }
            submission.opcode = Opcode.RECV;
            submission.fd = fd.fd();
            submission.buffer = buffer.asSlice(done);
            submission.length = length - done;
        }

        @Override
        public boolean complete(int result) {
            if (pieces != null) {
                pieces.add(result);
            }
            if (result == -Errno.EINTR || result == -Errno.EAGAIN) {
                return false;
            }
            if (result <= 0) {
                return fail(new RecvFailedException("test receive on " + fd + ": "
                        + (result == 0 ? "end of stream" : Errno.describe(-result))));
            }
            done += result;
            if (done < length) {
                return false;
            }
            return succeed(buffer.toArray(ValueLayout.JAVA_BYTE));
        }

        @Override
        public String describe() {
            return "test receive of " + length + " bytes on " + fd;
        }

        @Override
        public void release(Ring ring) {
            if (buffer != null) {
                ring.free(buffer);
                buffer = null;
            }
            fd.release();
        }
    }

    /** A send of every byte; a short send is resubmitted. Cancellable, like the seed's send. */
    static final class SendRequest extends Request {
        private final RawFd fd;
        private final byte[] data;
        private MemorySegment buffer;
        private int done;

        SendRequest(RawFd fd, byte[] data) {
            this.fd = fd;
            this.data = data;
        }

        @Override
        public Kind kind() {
            return Kind.RING;
        }

        @Override
        public void prepare(Submission submission, Ring ring) {
            if (buffer == null) {
                buffer = ring.allocate(data.length);
                MemorySegment.copy(data, 0, buffer, ValueLayout.JAVA_BYTE, 0, data.length);
            }
            submission.opcode = Opcode.SEND;
            submission.fd = fd.fd();
            submission.buffer = buffer.asSlice(done);
            submission.length = data.length - done;
        }

        @Override
        public boolean complete(int result) {
            if (result == -Errno.EINTR || result == -Errno.EAGAIN) {
                return false;
            }
            if (result <= 0) {
                return fail(new SendFailedException("test send on " + fd + ": "
                        + (result == 0 ? "nothing sent" : Errno.describe(-result))));
            }
            done += result;
            return done < data.length ? false : succeed(null);
        }

        @Override
        public String describe() {
            return "test send of " + data.length + " bytes on " + fd;
        }

        @Override
        public void release(Ring ring) {
            if (buffer != null) {
                ring.free(buffer);
                buffer = null;
            }
            fd.release();
        }
    }
}
