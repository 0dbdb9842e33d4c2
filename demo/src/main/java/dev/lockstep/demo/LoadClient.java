package dev.lockstep.demo;

import dev.lockstep.ClosedException;
import dev.lockstep.Context;
import dev.lockstep.NetworkException;
import dev.lockstep.TimeoutException;
import dev.lockstep.demo.kv.KvClient;
import dev.lockstep.demo.kv.Protocol;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;
import org.HdrHistogram.Recorder;

/**
 * One client of the load generator: a loop of puts, gets and deletes on the keys its {@link Model.Client} owns,
 * over one connection, each request under a deadline. Failures are part of the workload: a timeout or a broken
 * connection leaves the request's fate unknown, and the client dials again after a pause. Every get is checked
 * against the model. Runs until its task is aborted.
 */
public final class LoadClient {

    /**
     * The shape of the load.
     *
     * @param putPercent share of puts, in percent
     * @param deletePercent share of deletes, in percent (the rest are gets)
     * @param requestTimeout deadline of one request, dial included
     * @param reconnectPause pause after a failure before dialing again
     * @param thinkTime pause between requests (zero for none)
     */
    public record Shape(int putPercent, int deletePercent, Duration requestTimeout, Duration reconnectPause,
                        Duration thinkTime) {
    }

    /** Counters shared by every client of a run; thread-safe. */
    public static final class Meter {
        final java.util.concurrent.atomic.LongAdder puts = new java.util.concurrent.atomic.LongAdder();
        final java.util.concurrent.atomic.LongAdder gets = new java.util.concurrent.atomic.LongAdder();
        final java.util.concurrent.atomic.LongAdder deletes = new java.util.concurrent.atomic.LongAdder();
        final java.util.concurrent.atomic.LongAdder errors = new java.util.concurrent.atomic.LongAdder();
        final Recorder putLatency;
        final Recorder getLatency;

        /**
         * @param recordLatency whether to keep latency histograms (in nanoseconds)
         */
        public Meter(boolean recordLatency) {
            putLatency = recordLatency ? new Recorder(3) : null;
            getLatency = recordLatency ? new Recorder(3) : null;
        }

        /** @return completed requests of every kind */
        public long completed() {
            return puts.sum() + gets.sum() + deletes.sum();
        }

        /** @return acknowledged puts */
        public long puts() {
            return puts.sum();
        }

        /** @return completed gets */
        public long gets() {
            return gets.sum();
        }

        /** @return acknowledged deletes */
        public long deletes() {
            return deletes.sum();
        }

        /** @return requests that failed (error status, timeout, broken connection) */
        public long errors() {
            return errors.sum();
        }
    }

    private final Context ctx;
    private final InetSocketAddress server;
    private final Model.Client model;
    private final Shape shape;
    private final RandomGenerator random;
    private final Meter meter;
    private final LongSupplier nanoTime;
    private final Trace trace;

    /**
     * @param ctx the client task's context
     * @param server the server
     * @param model this client's keys
     * @param shape the load's shape
     * @param random this client's random source (seeded in the simulator)
     * @param meter shared counters
     * @param nanoTime the clock latencies are measured with
     * @param trace receives one line per request and failure, or null for none
     */
    LoadClient(Context ctx, InetSocketAddress server, Model.Client model, Shape shape, RandomGenerator random,
               Meter meter, LongSupplier nanoTime, Trace trace) {
        this.ctx = ctx;
        this.server = server;
        this.model = model;
        this.shape = shape;
        this.random = random;
        this.meter = meter;
        this.nanoTime = nanoTime;
        this.trace = trace;
    }

    private void trace(String line) {
        if (trace != null) {
            trace.event(line);
        }
    }

    /**
     * Runs until aborted.
     *
     * @return never returns normally
     */
    public Void run() {
        KvClient client = null;
        try {
            while (true) {
                if (client == null) {
                    try {
                        client = ctx.timeout(shape.requestTimeout(), () -> KvClient.connect(ctx, server));
                    } catch (NetworkException | TimeoutException failed) {
                        trace("client " + model.index() + ": dial failed: " + failed.getMessage());
                        ctx.sleep(shape.reconnectPause());
                        continue;
                    }
                }
                if (!shape.thinkTime().isZero()) {
                    ctx.sleep(shape.thinkTime());
                }
                if (!request(client)) {
                    client.close();
                    client = null;
                    meter.errors.increment();
                    ctx.sleep(shape.reconnectPause());
                }
            }
        } finally {
            if (client != null) {
                client.close();
            }
        }
    }

    private static String describe(byte op, byte[] key, long sequence) {
        String name = new String(key, java.nio.charset.StandardCharsets.UTF_8);
        return op == Protocol.PUT ? "put " + name + " #" + sequence
                : op == Protocol.DELETE ? "delete " + name + " #" + sequence : "get " + name;
    }

    private static String preview(byte[] value) {
        int end = 0;
        int colons = 0;
        while (end < value.length && end < 32 && colons < 3) {
            if (value[end++] == ':') {
                colons++;
            }
        }
        return "'" + new String(value, 0, end, java.nio.charset.StandardCharsets.ISO_8859_1) + "...'";
    }

    /** One request; false if the connection must be dropped. */
    private boolean request(KvClient client) {
        int k = random.nextInt(model.keys());
        int roll = random.nextInt(100);
        byte[] key = model.key(k);
        boolean isPut = roll < shape.putPercent();
        boolean isDelete = !isPut && roll < shape.putPercent() + shape.deletePercent();
        long sequence = isPut || isDelete ? model.begin(k, isDelete) : 0;
        byte[] value = isPut ? model.value(k, sequence) : null;
        byte op = isPut ? Protocol.PUT : isDelete ? Protocol.DELETE : Protocol.GET;
        long start = nanoTime.getAsLong();
        Protocol.Response response;
        try {
            response = ctx.timeout(shape.requestTimeout(), () -> client.call(op, key, value));
        } catch (ClosedException aborted) {
            throw aborted;
        } catch (NetworkException | TimeoutException | IllegalStateException failed) {
            trace("client " + model.index() + ": " + describe(op, key, sequence) + " -> " + failed.getClass()
                    .getSimpleName() + " (fate unknown): " + failed.getMessage());
            return false;
        }
        if (trace != null) {
            String text = "client " + model.index() + ": " + describe(op, key, sequence) + " -> "
                    + switch (response.status()) {
                        case Protocol.OK -> op == Protocol.GET ? "OK " + preview(response.payload()) : "OK";
                        case Protocol.NOT_FOUND -> "NOT_FOUND";
                        case Protocol.ERROR -> "ERROR (fate unknown): " + response.message();
                        default -> "BAD_REQUEST: " + response.message();
                    };
            trace.event(text);
        }
        long latency = nanoTime.getAsLong() - start;
        switch (response.status()) {
            case Protocol.OK -> {
                if (isPut || isDelete) {
                    model.acknowledged(k, sequence, isDelete);
                    (isPut ? meter.puts : meter.deletes).increment();
                    if (isPut && meter.putLatency != null) {
                        meter.putLatency.recordValue(Math.max(1, latency));
                    }
                } else {
                    model.check(k, response.payload(), "get");
                    meter.gets.increment();
                    if (meter.getLatency != null) {
                        meter.getLatency.recordValue(Math.max(1, latency));
                    }
                }
            }
            case Protocol.NOT_FOUND -> {
                model.check(k, null, "get");
                meter.gets.increment();
                if (meter.getLatency != null) {
                    meter.getLatency.recordValue(Math.max(1, latency));
                }
            }
            default -> meter.errors.increment();
        }
        return true;
    }
}
