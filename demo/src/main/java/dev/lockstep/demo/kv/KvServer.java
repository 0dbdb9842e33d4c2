package dev.lockstep.demo.kv;

import dev.lockstep.ClosedException;
import dev.lockstep.Connection;
import dev.lockstep.ConnectionFailedException;
import dev.lockstep.Context;
import dev.lockstep.Listener;
import dev.lockstep.NetworkException;
import dev.lockstep.StorageException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The key-value service: keeps a {@link KvStore} open (reopening it after a failure poisoned it) and serves
 * {@link Protocol} requests, one task per connection.
 *
 * <h2>Store lifecycle</h2>
 * A keeper task opens the store, retrying with exponential backoff (10 ms to 1 s) while recovery fails; when a
 * write or sync failure poisons the store, the keeper waits for the batches in flight, closes it and opens it
 * again, so that recovery decides from the disk what the log holds. Requests that arrive while no store is
 * open get {@link Protocol#ERROR}.
 *
 * <h2>Threads</h2>
 * {@link #serve} runs on one fiber and spawns the keeper and one task per accepted connection on its worker.
 *
 * <h2>Accept failures</h2>
 * An accept that fails (the process out of file descriptors, {@code EMFILE}; the system out of them, {@code
 * ENFILE}; memory) leaves the listener and the waiting connections as they were: serving reports it (again every
 * {@value #ACCEPT_FAILURES_REPORTED_EVERY} failures while they last), waits {@value #ACCEPT_BACKOFF_MILLIS} ms for
 * connections to close and free descriptors, and accepts again, rather than stop serving for good. A failure of the
 * runtime itself (an accept that failed with a cause) ends serving, as a closed listener does.
 * {@link #store()} may be called from any thread.
 */
public final class KvServer {
    private static final Duration KEEPER_POLL = Duration.ofMillis(10);
    private static final Duration MIN_BACKOFF = Duration.ofMillis(10);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(1);
    /** How long serving waits after a failed accept before it accepts again. */
    private static final long ACCEPT_BACKOFF_MILLIS = 50;
    private static final Duration ACCEPT_BACKOFF = Duration.ofMillis(ACCEPT_BACKOFF_MILLIS);
    /** A failing accept is reported at its first failure and then every this many (about ten seconds). */
    private static final long ACCEPT_FAILURES_REPORTED_EVERY = 200;

    private final KvOptions options;
    private final Consumer<String> events;
    private volatile KvStore store;
    private volatile long opens;

    /**
     * A server for a store with these options.
     *
     * @param options the store's options
     * @param events receives one line per lifecycle event (store opened, poisoned, open failed); may be a no-op.
     *     Called on the keeper's fiber and on the serving one (a failed accept): it must not block.
     */
    public KvServer(KvOptions options, Consumer<String> events) {
        this.options = Objects.requireNonNull(options, "options");
        this.events = Objects.requireNonNull(events, "events");
    }

    /**
     * The store being served, or null while it is being opened.
     *
     * @return the store
     */
    public KvStore store() {
        return store;
    }

    /**
     * How many times the store was opened successfully.
     *
     * @return the count
     */
    public long opens() {
        return opens;
    }

    /**
     * Serves connections from {@code listener} until the task is aborted. Spawns the keeper below
     * {@code ctx.child("keeper")} and each connection's task below {@code ctx.child("conn")}.
     *
     * @param ctx the serving task's context (not consumed: only its children spawn)
     * @param listener a bound listener; closed when serving ends
     * @return never returns normally
     * @throws ClosedException when the task is aborted
     */
    public Void serve(Context ctx, Listener listener) {
        return serve(ctx, listener, this::handle);
    }

    /**
     * Serves connections from {@code listener} with another protocol over the same store (a Redis-protocol front
     * end, say), exactly as {@link #serve(Context, Listener)} serves its own: the keeper, one task per
     * connection, accept failures waited out.
     *
     * @param ctx the serving task's context (not consumed: only its children spawn)
     * @param listener a bound listener; closed when serving ends
     * @param protocol serves one connection on its task until done, reading the store with {@link #store()}; it
     *     should close the connection, which serving also does when it ends
     * @return never returns normally
     * @throws ClosedException when the task is aborted
     */
    public Void serve(Context ctx, Listener listener, Consumer<Connection> protocol) {
        Objects.requireNonNull(protocol, "protocol");
        ctx.child("keeper").spawn(this::keep);
        // Connections accepted and not yet closed by their task. A connection accepted just as serving is aborted
        // gets a task that never runs (a spawn from an aborted node does not run its task), so serving closes
        // whatever is left when it ends; closing one its task already closed does nothing. Kept in accept order:
        // the closes at the end are simulated system calls, and an order by identity hash would differ from run
        // to run. The tasks run on this worker (spawn stays on it), so the monitor is never contended.
        Set<Connection> open = Collections.synchronizedSet(new LinkedHashSet<>());
        try (listener) {
            long failedAccepts = 0;
            while (true) {
                Connection connection;
                try {
                    connection = listener.accept().await();
                } catch (ConnectionFailedException failed) {
                    if (failed.getCause() != null) {
                        throw failed; // the runtime failed, not the kernel: not something waiting mends
                    }
                    if (failedAccepts++ % ACCEPT_FAILURES_REPORTED_EVERY == 0) {
                        events.accept(failed.getMessage() + "; accepting again every " + ACCEPT_BACKOFF.toMillis()
                                + " ms" + (failedAccepts == 1 ? "" : " (" + failedAccepts + " failed so far)"));
                    }
                    ctx.sleep(ACCEPT_BACKOFF);
                    continue;
                }
                if (failedAccepts > 0) {
                    events.accept("accepting again after " + failedAccepts + " failed accepts");
                    failedAccepts = 0;
                }
                open.add(connection);
                ctx.child("conn").spawn(c -> {
                    try {
                        protocol.accept(connection);
                    } finally {
                        open.remove(connection);
                    }
                    return null;
                });
            }
        } finally {
            List<Connection> left;
            synchronized (open) {
                left = List.copyOf(open);
            }
            for (Connection connection : left) {
                connection.close();
            }
        }
    }

    private Void keep(Context ctx) {
        Duration backoff = MIN_BACKOFF;
        while (true) {
            KvStore opened;
            try {
                opened = KvStore.open(ctx, options);
            } catch (ClosedException aborted) {
                throw aborted;
            } catch (RuntimeException failed) {
                events.accept("store open failed, retrying in " + backoff.toMillis() + " ms: " + failed.getMessage());
                ctx.sleep(backoff);
                backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
                continue;
            }
            backoff = MIN_BACKOFF;
            opens++;
            events.accept("store opened: recovered " + opened.recovery());
            store = opened;
            try {
                while (!opened.isPoisoned()) {
                    ctx.sleep(KEEPER_POLL);
                }
                events.accept("store poisoned by " + opened.failure() + "; reopening");
            } finally {
                // Poisoned, or the server is stopping (the sleep was aborted): either way the blobs are closed.
                store = null;
                opened.close();
            }
        }
    }

    private void handle(Connection connection) {
        try (connection) {
            while (true) {
                byte[] body;
                try {
                    body = Protocol.readFrame(connection.stream());
                } catch (NetworkException gone) {
                    return;
                }
                Protocol.Request request = body == null ? null : Protocol.parseRequest(body);
                byte[][] response = request == null
                        ? Protocol.response(Protocol.BAD_REQUEST, utf8("malformed request frame"))
                        : execute(request);
                try {
                    connection.sink().send(response).await();
                } catch (NetworkException gone) {
                    return;
                }
                if (request == null) {
                    return;
                }
            }
        }
    }

    private byte[][] execute(Protocol.Request request) {
        KvStore current = store;
        if (current == null) {
            return Protocol.response(Protocol.ERROR, utf8("store is opening"));
        }
        try {
            switch (request.op()) {
                case Protocol.PUT -> current.put(request.key(), request.value());
                case Protocol.DELETE -> current.delete(request.key());
                default -> {
                    byte[] value = current.get(request.key());
                    return value == null ? Protocol.response(Protocol.NOT_FOUND, new byte[0])
                            : Protocol.response(Protocol.OK, value);
                }
            }
            return Protocol.response(Protocol.OK, new byte[0]);
        } catch (StoreUnavailableException | StorageException failed) {
            return Protocol.response(Protocol.ERROR, utf8(String.valueOf(failed.getMessage())));
        } catch (IllegalArgumentException bad) {
            return Protocol.response(Protocol.BAD_REQUEST, utf8(bad.getMessage()));
        }
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
