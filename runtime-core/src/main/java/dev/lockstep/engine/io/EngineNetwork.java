package dev.lockstep.engine.io;

import dev.lockstep.BindFailedException;
import dev.lockstep.ClosedException;
import dev.lockstep.Connection;
import dev.lockstep.ConnectionFailedException;
import dev.lockstep.IoBuffer;
import dev.lockstep.Listener;
import dev.lockstep.Operation;
import dev.lockstep.SendFailedException;
import dev.lockstep.Sink;
import dev.lockstep.SocketOptions;
import dev.lockstep.engine.Engine;
import dev.lockstep.engine.buffer.PooledBuffer;
import dev.lockstep.engine.buffer.WorkerBuffers;
import dev.lockstep.engine.request.Immediate;
import dev.lockstep.engine.request.PendingSet;
import dev.lockstep.engine.request.Registration;
import dev.lockstep.engine.task.Fibers;
import dev.lockstep.engine.worker.Worker;
import dev.lockstep.engine.worker.WorkerMetrics;
import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;
import dev.lockstep.kernel.SystemCalls;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * {@code Network} over the kernel SPI, shared by both runtimes: bind and listen are synchronous calls,
 * accept, connect, send and receive are ring requests. Each side of a connection is poisoned independently by
 * a failed or cancelled request on it.
 */
public final class EngineNetwork {
    private static final int LISTEN_BACKLOG = 1024;
    /** Receive at least this much at a time; the surplus is buffered for later receives and peek. */
    static final int RECEIVE_CHUNK = 16 * 1024;
    /**
     * The largest native chunk a {@code recv} receives through: a longer receive takes several, so what a peer
     * that announced a long message and sent little costs is this, not the length.
     */
    static final int MAX_RECEIVE_CHUNK = 64 * 1024;

    private EngineNetwork() {
    }

    public static Operation<Listener> bind(Engine engine, InetSocketAddress address, SocketOptions options) {
        java.util.Objects.requireNonNull(address, "address");
        java.util.Objects.requireNonNull(options, "options");
        if (address.isUnresolved()) {
            // Refused here, not by the kernel: a kernel answer would differ between runtimes and come only at await.
            throw new IllegalArgumentException("address must be resolved, was " + address);
        }
        Worker worker = Worker.requireCurrent("Network.bind");
        SystemCalls system = engine.kernel().system();
        return worker.register(new Immediate("bind of " + address, () -> {
            int fd;
            try {
                fd = system.socket(address);
            } catch (KernelException failure) {
                throw new BindFailedException("bind of " + address + " failed: " + failure.getMessage(), failure);
            }
            try {
                // Before listen: Linux hands them to every accepted socket, and sizes its window from them.
                setBufferOptions(system, fd, options);
                system.bindAndListen(fd, address, LISTEN_BACKLOG);
                InetSocketAddress local = system.localAddress(fd);
                return new EngineListener(engine, new SharedFd(fd, system, "listener " + local), local, options);
            } catch (KernelException failure) {
                system.close(fd);
                throw new BindFailedException("bind of " + address + " failed: " + failure.getMessage(), failure);
            }
        }, cause -> new BindFailedException("bind of " + address + " failed inside the runtime: " + cause, cause)));
    }

    public static Operation<Connection> dial(Engine engine, InetSocketAddress address, SocketOptions options) {
        java.util.Objects.requireNonNull(address, "address");
        java.util.Objects.requireNonNull(options, "options");
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("address must be resolved, was " + address);
        }
        Worker worker = Worker.requireCurrent("Network.dial");
        return worker.register(new ConnectRequest(engine, address, options));
    }

    /**
     * Sets the options beside no-delay on a socket that is not yet connected or listening, if any differs from
     * the system's: a socket with the defaults makes no call, so it costs nothing (and the simulator records
     * nothing new).
     *
     * @throws KernelException if the kernel refuses one, naming it
     */
    static void setBufferOptions(SystemCalls system, int fd, SocketOptions options) {
        if (options.keepAlive() || options.sendBufferBytes() > 0 || options.receiveBufferBytes() > 0) {
            system.setSocketOptions(fd, options.keepAlive(), options.sendBufferBytes(), options.receiveBufferBytes());
        }
    }

    static Connection connection(Engine engine, int fd, InetSocketAddress peer, SocketOptions options) {
        SystemCalls system = engine.kernel().system();
        if (options.noDelay()) {
            try {
                system.noDelay(fd);
            } catch (KernelException ignored) {
                // TCP_NODELAY is a latency hint; a socket that refuses it still works.
            }
        }
        SharedFd shared = new SharedFd(fd, system, "connection to", peer);
        ConnectionSides sides = new ConnectionSides(shared, peer, system);
        Connection connection = new Connection(new EngineSink(sides), new EngineStream(sides, engine.receiveMemory()), peer);
        engine.own(shared, connection::close);
        return connection;
    }

    /** Connects a fresh non-blocking socket. */
    private static final class ConnectRequest extends RingRequest {
        private final Engine engine;
        private final InetSocketAddress address;
        private final SocketOptions options;
        private int fd = -1;

        ConnectRequest(Engine engine, InetSocketAddress address, SocketOptions options) {
            super(null);
            this.engine = engine;
            this.address = address;
            this.options = options;
        }

        @Override
        public void prepare(Submission submission, Ring ring) {
            SystemCalls system = engine.kernel().system();
            if (fd < 0) {
                try {
                    fd = system.socket(address);
                    setBufferOptions(system, fd, options);
                    buffer = system.sockaddr(ring, address);
                } catch (KernelException failure) {
                    // Reported by the completion of a no-op, so failure flows through the usual path.
                    submission.opcode = Opcode.NOP;
                    fail(new ConnectionFailedException("dial of " + address + " failed: " + failure.getMessage(),
                            failure));
                    return;
                }
            }
            submission.opcode = Opcode.CONNECT;
            submission.fd = fd;
            submission.buffer = buffer;
            submission.length = (int) buffer.byteSize();
        }

        @Override
        protected WorkerMetrics.Kind meterKind() {
            return WorkerMetrics.Kind.CONNECT;
        }

        @Override
        public boolean complete(int result) {
            if (result() != null) {
                return true;
            }
            if (isTransient(result)) {
                return false;
            }
            if (result < 0) {
                return fail(new ConnectionFailedException("dial of " + address + " failed: "
                        + Errno.describe(-result)));
            }
            int connected = fd;
            fd = -1;
            return succeed(connection(engine, connected, address, options));
        }

        @Override
        public RuntimeException internalFailure(Throwable cause) {
            return cause instanceof dev.lockstep.LockstepException typed ? typed
                    : new ConnectionFailedException(describe() + " failed inside the runtime: " + cause, cause);
        }

        @Override
        public Budget budget() {
            return Budget.OUTBOUND;
        }

        @Override
        public String describe() {
            return "dial of " + address;
        }

        @Override
        public void release(Ring ring) {
            super.release(ring);
            if (fd >= 0) {
                engine.kernel().system().close(fd);
                fd = -1;
            }
        }
    }

    /** A listening socket. */
    private static final class EngineListener implements Listener {
        private final Engine engine;
        private final SharedFd fd;
        private final InetSocketAddress local;
        /** The accepted connections' options; all but no-delay are set on the listening socket already. */
        private final SocketOptions options;
        /** Accepts admitted and not yet retired; closing the listener closes them (close means close). */
        private final PendingSet pending = new PendingSet();

        EngineListener(Engine engine, SharedFd fd, InetSocketAddress local, SocketOptions options) {
            this.engine = engine;
            this.options = options;
            this.fd = fd;
            this.local = local;
            engine.own(fd, this::close);
        }

        @Override
        public Operation<Connection> accept() {
            if (pending.isClosed()) {
                throw new ClosedException("listener " + local + " is closed");
            }
            Worker worker = Worker.requireCurrent("Listener.accept");
            SharedFd held = fd.acquire();
            // One accept per connection: its request and link are not reused, so each is in its first use.
            PendingSet.Link link = new PendingSet.Link();
            long use = link.begin();
            // The connection is made in a service turn: a kernel that names where descriptors come from names
            // this call instead.
            dev.lockstep.kernel.CallSite requestedFrom = engine.kernel().callerSite();
            Registration<Connection> operation = worker.registerCurrent(new RingRequest(held) {
                @Override
                public void release(Ring ring) {
                    super.release(ring);
                    pending.retired(link);
                }

                @Override
                public void prepare(Submission submission, Ring ring) {
                    submission.opcode = Opcode.ACCEPT;
                    submission.fd = file.fd();
                    submission.requestedFrom = requestedFrom;
                }

                @Override
                protected WorkerMetrics.Kind meterKind() {
                    return WorkerMetrics.Kind.ACCEPT;
                }

                @Override
                public boolean complete(int result) {
                    if (isTransient(result) || result == -Errno.ECONNABORTED) {
                        return false;
                    }
                    if (result < 0) {
                        return fail(new ConnectionFailedException("accept on " + local + " failed: "
                                + Errno.describe(-result)));
                    }
                    InetSocketAddress peer;
                    try {
                        peer = engine.kernel().system().peerAddress(result);
                    } catch (KernelException gone) {
                        // The peer left before we looked; its socket is useless. Wait for the next one.
                        engine.kernel().system().close(result);
                        return false;
                    }
                    return succeed(connection(engine, result, peer, options));
                }

                @Override
                public RuntimeException internalFailure(Throwable cause) {
                    return cause instanceof dev.lockstep.LockstepException typed ? typed
                            : new ConnectionFailedException(describe() + " failed inside the runtime: " + cause, cause);
                }

                @Override
                public void dropCompletion(int result) {
                    if (result >= 0) {
                        // Accepted after the accept was closed: nobody will see this socket.
                        engine.kernel().system().close(result);
                    }
                }

                @Override
                public Budget budget() {
                    return Budget.INBOUND;
                }

                @Override
                public String describe() {
                    return "accept on " + local;
                }
            });
            // A refused accept retired inside its registration: nothing to track.
            return operation.owner() == null ? operation : pending.track(link, use, operation);
        }

        @Override
        public InetSocketAddress localAddress() {
            return local;
        }

        /**
         * Stops accepting: every pending accept is closed — its kernel accept cancelled, its awaiter woken with
         * {@link ClosedException}, a connection it already accepted and nobody took closed — and the socket
         * closes once the last of them retired, so nothing more is accepted.
         */
        @Override
        public void close() {
            if (pending.closeAll()) {
                fd.release();
            }
        }
    }

    /** The sending side. */
    private static final class EngineSink implements Sink {
        private final ConnectionSides sides;
        private volatile String poisoned;

        EngineSink(ConnectionSides sides) {
            this.sides = sides;
        }

        @Override
        public Operation<Void> send(byte[]... chunks) {
            java.util.Objects.requireNonNull(chunks, "chunks");
            if (sides.isClosed(ConnectionSides.SINK)) {
                throw new ClosedException("sink to " + sides.peer + " is closed");
            }
            Worker worker = Worker.requireCurrent("Sink.send");
            if (poisoned != null) {
                return worker.register(new Immediate("send to " + sides.peer, () -> {
                    throw new ClosedException("sink to " + sides.peer + " is unusable after " + poisoned);
                }));
            }
            long total = 0;
            for (byte[] chunk : chunks) {
                total += java.util.Objects.requireNonNull(chunk, "chunk").length;
            }
            if (total > MAX_SEND_BYTES) {
                throw new IllegalArgumentException("send length must be at most Sink.MAX_SEND_BYTES ("
                        + MAX_SEND_BYTES + "), was " + total);
            }
            if (total == 0) {
                return worker.register(new Immediate("empty send to " + sides.peer, () -> null));
            }
            SendRequest request = SendRequest.of(this, worker, (int) total);
            request.copy(worker, chunks);
            return worker.registerCurrent(request);
        }

        @Override
        public Operation<Void> sendFrom(IoBuffer from, int at, int length) {
            return sendFrom(from, at, length, null);
        }

        @Override
        public void sendFully(IoBuffer from, int at, int length) {
            Registration<Object> reuse = Fibers.lendReusable();
            try {
                Registration.awaitAndClose(sendFrom(from, at, length, reuse));
            } finally {
                Registration.giveBack(reuse);
            }
        }

        /** {@link #sendFrom(IoBuffer, int, int)}, admitted with {@code reuse} when it is not null. */
        private Operation<Void> sendFrom(IoBuffer from, int at, int length, Registration<?> reuse) {
            if (length < 0 || length > MAX_SEND_BYTES) {
                throw new IllegalArgumentException("send length must be in [0, Sink.MAX_SEND_BYTES ("
                        + MAX_SEND_BYTES + ")], was " + length);
            }
            if (sides.isClosed(ConnectionSides.SINK)) {
                throw new ClosedException("sink to " + sides.peer + " is closed");
            }
            Worker worker = Worker.requireCurrent("Sink.sendFrom");
            PooledBuffer buffer = WorkerBuffers.check(worker, from, at, length, "Sink.sendFrom");
            if (poisoned != null) {
                return worker.register(new Immediate("send to " + sides.peer, () -> {
                    throw new ClosedException("sink to " + sides.peer + " is unusable after " + poisoned);
                }));
            }
            if (length == 0) {
                return worker.register(new Immediate("empty send to " + sides.peer, () -> null));
            }
            // The request (and with it the fd reference) first: a connection closed meanwhile throws there, with
            // the buffer still the caller's; marked in flight before, it would stay so for good.
            SendRequest request = SendRequest.of(this, worker, length);
            buffer.markInFlight();
            request.lend(buffer, at);
            return worker.registerCurrent(request, reuse);
        }

        @Override
        public void close() {
            sides.closeSink();
        }
    }

    /**
     * A send of every byte, from the caller's buffer or a pooled copy; resubmitted after short sends. Reused
     * through its worker's {@link dev.lockstep.engine.worker.RetiredRequests#give(SendRequest)} once retired.
     */
    public static final class SendRequest extends OutboundRequest {
        private final Worker home;
        private EngineSink sink;

        private SendRequest(Worker home) {
            this.home = home;
        }

        /** A send on {@code sink} from {@code worker}, the calling fiber's: a retired one of the worker's, or new. */
        static SendRequest of(EngineSink sink, Worker worker, int count) {
            SharedFd held = sink.sides.fd.acquire(); // before a recycled request is taken: a closed one throws here
            SendRequest request = worker.retired().send();
            if (request == null) {
                request = new SendRequest(worker);
            }
            request.start(held, count);
            request.sink = sink;
            return request;
        }

        /** A send usually finds room in the socket's buffer, and the kernel copies it before it returns. */
        @Override
        public boolean completesAtSubmission() {
            return true;
        }

        @Override
        public void prepare(Submission submission, Ring ring) {
            submission.opcode = Opcode.SEND;
            submission.fd = file.fd();
            submission.buffer = remaining();
            submission.length = count - done;
        }

        @Override
        protected WorkerMetrics.Kind meterKind() {
            return WorkerMetrics.Kind.SEND;
        }

        @Override
        public boolean complete(int result) {
            if (isTransient(result)) {
                return false;
            }
            if (result <= 0) {
                sink.poisoned = "a failed send (" + (result == 0 ? "nothing sent" : Errno.describe(-result)) + ")";
                landLent();
                return fail(new SendFailedException("send of " + count + " bytes to " + sink.sides.peer
                        + " failed after " + done + " bytes: "
                        + (result == 0 ? "nothing sent" : Errno.describe(-result))));
            }
            done += result;
            if (done < count) {
                return false;
            }
            landLent();
            return succeed(null);
        }

        @Override
        public void closedEarly() {
            sink.poisoned = "a cancelled send";
        }

        @Override
        public RuntimeException internalFailure(Throwable cause) {
            sink.poisoned = "a send that failed inside the runtime";
            return cause instanceof dev.lockstep.LockstepException typed ? typed
                    : new SendFailedException(describe() + " failed inside the runtime: " + cause, cause);
        }

        @Override
        public void release(Ring ring) {
            super.release(ring);
            if (reusable()) {
                home.retired().give(this);
            }
        }

        @Override
        public Budget budget() {
            return Budget.OUTBOUND;
        }

        @Override
        public String describe() {
            return "send of " + count + " bytes to " + sink.sides.peer;
        }
    }
}
