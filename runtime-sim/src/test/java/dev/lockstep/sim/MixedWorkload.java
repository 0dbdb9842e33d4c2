package dev.lockstep.sim;

import dev.lockstep.Blob;
import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import dev.lockstep.LockstepException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * A small workload that touches everything the simulator decides: several workers (each its own host), spawns,
 * timers, storage with faults, a network with a partition, random breaks and timeouts, and seeded application
 * randomness. Small on purpose: the determinism test runs it a thousand times. Shared by
 * {@link MixedWorkloadTest} and the throughput measurement ({@link SimThroughput}).
 */
final class MixedWorkload {
    static final int PORT = 7000;

    private MixedWorkload() {
    }

    /** The configuration the determinism and pinned-digest tests use for a seed. */
    static SimConfig config(long seed) {
        return SimConfig.builder().seed(seed).workers(3).ringEntries(8)
                .storageFaults(StorageFaults.builder().readRate(0.02).writeRate(0.03).syncRate(0.03)
                        .partialWriteRate(0.5).build())
                .kernelBehavior(KernelBehavior.DEFAULT.withShortTransfers(0.1, 0.1).withSpuriousErrors(0.02, 0.02))
                .network(NetworkConfig.DEFAULT.withBreakRate(0.02)
                        .withConnectTimeoutNanos(Duration.ofMillis(200).toNanos()))
                .timeLimit(Duration.ofMinutes(5))
                .build();
    }

    /** What a run returns: a trace of what each task saw, and the end time. */
    static String run(Context ctx) throws Exception {
        return run(ctx, 2, 3, 3);
    }

    /**
     * The workload with a size.
     *
     * @param clients clients, each on its own worker, each with its own connection
     * @param messages messages per client
     * @param writers storage writers
     */
    static String run(Context ctx, int clients, int messages, int writers) throws Exception {
        SimControl sim = SimRunner.control(ctx);
        RandomGenerator random = sim.random();
        InetSocketAddress address = new InetSocketAddress(sim.host(1), PORT);
        Listener listener = ctx.child("bind").spawnOn(1, c -> c.bind(address).await()).await();
        ctx.child("server").spawnOn(1, c -> serve(c, listener));

        List<Handle<String>> handles = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            int id = i;
            int worker = i % 2 == 0 ? 0 : Math.min(2, ctx.workers() - 1);
            handles.add(ctx.child("client" + i).spawnOn(worker, c -> client(c, address, id, messages,
                    Duration.ofMillis(1 + Math.floorMod(random.nextLong(), 5)))));
        }
        for (int i = 0; i < writers; i++) {
            int id = i;
            handles.add(ctx.child("writer" + i).spawnOn(i % ctx.workers(), c -> writer(c, id)));
        }
        handles.add(ctx.child("chaos").spawn(c -> {
            c.sleep(Duration.ofMillis(1 + Math.floorMod(random.nextLong(), 4)));
            sim.partition(sim.host(0), sim.host(1));
            c.sleep(Duration.ofMillis(Math.floorMod(random.nextLong(), 800)));
            sim.healAll();
            return "chaos";
        }));
        StringBuilder trace = new StringBuilder();
        for (Handle<String> handle : handles) {
            trace.append(handle.await()).append(';');
        }
        listener.close();
        return trace.append(ctx.now()).toString();
    }

    private static String serve(Context ctx, Listener listener) {
        for (int i = 0; ; i++) {
            Connection connection = listener.accept().await();
            ctx.child("echo" + i).spawn(c -> {
                try (connection) {
                    while (true) {
                        byte[] message = c.timeout(Duration.ofSeconds(2), () -> connection.stream().recv(8).await());
                        connection.sink().send(message).await();
                    }
                } catch (LockstepException done) {
                    return null;
                }
            });
        }
    }

    private static String client(Context ctx, InetSocketAddress address, int id, int messages, Duration pause) {
        StringBuilder log = new StringBuilder("c" + id + ":");
        ctx.sleep(pause);
        Connection connection;
        try {
            connection = ctx.timeout(Duration.ofSeconds(1), () -> ctx.dial(address).await());
        } catch (LockstepException failed) {
            return log.append(failed.getClass().getSimpleName()).toString();
        }
        try (connection) {
            for (int m = 0; m < messages; m++) {
                byte[] message = String.format("m%d-%05d", id, m).substring(0, 8).getBytes(StandardCharsets.UTF_8);
                connection.sink().send(message).await();
                byte[] echo = ctx.timeout(Duration.ofMillis(500), () -> connection.stream().recv(8).await());
                log.append(new String(echo, StandardCharsets.UTF_8)).append(',');
                ctx.sleep(pause);
            }
        } catch (LockstepException failed) {
            log.append(failed.getClass().getSimpleName());
        }
        return log.toString();
    }

    private static String writer(Context ctx, int id) {
        StringBuilder log = new StringBuilder("w" + id + ":");
        try {
            Blob blob = ctx.open("data", "blob" + id).await().blob();
            try (blob) {
                for (int i = 0; i < 3; i++) {
                    byte[] data = ("record-" + id + "-" + i).getBytes(StandardCharsets.UTF_8);
                    try {
                        blob.writeAt((long) i * 32, data).await();
                        blob.sync().await();
                        log.append(new String(blob.readAt((long) i * 32, data.length).await(),
                                StandardCharsets.UTF_8).length()).append(',');
                    } catch (LockstepException fault) {
                        log.append(fault.getClass().getSimpleName()).append(',');
                    }
                    ctx.sleep(Duration.ofMillis(1 + i));
                }
            }
        } catch (LockstepException fault) {
            log.append(fault.getClass().getSimpleName());
        }
        return log.toString();
    }
}
