package dev.lockstep.bench;

import dev.lockstep.Connection;
import dev.lockstep.IoBuffer;
import dev.lockstep.Listener;
import dev.lockstep.Operation;
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
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;

/**
 * Idle connections: what a server holds per connection that waits for a request, and how fast it takes a burst of
 * connections. For each server and round a server JVM of its own (one event loop: one Lockstep worker, one Netty
 * loop, the virtual threads' default scheduler; listen backlog 1024 for all) is started; this process then opens
 * {@code N} loopback connections to it from four threads, sending nothing, and the server reports when every
 * accepted connection has a receive of 64 bytes pending:
 *
 * <ul>
 *   <li>{@code lockstep}: a fiber per connection awaiting {@code Stream.recv(64)} (a new {@code byte[]}).</li>
 *   <li>{@code lockstep-buffer}: a fiber per connection in {@code Stream.recvFully} into a 64-byte
 *       {@code IoBuffer} of its own.</li>
 *   <li>{@code virtual-threads}: {@code ServerSocket.accept} and a virtual thread per connection blocked in
 *       {@code InputStream.read} of a 64-byte array.</li>
 *   <li>{@code netty-epoll}, {@code netty-io_uring}: a channel per connection with auto-read on (its read
 *       pending), an inbound handler that drops what arrives.</li>
 * </ul>
 *
 * <p>Memory is the server's growth from before the first connection to after the last one's receive is pending,
 * each read after two {@code System.gc()} calls: resident memory ({@code VmRSS} of {@code /proc/self/status}),
 * native memory the JVM committed outside the Java heap (Native Memory Tracking, summary; by category) and the
 * Java heap in use, each divided by {@code N}; the server runs with a fixed heap ({@code -Xms} = {@code -Xmx}) so
 * the collector's sizing does not move the resident figure. Kernel socket buffers are the kernel's and in none of
 * them. The burst time is the server's, from the moment it is told the client starts connecting to the moment the
 * last connection's receive is pending; the server's CPU time over the same span, per connection, is the steadier
 * figure on a shared machine, and the listen queue overflows meanwhile (a SYN dropped, retried by its client a
 * second or more later) say how much of the wall time was clients waiting to retry.
 *
 * <p>Usage: {@code IdleConnectionBenchmark [--connections N] [--rounds R] [--servers a,b,...]}; prints a Markdown
 * table of the medians over rounds (each round runs every server once, in the same order). The system property
 * {@code lockstep.bench.idle.serverFlags} adds JVM flags to every server (a profile's, say). The process needs
 * {@code N} + a few file descriptors, and so does each server ({@code ulimit -n}).
 * {@code IdleConnectionBenchmark server ENGINE} is one server.
 */
public final class IdleConnectionBenchmark {
    static final List<String> SERVERS = List.of("lockstep", "lockstep-buffer", "virtual-threads", "netty-epoll",
            "netty-io_uring");
    private static final int RECEIVE = 64;
    private static final int BACKLOG = 1024;
    private static final int CLIENT_THREADS = 4;
    private static final long ROUND_TIMEOUT_SECONDS = 120;

    private IdleConnectionBenchmark() {
    }

    /** One server's growth over one round, per connection. */
    record Result(String server, int connections, double burstSeconds, double burstCpuMicros, long overflows,
                  double rssBytes, double nativeBytes,
                  double heapBytes, Map<String, Double> nativeByCategory) {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("server")) {
            if (args.length != 2) {
                throw new IllegalArgumentException("server needs exactly one server name, was " + (args.length - 1)
                        + " arguments; known: " + SERVERS);
            }
            serve(args[1]);
            return;
        }
        int connections = 10_000;
        int rounds = 3;
        List<String> servers = SERVERS;
        for (int i = 0; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("option " + args[i] + " needs a value");
            }
            switch (args[i]) {
                case "--connections" -> connections = atLeastOne(args[i], args[i + 1]);
                case "--rounds" -> rounds = atLeastOne(args[i], args[i + 1]);
                case "--servers" -> servers = List.of(args[i + 1].split(","));
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + "; known: --connections N --rounds R --servers " + String.join(",", SERVERS));
            }
        }
        for (String server : servers) {
            if (!SERVERS.contains(server)) {
                throw new IllegalArgumentException("unknown server " + server + "; known: " + SERVERS);
            }
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> notes = new ArrayList<>();
        System.out.println(report(java, System.getProperty("java.class.path"), servers, connections, rounds,
                notes));
        notes.forEach(note -> System.out.println("- " + note));
    }

    /**
     * Every server's rounds, interleaved, and their table under a heading; a round that fails is noted in
     * {@code notes} and left out.
     *
     * @param java the {@code java} launcher for the servers
     * @param classpath the servers' class path
     * @param servers which servers, of {@link #SERVERS}
     * @param connections idle connections per round
     * @param rounds rounds
     * @param notes where failures are noted
     * @return the Markdown section
     */
    static String report(String java, String classpath, List<String> servers, int connections, int rounds,
                         List<String> notes) {
        Map<String, List<Result>> byServer = new LinkedHashMap<>();
        for (int round = 1; round <= rounds; round++) {
            for (String server : servers) {
                System.err.printf(Locale.ROOT, "  idle connections, round %d: %s%n", round, server);
                try {
                    byServer.computeIfAbsent(server, s -> new ArrayList<>())
                            .add(round(java, classpath, server, connections));
                } catch (Exception | AssertionError failed) {
                    notes.add("idle connections, " + server + ": a round failed: " + failed);
                }
            }
        }
        byServer.values().removeIf(List::isEmpty);
        return "### Idle connections: " + String.format(Locale.ROOT, "%,d", connections) + " loopback connections,"
                + " each with a 64-byte receive pending (medians of " + rounds + " rounds; growth per connection)\n\n"
                + table(byServer);
    }

    /** The Markdown table of the medians of each server's rounds. */
    static String table(Map<String, List<Result>> byServer) {
        StringBuilder out = new StringBuilder();
        out.append("| server | connections | accept burst (s) | server CPU per accepted connection (µs)"
                + " | listen queue overflows | RSS per connection (KB) | native (NMT) per"
                + " connection, outside the heap (KB) | Java heap per connection (KB) | largest native categories (KB per connection)"
                + " |\n|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (Map.Entry<String, List<Result>> entry : byServer.entrySet()) {
            List<Result> results = entry.getValue();
            Map<String, Double> categories = new LinkedHashMap<>();
            results.getFirst().nativeByCategory().keySet().forEach(name -> categories.put(name,
                    median(results.stream().mapToDouble(r -> r.nativeByCategory().getOrDefault(name, 0.0))
                            .toArray())));
            StringBuilder largest = new StringBuilder();
            categories.entrySet().stream().filter(c -> Math.abs(c.getValue()) >= 102.4)
                    .sorted((a, b) -> Double.compare(b.getValue(), a.getValue())).limit(3)
                    .forEach(c -> largest.append(largest.isEmpty() ? "" : ", ")
                            .append(String.format(Locale.ROOT, "%s %.1f", c.getKey(), c.getValue() / 1024)));
            out.append(String.format(Locale.ROOT, "| %s | %,d | %.2f | %.1f | %.0f | %.1f | %.1f | %.1f | %s |%n",
                    entry.getKey(),
                    results.getFirst().connections(),
                    median(results.stream().mapToDouble(Result::burstSeconds).toArray()),
                    median(results.stream().mapToDouble(Result::burstCpuMicros).toArray()),
                    median(results.stream().mapToDouble(Result::overflows).toArray()),
                    median(results.stream().mapToDouble(Result::rssBytes).toArray()) / 1024,
                    median(results.stream().mapToDouble(Result::nativeBytes).toArray()) / 1024,
                    median(results.stream().mapToDouble(Result::heapBytes).toArray()) / 1024,
                    largest.isEmpty() ? "none above 0.1" : largest));
        }
        return out.toString();
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    /** One round of one server: start it, read its baseline, connect, read its growth, stop it. */
    static Result round(String java, String classpath, String server, int connections) throws Exception {
        List<String> command = new ArrayList<>(List.of(java, Bench.HEAP, "-Xms" + Bench.HEAP.substring(4),
                "-XX:NativeMemoryTracking=summary", "--enable-native-access=ALL-UNNAMED", "--add-opens",
                "java.base/java.lang=ALL-UNNAMED"));
        // E.g. -XX:StartFlightRecording=... to profile the servers: flags separated by spaces.
        String extra = System.getProperty("lockstep.bench.idle.serverFlags", "").strip();
        if (!extra.isEmpty()) {
            command.addAll(List.of(extra.split(" +")));
        }
        command.addAll(List.of("-cp", classpath, IdleConnectionBenchmark.class.getName(), "server", server));
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        List<java.nio.channels.SocketChannel> clients = new ArrayList<>(connections);
        try (BufferedReader from = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8));
             PrintWriter to = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8)) {
            int port = Integer.parseInt(expect(from, "READY", server)[1]);
            Map<String, Long> before = parseSample(expect(from, "SAMPLE", server));
            long overflowsBefore = listenOverflows();
            to.println("GO " + connections);
            connectAll(port, connections, clients);
            String[] pending = expect(from, "PENDING", server);
            long overflows = listenOverflows() - overflowsBefore;
            Map<String, Long> after = parseSample(expect(from, "SAMPLE", server));
            Map<String, Double> categories = new LinkedHashMap<>();
            for (String key : after.keySet()) {
                if (key.startsWith("nmt.")) {
                    categories.put(key.substring(4), (double) (after.get(key) - before.getOrDefault(key, 0L))
                            / connections);
                }
            }
            return new Result(server, connections, Long.parseLong(pending[2]) / 1e9,
                    Long.parseLong(pending[3]) / 1e3 / connections, overflows,
                    (double) (after.get("rss") - before.get("rss")) / connections,
                    (double) (after.get("native") - before.get("native")) / connections,
                    (double) (after.get("heap") - before.get("heap")) / connections, categories);
        } finally {
            for (java.nio.channels.SocketChannel client : clients) {
                client.close();
            }
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }

    /**
     * The whole number an option names.
     *
     * @throws IllegalArgumentException naming the option and its value unless the value is a number of at least 1
     */
    static int atLeastOne(String option, String value) {
        int number;
        try {
            number = Integer.parseInt(value);
        } catch (NumberFormatException notANumber) {
            throw new IllegalArgumentException(option + " must be a number of at least 1, was '" + value + "'");
        }
        if (number < 1) {
            throw new IllegalArgumentException(option + " must be a number of at least 1, was " + number);
        }
        return number;
    }

    /**
     * Opens {@code connections} blocking loopback connections from {@link #CLIENT_THREADS} threads; each closes
     * with a reset (linger 0), so rounds leave no sockets in {@code TIME_WAIT}.
     */
    private static void connectAll(int port, int connections, List<java.nio.channels.SocketChannel> into)
            throws Exception {
        InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        List<Thread> threads = new ArrayList<>();
        List<Exception> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < CLIENT_THREADS; t++) {
            int count = connections / CLIENT_THREADS + (t < connections % CLIENT_THREADS ? 1 : 0);
            threads.add(Thread.ofPlatform().start(() -> {
                List<java.nio.channels.SocketChannel> mine = new ArrayList<>(count);
                try {
                    for (int i = 0; i < count; i++) {
                        java.nio.channels.SocketChannel client = java.nio.channels.SocketChannel.open();
                        mine.add(client);
                        client.setOption(StandardSocketOptions.SO_LINGER, 0);
                        client.connect(address);
                    }
                } catch (IOException failed) {
                    failures.add(failed);
                } finally {
                    synchronized (into) {
                        into.addAll(mine);
                    }
                }
            }));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(ROUND_TIMEOUT_SECONDS);
        boolean late = false;
        for (Thread thread : threads) {
            long left = Math.max(1, deadline - System.nanoTime());
            late |= !thread.join(java.time.Duration.ofNanos(left));
        }
        if (late) {
            // A blocking connect ends on interrupt (ClosedByInterruptException), and each thread hands what it
            // opened to `into` in its finally: once they are joined, the caller's closing of `into` sees every
            // channel and none is added after.
            threads.forEach(Thread::interrupt);
            for (Thread thread : threads) {
                thread.join();
            }
            throw new IllegalStateException("connecting did not finish in " + ROUND_TIMEOUT_SECONDS + " s");
        }
        if (!failures.isEmpty()) {
            throw new IllegalStateException("a connection failed: " + failures.getFirst(), failures.getFirst());
        }
    }

    private static String[] expect(BufferedReader from, String word, String server) throws IOException {
        String line = from.readLine();
        while (line != null && line.startsWith("[")) {
            line = from.readLine(); // the JVM's own log lines (a flight recording's start, say)
        }
        if (line == null || !line.startsWith(word + " ")) {
            throw new IllegalStateException(server + " server said " + line + " where " + word + " was due");
        }
        return line.split(" ");
    }

    private static Map<String, Long> parseSample(String[] words) {
        Map<String, Long> sample = new LinkedHashMap<>();
        for (int i = 1; i < words.length; i++) {
            int equals = words[i].indexOf('=');
            sample.put(words[i].substring(0, equals), Long.parseLong(words[i].substring(equals + 1)));
        }
        return sample;
    }

    // ---- the server side ----

    /** Receives pending; the last one to count reads the clock. */
    private static final AtomicInteger PENDING = new AtomicInteger();
    private static volatile int expected = Integer.MAX_VALUE;
    private static volatile long goNanos;
    private static final java.util.concurrent.CountDownLatch ALL_PENDING = new java.util.concurrent.CountDownLatch(1);
    private static volatile long allPendingNanos;

    /** Called once a connection's receive is pending (or about to be, on the calling thread, with nothing between). */
    private static void pending() {
        if (PENDING.incrementAndGet() == expected) {
            allPendingNanos = System.nanoTime();
            ALL_PENDING.countDown();
        }
    }

    private static void serve(String engine) throws Exception {
        InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        int port = switch (engine) {
            case "lockstep" -> lockstep(any, false);
            case "lockstep-buffer" -> lockstep(any, true);
            case "virtual-threads" -> virtualThreads();
            case "netty-epoll" -> netty(EpollIoHandler.newFactory(), EpollServerSocketChannel.class, any);
            case "netty-io_uring" -> netty(IoUringIoHandler.newFactory(), IoUringServerSocketChannel.class, any);
            default -> throw new IllegalArgumentException("unknown server " + engine + "; known: " + SERVERS);
        };
        System.out.println("READY " + port);
        // The server's start-up settles (threads, class loading of the first accept path) before the baseline.
        Thread.sleep(1000);
        System.out.println("SAMPLE " + sample());
        System.out.flush();
        BufferedReader control = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String go = control.readLine();
        if (go == null || !go.startsWith("GO ")) {
            throw new IllegalStateException("expected GO N, was " + go);
        }
        goNanos = System.nanoTime();
        long goCpuNanos = processCpuNanos();
        expected = Integer.parseInt(go.substring(3));
        if (PENDING.get() >= expected) {
            allPendingNanos = System.nanoTime();
            ALL_PENDING.countDown();
        }
        if (!ALL_PENDING.await(ROUND_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            throw new IllegalStateException("only " + PENDING.get() + " of " + expected + " receives pending after "
                    + ROUND_TIMEOUT_SECONDS + " s");
        }
        System.out.println("PENDING " + PENDING.get() + " " + (allPendingNanos - goNanos) + " "
                + (processCpuNanos() - goCpuNanos));
        System.out.flush();
        // The last receives reach the kernel (a counted receive is submitted by the worker's next turn).
        Thread.sleep(1000);
        System.out.println("SAMPLE " + sample());
        System.out.flush();
        control.readLine();
        // Exit, not halt: a flight recording asked for with the server's flags is written at exit.
        System.exit(0);
    }

    private static int lockstep(InetSocketAddress any, boolean intoBuffer) throws Exception {
        AtomicInteger port = new AtomicInteger();
        java.util.concurrent.CountDownLatch bound = new java.util.concurrent.CountDownLatch(1);
        Thread.ofPlatform().daemon().start(() -> UringRunner.builder().workers(1).build().start(ctx -> {
            Listener listener = ctx.bind(any).await();
            port.set(listener.localAddress().getPort());
            bound.countDown();
            while (true) {
                Connection connection = listener.accept().await();
                ctx.child("connection").spawn(c -> {
                    if (intoBuffer) {
                        try (IoBuffer into = c.buffers().allocate(RECEIVE)) {
                            pending();
                            connection.stream().recvFully(into, 0, RECEIVE);
                        }
                    } else {
                        Operation<byte[]> receive = connection.stream().recv(RECEIVE);
                        pending();
                        receive.await();
                    }
                    return null;
                });
            }
        }));
        bound.await();
        return port.get();
    }

    private static int virtualThreads() throws IOException {
        ServerSocket listener = new ServerSocket(0, BACKLOG, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(() -> {
            while (true) {
                try {
                    Socket socket = listener.accept();
                    Thread.ofVirtual().start(() -> {
                        byte[] into = new byte[RECEIVE];
                        try (socket; InputStream in = socket.getInputStream()) {
                            pending();
                            in.read(into);
                        } catch (IOException peerGone) {
                            // The client closed: this connection is done.
                        }
                    });
                } catch (IOException closed) {
                    return;
                }
            }
        });
        return listener.getLocalPort();
    }

    private static int netty(IoHandlerFactory handler, Class<? extends ServerChannel> channel,
                             InetSocketAddress any) throws Exception {
        EventLoopGroup loop = new MultiThreadIoEventLoopGroup(1, handler);
        ServerBootstrap bootstrap = new ServerBootstrap().group(loop).channel(channel)
                .option(ChannelOption.SO_BACKLOG, BACKLOG)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel connection) {
                        connection.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelActive(ChannelHandlerContext context) {
                                // Auto-read is on: the channel's read is requested as it becomes active.
                                pending();
                                context.fireChannelActive();
                            }

                            @Override
                            public void channelRead(ChannelHandlerContext context, Object message) {
                                io.netty.util.ReferenceCountUtil.release(message);
                            }

                            @Override
                            public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
                                context.close();
                            }
                        });
                    }
                });
        return ((InetSocketAddress) bootstrap.bind(any).sync().channel().localAddress()).getPort();
    }

    /** {@code rss=B native=B heap=B nmt.CATEGORY=B ...}, after two collections. */
    private static String sample() throws Exception {
        System.gc();
        System.gc();
        StringBuilder out = new StringBuilder();
        out.append("rss=").append(rssBytes());
        String nmt = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
                new Object[] {new String[] {"summary"}}, new String[] {String[].class.getName()});
        Matcher total = Pattern.compile("Total: reserved=(\\d+)KB, committed=(\\d+)KB").matcher(nmt);
        if (!total.find()) {
            throw new IllegalStateException("no NMT total in " + nmt);
        }
        long committed = Long.parseLong(total.group(2)) * 1024;
        StringBuilder categories = new StringBuilder();
        Matcher category = Pattern.compile("-\\s+([A-Za-z][A-Za-z ]*?) \\(reserved=(\\d+)KB, committed=(\\d+)KB")
                .matcher(nmt);
        while (category.find()) {
            long bytes = Long.parseLong(category.group(3)) * 1024;
            if (category.group(1).equals("Java Heap")) {
                // The heap's committed size follows the collector's sizing, not the connections: its use is below.
                committed -= bytes;
                continue;
            }
            categories.append(" nmt.").append(category.group(1).replace(' ', '_')).append('=').append(bytes);
        }
        out.append(" native=").append(committed);
        out.append(" heap=").append(ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        out.append(categories);
        return out.toString();
    }

    /** The server process's CPU time: every thread's, the JIT's and the collector's included. */
    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /**
     * The machine's count of connections a full listen queue refused ({@code ListenOverflows} of
     * {@code /proc/net/netstat}; -1 where it is missing): each costs its client a SYN retransmission, a second
     * or more. Machine-wide, so other programs' overflows count too.
     */
    static long listenOverflows() {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/net/netstat"));
            for (int i = 0; i + 1 < lines.size(); i += 2) {
                String[] names = lines.get(i).split(" ");
                String[] values = lines.get(i + 1).split(" ");
                for (int n = 1; n < names.length && n < values.length; n++) {
                    if (names[0].equals("TcpExt:") && names[n].equals("ListenOverflows")) {
                        return Long.parseLong(values[n]);
                    }
                }
            }
        } catch (IOException | NumberFormatException unreadable) {
            return -1;
        }
        return -1;
    }

    private static long rssBytes() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IllegalStateException("no VmRSS in /proc/self/status");
    }
}
