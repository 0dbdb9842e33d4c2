package dev.lockstep.engine;

import dev.lockstep.ConnectionFailedException;
import dev.lockstep.Context;
import dev.lockstep.Operation;
import dev.lockstep.RecvFailedException;
import dev.lockstep.SendFailedException;
import dev.lockstep.engine.request.Registration;
import dev.lockstep.engine.request.Request;
import dev.lockstep.engine.worker.Worker;
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

    /**
     * A raw ring request of the pair: its description, and what it holds until the driver releases it (a native
     * buffer, a reference to the fd it names, if any).
     */
    private abstract static class RawRequest extends Request {
        /** The fd named, whose reference the request holds; null for none (an accept names the listener). */
        final RawFd fd;
        private final String description;
        /** Ring memory the submission points at, allocated at the first prepare; freed on release. */
        MemorySegment buffer;

        RawRequest(RawFd fd, String description) {
            this.fd = fd;
            this.description = description;
        }

        /** Whether the kernel's result asks for the same submission again. */
        static boolean retried(int result) {
            return result == -Errno.EINTR || result == -Errno.EAGAIN;
        }

        @Override
        public final Kind kind() {
            return Kind.RING;
        }

        @Override
        public final String describe() {
            return description;
        }

        @Override
        public void release(Ring ring) {
            if (buffer != null) {
                ring.free(buffer);
                buffer = null;
            }
            if (fd != null) {
                fd.release();
            }
        }
    }

    /** A connect of the local socket. */
    private static final class ConnectRequest extends RawRequest {
        private final InetSocketAddress address;

        ConnectRequest(RawFd fd, InetSocketAddress address) {
            super(fd, "test connect to " + address);
            this.address = address;
        }

        @Override
        public void prepare(Submission submission, Ring ring) {
            if (buffer == null) {
                buffer = fd.system.sockaddr(ring, address);
            }
            submission.opcode = Opcode.CONNECT;
            submission.fd = fd.fd();
            submission.buffer = buffer;
            submission.length = (int) buffer.byteSize();
        }

        @Override
        public boolean complete(int result) {
            if (retried(result)) {
                return false;
            }
            return result < 0 ? fail(new ConnectionFailedException(describe() + ": " + Errno.describe(-result)))
                    : succeed(null);
        }
    }

    /** An accept on the test's listener; yields the accepted fd. */
    private static final class AcceptRequest extends RawRequest {
        private final int listener;

        AcceptRequest(int listener, InetSocketAddress address) {
            super(null, "test accept on " + address);
            this.listener = listener;
        }

        @Override
        public void prepare(Submission submission, Ring ring) {
            submission.opcode = Opcode.ACCEPT;
            submission.fd = listener;
        }

        @Override
        public boolean complete(int result) {
            if (retried(result) || result == -Errno.ECONNABORTED) {
                return false;
            }
            return result < 0 ? fail(new ConnectionFailedException(describe() + ": " + Errno.describe(-result)))
                    : succeed(result);
        }
    }

    /** A transfer of exactly {@code length} bytes; a short one is resubmitted for the rest. */
    private abstract static class ExactTransfer extends RawRequest {
        private final Opcode opcode;
        final int length;
        private int done;

        ExactTransfer(RawFd fd, Opcode opcode, int length, String description) {
            super(fd, description);
            this.opcode = opcode;
            this.length = length;
        }

        /** The buffer of {@code length} bytes, allocated from {@code ring} at the first prepare. */
        abstract MemorySegment allocate(Ring ring);

        /** The failure of a result {@code <= 0}. */
        abstract RuntimeException failure(int result);

        /** The operation's value once every byte moved. */
        abstract Object value();

        @Override
        public void prepare(Submission submission, Ring ring) {
            if (buffer == null) {
                buffer = allocate(ring);
            }
            submission.opcode = opcode;
            submission.fd = fd.fd();
            submission.buffer = buffer.asSlice(done);
            submission.length = length - done;
        }

        @Override
        public boolean complete(int result) {
            if (retried(result)) {
                return false;
            }
            if (result <= 0) {
                return fail(failure(result));
            }
            done += result;
            return done < length ? false : succeed(value());
        }
    }

    /** An exact receive of {@code length} bytes; a short receive is resubmitted. */
    static final class RecvRequest extends ExactTransfer {
        /** Every completion's result, in order, or null: how many pieces the kernel took. */
        private final java.util.List<Integer> pieces;

        RecvRequest(RawFd fd, int length) {
            this(fd, length, null);
        }

        RecvRequest(RawFd fd, int length, java.util.List<Integer> pieces) {
            super(fd, Opcode.RECV, length, "test receive of " + length + " bytes on " + fd);
            this.pieces = pieces;
        }

        @Override
        MemorySegment allocate(Ring ring) {
            return ring.allocate(length);
        }

        @Override
        public boolean complete(int result) {
            if (pieces != null) {
                pieces.add(result);
            }
            return super.complete(result);
        }

        @Override
        RuntimeException failure(int result) {
            return new RecvFailedException("test receive on " + fd + ": "
                    + (result == 0 ? "end of stream" : Errno.describe(-result)));
        }

        @Override
        Object value() {
            return buffer.toArray(ValueLayout.JAVA_BYTE);
        }
    }

    /** A send of every byte; a short send is resubmitted. Cancellable, like the seed's send. */
    static final class SendRequest extends ExactTransfer {
        private final byte[] data;

        SendRequest(RawFd fd, byte[] data) {
            super(fd, Opcode.SEND, data.length, "test send of " + data.length + " bytes on " + fd);
            this.data = data;
        }

        @Override
        MemorySegment allocate(Ring ring) {
            MemorySegment memory = ring.allocate(length);
            MemorySegment.copy(data, 0, memory, ValueLayout.JAVA_BYTE, 0, length);
            return memory;
        }

        @Override
        RuntimeException failure(int result) {
            return new SendFailedException("test send on " + fd + ": "
                    + (result == 0 ? "nothing sent" : Errno.describe(-result)));
        }

        @Override
        Object value() {
            return null;
        }
    }
}
