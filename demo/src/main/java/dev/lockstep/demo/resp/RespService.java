package dev.lockstep.demo.resp;

import dev.lockstep.Handle;
import dev.lockstep.Listener;
import dev.lockstep.demo.kv.KvServer;
import dev.lockstep.demo.kv.KvOptions;
import dev.lockstep.demo.kv.KvStore;
import dev.lockstep.uring.UringRunner;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * The demo's store behind the Redis protocol on runtime-uring: {@code ./lockstep resp}. Serves on the loopback
 * address until the process is stopped; prints {@code READY <port>} once the store is open.
 */
public final class RespService {
    /** The partition the store lives in, under the data directory. */
    public static final String PARTITION = "resp";

    private RespService() {
    }

    /**
     * Runs the service; returns only if the runner fails.
     *
     * @param data the data directory (the runner's storage root)
     * @param port the loopback port, 0 for any
     * @param workers io_uring workers
     * @param durability when a {@code SET} is durable
     * @param out where {@code READY} and the store's events go
     */
    public static void run(Path data, int port, int workers, KvOptions.Durability durability, PrintStream out) {
        Objects.requireNonNull(durability, "durability");
        UringRunner runner = UringRunner.builder().workers(workers).ringEntries(4096).storage(data).build();
        runner.start(ctx -> {
            Listener listener = ctx.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port)).await();
            KvServer server = new KvServer(KvOptions.defaults(PARTITION).withDurability(durability),
                    line -> out.println("resp: " + line));
            RespProtocol protocol = new RespProtocol(server::store);
            Handle<Void> serving = ctx.child("server").spawn(c -> server.serve(c, listener, protocol::serve));
            // The keeper retries a store that fails to open, saying so on out; serving itself failing (its
            // listener, the runtime) ends the wait with its failure instead of leaving it to wait for good.
            while (server.store() == null) {
                if (serving.isDone()) {
                    serving.await();
                }
                ctx.sleep(Duration.ofMillis(2));
            }
            out.println("READY " + listener.localAddress().getPort());
            out.flush();
            while (true) {
                ctx.sleep(Duration.ofDays(1));
            }
        });
    }
}
