package dev.lockstep.bench;

import dev.lockstep.Blob;
import dev.lockstep.Connection;
import dev.lockstep.Handle;
import dev.lockstep.IoBuffer;
import dev.lockstep.Listener;
import dev.lockstep.Operation;
import dev.lockstep.Task;
import dev.lockstep.WriteOptions;
import dev.lockstep.engine.request.Request;
import dev.lockstep.engine.worker.Worker;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;
import dev.lockstep.uring.UringRunner;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * The Java programs {@link Bench} runs, one case per JVM so that each starts cold in the same way and its
 * allocation is its own. Each measuring program warms up, then measures for a fixed time and prints one line
 * {@code RESULT ops=N seconds=S alloc=BYTES cpu=NANOS}, where {@code alloc} is what every thread of the JVM
 * allocated on the heap during the measured window
 * ({@code com.sun.management.ThreadMXBean#getTotalThreadAllocatedBytes}, the counter JMH's {@code -prof gc} reads
 * for {@code gc.alloc.rate.norm}) and {@code cpu} the CPU time its Java threads
 * used in that window ({@link Window#applicationCpuNanos}): on a shared machine the CPU time an operation costs says
 * more than how many fit in a second of wall time.
 *
 * <p>Every measuring loop calls a method per operation (per round for {@code nop-one-fiber}, per message for the
 * echo servers) that holds the loop's body: called again and again, that method is compiled as any other method
 * is, after a few thousand operations, and the measured code with it. A body written inside the one loop that
 * runs for the whole program would be compiled only by on-stack replacement, which on a loaded machine may come
 * after a short warm-up has ended, and the window would measure the JIT instead of the compiled code.
 *
 * <p>Usage: {@code BenchPrograms CASE ARGS...}:
 * <ul>
 *   <li>{@code nop DEPTH WARMUP SECONDS}: one UringRunner worker, DEPTH fibers each registering a NOP and
 *       awaiting it, in a loop (the engine's ring path: admission, submission, io_uring_enter, completion, fiber
 *       park and resume).</li>
 *   <li>{@code nop-one-fiber DEPTH WARMUP SECONDS}: one UringRunner worker, one fiber keeping DEPTH NOPs in
 *       flight: it awaits the oldest, counts it and registers the next, as the liburing program keeps its queue
 *       full from one thread.</li>
 *   <li>{@code warm-read lockstep|lockstep-buffer|filechannel PARALLEL FILE_MIB DIR WARMUP SECONDS}: 4 KiB random reads from a
 *       file in the page cache: {@code Blob.readAt} (or, lockstep-buffer, {@code Blob.readFully} into a reused
 *       {@code IoBuffer}) from PARALLEL fibers of one worker, or
 *       {@code FileChannel.read} into a reused heap buffer from 1 platform thread (PARALLEL 1) or PARALLEL
 *       virtual threads.</li>
 *   <li>{@code append-sync lockstep|lockstep-sync-write|filechannel WRITERS DIR WARMUP SECONDS}: WRITERS writers
 *       each appending 4 KiB to one file and waiting for a sync before the next: {@code writeAt} then
 *       {@code sync} from fibers of one worker on one blob (lockstep-sync-write: one {@code writeAt} with
 *       {@code WriteOptions.SYNC} instead), or {@code write} then {@code force(false)} from platform threads on
 *       one channel. An op is one acknowledged append.</li>
 *   <li>{@code echo-server lockstep|lockstep-buffer|lockstep-spread|lockstep-worker0|netty-epoll|netty-io_uring|}
 *       {@code netty-io_uring-spread|virtual-threads SIZE}: an echo server on a free loopback port.
 *       {@code lockstep}, {@code lockstep-buffer}, {@code netty-epoll} and {@code netty-io_uring} have one event
 *       loop (one Lockstep worker, one Netty loop) and {@code virtual-threads} the virtual threads' default
 *       scheduler; {@code lockstep-spread} and {@code lockstep-worker0} have a worker per CPU, the connections
 *       spread over them by Lockstep's default placement or all on worker 0 ({@code spawnOn(0)});
 *       {@code netty-io_uring-spread} has an event loop per CPU, the channels spread round-robin. {@code lockstep}
 *       receives a new {@code byte[]} and sends it, {@code lockstep-buffer} receives into an {@code IoBuffer} of
 *       the connection's and sends from it ({@code recvFully} and {@code sendFully}: no operation handle per
 *       call). Prints {@code READY PORT}; then every line on stdin is answered with {@code ALLOC BYTES CPU_NANOS};
 *       end of input stops it.</li>
 * </ul>
 */
public final class BenchPrograms {
    private static final int BLOCK = 4096;

    private BenchPrograms() {
    }

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "nop" -> nop(Integer.parseInt(args[1]), seconds(args[2]), seconds(args[3]));
            case "nop-one-fiber" -> nopOneFiber(Integer.parseInt(args[1]), seconds(args[2]), seconds(args[3]));
            case "warm-read" -> warmRead(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]),
                    Path.of(args[4]), seconds(args[5]), seconds(args[6]));
            case "append-sync" -> appendSync(args[1], Integer.parseInt(args[2]), Path.of(args[3]), seconds(args[4]),
                    seconds(args[5]));
            case "echo-server" -> echoServer(args[1], Integer.parseInt(args[2]));
            default -> throw new IllegalArgumentException("unknown case " + args[0]
                    + "; known: nop, nop-one-fiber, warm-read, append-sync, echo-server");
        }
    }

    private static long seconds(String value) {
        return (long) (Double.parseDouble(value) * 1e9);
    }


    // ---- NOP ----

    /** A no-op through the ring: the smallest request the engine has. */
    static final class Nop extends Request {
        @Override
        public Kind kind() {
            return Kind.RING;
        }

        @Override
        public void prepare(Submission submission, Ring ring) {
            submission.opcode = Opcode.NOP;
        }

        @Override
        public boolean completesAtSubmission() {
            return true;
        }

        @Override
        public boolean complete(int result) {
            return succeed(null);
        }

        @Override
        public String describe() {
            return "nop";
        }
    }

    private static void nop(int depth, long warmup, long measure) {
        Window window = new Window(warmup, measure);
        UringRunner.builder().workers(1).ringEntries(64).build().start(ctx -> {
            List<Handle<Void>> loops = new ArrayList<>();
            for (int i = 0; i < depth; i++) {
                loops.add(ctx.child("nop" + i).spawn(c -> {
                    Worker worker = Worker.current();
                    while (oneNop(window, worker)) {
                        // the next operation
                    }
                    return null;
                }));
            }
            loops.forEach(Handle::await);
            return null;
        });
        window.report();
    }

    /** One NOP registered, awaited and counted; false, with nothing done, once the window is over. */
    private static boolean oneNop(Window window, Worker worker) {
        if (!window.running()) {
            return false;
        }
        worker.<Void>register(new Nop()).await();
        window.count();
        return true;
    }

    private static void nopOneFiber(int depth, long warmup, long measure) {
        Window window = new Window(warmup, measure);
        UringRunner.builder().workers(1).ringEntries(64).build().start(ctx -> {
            Worker worker = Worker.current();
            List<Operation<Void>> inFlight = new ArrayList<>(depth);
            for (int i = 0; i < depth; i++) {
                inFlight.add(worker.register(new Nop()));
            }
            while (nopRound(window, worker, inFlight)) {
                // the next round
            }
            inFlight.forEach(Operation::await);
            return null;
        });
        window.report();
    }

    /**
     * One round over {@code inFlight}: each NOP awaited and replaced by a new one, the round counted; false, with
     * nothing done, once the window is over.
     */
    private static boolean nopRound(Window window, Worker worker, List<Operation<Void>> inFlight) {
        if (!window.running()) {
            return false;
        }
        int depth = inFlight.size();
        for (int i = 0; i < depth; i++) {
            inFlight.get(i).await();
            inFlight.set(i, worker.register(new Nop()));
        }
        window.count(depth);
        return true;
    }

    // ---- warm 4 KiB reads ----

    private static void warmRead(String engine, int parallel, int fileMib, Path dir, long warmup, long measure)
            throws Exception {
        long blocks = ((long) fileMib << 20) / BLOCK;
        Files.createDirectories(dir);
        Window window;
        if (engine.startsWith("lockstep")) {
            // "lockstep-buffer" reads into an IoBuffer each reader reuses (readFully: no operation handle per read);
            // "lockstep" returns a new byte[].
            boolean intoBuffer = engine.equals("lockstep-buffer");
            Path storage = dir.resolve("lockstep-warm");
            window = UringRunner.builder().workers(1).ringEntries(64).storage(storage).build().start(ctx -> {
                Blob blob = ctx.open("warm", "reads").await().blob();
                byte[] chunk = new byte[1 << 20];
                new SplittableRandom(7).nextBytes(chunk);
                for (long at = 0; at < (long) fileMib << 20; at += chunk.length) {
                    blob.writeAt(at, chunk).await();
                }
                for (long at = 0; at < (long) fileMib << 20; at += chunk.length) {
                    blob.readAt(at, chunk.length).await();
                }
                Window measured = new Window(warmup, measure);
                List<Handle<Void>> readers = new ArrayList<>();
                for (int i = 0; i < parallel; i++) {
                    SplittableRandom random = new SplittableRandom(100 + i);
                    readers.add(ctx.child("reader" + i).spawn(c -> {
                        if (intoBuffer) {
                            try (IoBuffer into = c.buffers().allocate(BLOCK)) {
                                while (oneReadFully(measured, blob, into, random, blocks)) {
                                    // the next operation
                                }
                            }
                            return null;
                        }
                        while (oneReadAt(measured, blob, random, blocks)) {
                            // the next operation
                        }
                        return null;
                    }));
                }
                readers.forEach(Handle::await);
                blob.close();
                return measured;
            });
        } else {
            Path file = dir.resolve("filechannel-warm.dat");
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE)) {
                ByteBuffer chunk = ByteBuffer.allocate(1 << 20);
                new SplittableRandom(7).nextBytes(chunk.array());
                for (long at = 0; at < (long) fileMib << 20; at += chunk.capacity()) {
                    chunk.clear();
                    while (chunk.hasRemaining()) {
                        channel.write(chunk, at + chunk.position());
                    }
                }
                for (long at = 0; at < (long) fileMib << 20; at += chunk.capacity()) {
                    chunk.clear();
                    channel.read(chunk, at);
                }
                window = new Window(warmup, measure);
                Window measured = window;
                List<Thread> readers = new ArrayList<>();
                for (int i = 0; i < parallel; i++) {
                    SplittableRandom random = new SplittableRandom(100 + i);
                    Runnable reader = () -> {
                        ByteBuffer buffer = ByteBuffer.allocate(BLOCK);
                        try {
                            while (oneChannelRead(measured, channel, buffer, random, blocks)) {
                                // the next operation
                            }
                        } catch (java.io.IOException failure) {
                            throw new java.io.UncheckedIOException(failure);
                        }
                    };
                    readers.add(parallel == 1 ? Thread.ofPlatform().start(reader) : Thread.ofVirtual().start(reader));
                }
                for (Thread reader : readers) {
                    reader.join();
                }
            }
        }
        window.report();
    }

    /** One random 4 KiB {@code readAt}, counted; false, with nothing done, once the window is over. */
    private static boolean oneReadAt(Window window, Blob blob, SplittableRandom random, long blocks) {
        if (!window.running()) {
            return false;
        }
        byte[] read = blob.readAt(random.nextLong(blocks) * BLOCK, BLOCK).await();
        if (read.length != BLOCK) {
            throw new IllegalStateException("read " + read.length + " bytes");
        }
        window.count();
        return true;
    }

    /**
     * One random 4 KiB {@code readFully} into {@code into}, counted; false, with nothing done, once the window is
     * over.
     */
    private static boolean oneReadFully(Window window, Blob blob, IoBuffer into, SplittableRandom random,
                                        long blocks) {
        if (!window.running()) {
            return false;
        }
        blob.readFully(random.nextLong(blocks) * BLOCK, into, 0, BLOCK);
        window.count();
        return true;
    }

    /**
     * One random 4 KiB {@code FileChannel} read into {@code buffer}, counted; false, with nothing done, once the
     * window is over.
     */
    private static boolean oneChannelRead(Window window, FileChannel channel, ByteBuffer buffer,
                                          SplittableRandom random, long blocks) throws IOException {
        if (!window.running()) {
            return false;
        }
        buffer.clear();
        if (channel.read(buffer, random.nextLong(blocks) * BLOCK) != BLOCK) {
            throw new IllegalStateException("short read");
        }
        window.count();
        return true;
    }

    // ---- appends acknowledged after a sync ----

    /** Deletes {@code root} and everything under it. */
    static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }

    private static void appendSync(String engine, int writers, Path dir, long warmup, long measure)
            throws Exception {
        Files.createDirectories(dir);
        AtomicLong nextOffset = new AtomicLong();
        Window window;
        if (engine.equals("lockstep") || engine.equals("lockstep-sync-write")) {
            boolean syncWrites = engine.equals("lockstep-sync-write");
            byte[][] chunks = {new byte[BLOCK]};
            Path storage = Files.createTempDirectory(dir, "lockstep-log");
            // The log is hundreds of MiB after a run; each run has a directory of its own, which nothing reuses,
            // so it goes whether the run ended well or not.
            try {
                window = UringRunner.builder().workers(1).ringEntries(256).storage(storage).build().start(ctx -> {
                    Blob blob = ctx.open("log", "appends").await().blob();
                    byte[] block = new byte[BLOCK];
                    Window measured = new Window(warmup, measure);
                    List<Handle<Void>> appenders = new ArrayList<>();
                    for (int i = 0; i < writers; i++) {
                        appenders.add(ctx.child("appender" + i).spawn(c -> {
                            while (oneBlobAppend(measured, blob, nextOffset, syncWrites, block, chunks)) {
                                // the next operation
                            }
                            return null;
                        }));
                    }
                    appenders.forEach(Handle::await);
                    blob.close();
                    return measured;
                });
            } finally {
                deleteTree(storage);
            }
        } else {
            Path file = Files.createTempFile(dir, "filechannel-log", ".dat");
            try {
                try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                    window = new Window(warmup, measure);
                    Window measured = window;
                    List<Thread> appenders = new ArrayList<>();
                    for (int i = 0; i < writers; i++) {
                        appenders.add(Thread.ofPlatform().start(() -> {
                            ByteBuffer block = ByteBuffer.allocateDirect(BLOCK);
                            try {
                                while (oneChannelAppend(measured, channel, nextOffset, block)) {
                                    // the next operation
                                }
                            } catch (java.io.IOException failure) {
                                throw new java.io.UncheckedIOException(failure);
                            }
                        }));
                    }
                    for (Thread appender : appenders) {
                        appender.join();
                    }
                }
            } finally {
                Files.deleteIfExists(file);
            }
        }
        window.report();
    }

    /**
     * One append of {@code block} (or of {@code chunks} as one synced write) at the next offset, acknowledged after
     * its sync and counted; false, with nothing done, once the window is over.
     */
    private static boolean oneBlobAppend(Window window, Blob blob, AtomicLong nextOffset, boolean syncWrites,
                                       byte[] block, byte[][] chunks) {
        if (!window.running()) {
            return false;
        }
        if (syncWrites) {
            blob.writeAt(nextOffset.getAndAdd(BLOCK), chunks, WriteOptions.SYNC).await();
        } else {
            blob.writeAt(nextOffset.getAndAdd(BLOCK), block).await();
            blob.sync().await();
        }
        window.count();
        return true;
    }

    /**
     * One append of {@code block} at the next offset, forced and counted; false, with nothing done, once the window
     * is over.
     */
    private static boolean oneChannelAppend(Window window, FileChannel channel, AtomicLong nextOffset,
                                          ByteBuffer block) throws IOException {
        if (!window.running()) {
            return false;
        }
        block.clear();
        long offset = nextOffset.getAndAdd(BLOCK);
        while (block.hasRemaining()) {
            channel.write(block, offset + block.position());
        }
        channel.force(false);
        window.count();
        return true;
    }

    // ---- echo servers ----

    private static void echoServer(String engine, int size) throws Exception {
        InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        switch (engine) {
            case "lockstep" -> lockstepEcho(1, false, connection -> c -> arrayEcho(connection, size));
            case "lockstep-buffer" -> lockstepEcho(1, false, connection -> c -> bufferEcho(c, connection, size));
            // A worker per CPU; the root's spawns are root-level, so the default placement spreads them.
            case "lockstep-spread" -> lockstepEcho(0, false, connection -> c -> arrayEcho(connection, size));
            case "lockstep-worker0" -> lockstepEcho(0, true, connection -> c -> arrayEcho(connection, size));
            case "netty-epoll" -> netty(1, EpollIoHandler.newFactory(), EpollServerSocketChannel.class, any);
            case "netty-io_uring" -> netty(1, IoUringIoHandler.newFactory(), IoUringServerSocketChannel.class, any);
            // An event loop per CPU; Netty hands the accepted channels to the loops round-robin.
            case "netty-io_uring-spread" -> netty(Runtime.getRuntime().availableProcessors(),
                    IoUringIoHandler.newFactory(), IoUringServerSocketChannel.class, any);
            case "virtual-threads" -> {
                ServerSocket listener = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
                Thread.ofVirtual().start(() -> {
                    while (true) {
                        try {
                            Socket socket = listener.accept();
                            socket.setTcpNoDelay(true);
                            Thread.ofVirtual().start(() -> echoBlocking(socket));
                        } catch (java.io.IOException closed) {
                            return;
                        }
                    }
                });
                ready(listener.getLocalPort());
                serveControl();
            }
            default -> throw new IllegalArgumentException("unknown echo server " + engine
                    + "; known: lockstep, lockstep-buffer, lockstep-spread, lockstep-worker0, netty-epoll, netty-io_uring,"
                    + " netty-io_uring-spread, virtual-threads");
        }
    }

    /**
     * A Lockstep echo server: {@code workers} workers (0: one per CPU) whose root task accepts and spawns a task per
     * connection, placed by default or on worker 0; then answers the control lines until the end of input.
     */
    private static void lockstepEcho(int workers, boolean onWorker0,
                                     java.util.function.Function<Connection, Task<Void>> echo) throws Exception {
        InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        UringRunner.Builder builder = UringRunner.builder().ringEntries(256);
        if (workers > 0) {
            builder.workers(workers);
        }
        Thread.ofPlatform().daemon().start(() -> builder.build().start(ctx -> {
            Listener listener = ctx.bind(any).await();
            ready(listener.localAddress().getPort());
            while (true) {
                Connection connection = listener.accept().await();
                if (onWorker0) {
                    ctx.child("connection").spawnOn(0, echo.apply(connection));
                } else {
                    ctx.child("connection").spawn(echo.apply(connection));
                }
            }
        }));
        serveControl();
    }

    /** Echoes through the {@code byte[]} calls: each message is a new array, received and sent. */
    private static Void arrayEcho(Connection connection, int size) {
        while (true) {
            echoOneArray(connection, size);
        }
    }

    /** One message of {@link #arrayEcho}. */
    private static void echoOneArray(Connection connection, int size) {
        byte[] message = connection.stream().recv(size).await();
        connection.sink().send(message).await();
    }

    /**
     * Echoes through the buffer calls: one buffer per connection, allocated on the connection's worker; each message
     * is received into it and sent from it, with no copy to the heap.
     */
    private static Void bufferEcho(dev.lockstep.Context ctx, Connection connection, int size) {
        try (IoBuffer message = ctx.buffers().allocate(size)) {
            while (true) {
                echoOneBuffer(connection, message, size);
            }
        }
    }

    /** One message of {@link #bufferEcho}. */
    private static void echoOneBuffer(Connection connection, IoBuffer message, int size) {
        connection.stream().recvFully(message, 0, size);
        connection.sink().sendFully(message, 0, size);
    }

    private static void echoBlocking(Socket socket) {
        byte[] buffer = new byte[64 * 1024];
        try (socket; InputStream in = socket.getInputStream(); OutputStream out = socket.getOutputStream()) {
            while (echoOneRead(in, out, buffer)) {
                // the next operation
            }
        } catch (java.io.IOException peerGone) {
            // The client closed: this connection is done.
        }
    }

    /** One read echoed by {@link #echoBlocking}; false at the end of input. */
    private static boolean echoOneRead(InputStream in, OutputStream out, byte[] buffer) throws IOException {
        int read = in.read(buffer);
        if (read <= 0) {
            return false;
        }
        out.write(buffer, 0, read);
        return true;
    }

    private static void netty(int loops, IoHandlerFactory handler, Class<? extends ServerChannel> channel,
                              InetSocketAddress any) throws Exception {
        EventLoopGroup loop = new MultiThreadIoEventLoopGroup(loops, handler);
        try {
            ServerBootstrap bootstrap = new ServerBootstrap().group(loop).channel(channel)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel connection) {
                            connection.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                                @Override
                                public void channelRead(ChannelHandlerContext context, Object message) {
                                    context.write(message);
                                }

                                @Override
                                public void channelReadComplete(ChannelHandlerContext context) {
                                    context.flush();
                                }

                                @Override
                                public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
                                    context.close();
                                }
                            });
                        }
                    });
            InetSocketAddress bound = (InetSocketAddress) bootstrap.bind(any).sync().channel().localAddress();
            ready(bound.getPort());
            serveControl();
        } finally {
            loop.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    private static void ready(int port) {
        System.out.println("READY " + port);
        System.out.flush();
    }

    /** Answers each line on stdin with the JVM's allocated bytes; returns at end of input, then the JVM exits. */
    private static void serveControl() throws Exception {
        BufferedReader control = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        while (control.readLine() != null) {
            System.out.println("ALLOC " + Window.allocatedBytes() + " " + Window.applicationCpuNanos());
            System.out.flush();
        }
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }
}
