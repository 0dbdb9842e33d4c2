package dev.lockstep.demo.resp;

import dev.lockstep.Connection;
import dev.lockstep.NetworkException;
import dev.lockstep.StorageException;
import dev.lockstep.Stream;
import dev.lockstep.demo.kv.KvStore;
import dev.lockstep.demo.kv.StoreUnavailableException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Serves the Redis protocol on one connection over a {@link KvStore}: {@code SET}, {@code GET}, {@code DEL},
 * {@code EXISTS}, {@code PING}, {@code ECHO}, {@code QUIT}, and the introspection {@code redis-benchmark} and
 * {@code redis-cli} send at start ({@code CONFIG GET}, {@code COMMAND}, {@code SELECT 0}, {@code INFO}), answered
 * so that they go on. Anything else gets {@code -ERR unknown command}.
 *
 * <h2>Pipelining and durability</h2>
 * Each turn takes every request that has arrived whole, executes them in order and answers them with one send.
 * A {@code SET} is submitted to the store without waiting ({@link KvStore#submitPut}), so a pipeline's puts share
 * the store's group commit; before a request that reads or deletes, and before the turn's replies are sent, the
 * puts submitted so far are awaited. So {@code +OK} is sent only once its put is acknowledged (durable, unless
 * the store syncs every second), and a {@code GET} after a {@code SET} of the same pipeline sees it.
 *
 * <h2>Bad input</h2>
 * A framing error ({@link RespProtocolException}) is answered with its message and closes the connection; a bad
 * argument (an empty key, a value past the store's bound, a wrong argument count) is answered with an error and
 * the connection goes on. Memory per connection is bounded by what arrived ({@link RespCodec}).
 *
 * <h2>Threads</h2>
 * {@link #serve} runs on the connection's task; the store is shared by every connection's task of the runtime.
 */
final class RespProtocol {
    /** The most bytes one turn takes from the stream beyond the first, before it parses. */
    private static final int RECEIVE_CHUNK = 64 * 1024;
    private static final byte[] OK = RespCodec.simple("OK");
    private static final byte[] PONG = RespCodec.simple("PONG");
    private static final byte[] EMPTY_ARRAY = RespCodec.array(List.of());

    private final Supplier<KvStore> store;

    /**
     * A protocol over the store {@code store} returns; while it returns null (the store is being opened or
     * reopened after a failure), requests that need it get an error.
     *
     * @param store the store being served, or null for none yet
     */
    public RespProtocol(Supplier<KvStore> store) {
        this.store = Objects.requireNonNull(store, "store");
    }

    /**
     * Serves {@code connection} until the peer closes it, sends {@code QUIT} or a framing error; closes it.
     *
     * @param connection an accepted connection
     */
    public void serve(Connection connection) {
        try (connection) {
            RespCodec codec = new RespCodec();
            Stream stream = connection.stream();
            while (true) {
                try {
                    codec.feed(stream.recv(1).await());
                    byte[] arrived = stream.peek(RECEIVE_CHUNK);
                    if (arrived.length > 0) {
                        codec.feed(stream.recv(arrived.length).await());
                    }
                } catch (NetworkException gone) {
                    return;
                }
                Turn turn = new Turn();
                boolean goOn = turn.run(codec);
                try {
                    if (!turn.replies.isEmpty()) {
                        connection.sink().send(turn.replies.toArray(byte[][]::new)).await();
                    }
                } catch (NetworkException gone) {
                    return;
                }
                if (!goOn) {
                    return;
                }
            }
        }
    }

    /** The requests of one turn, their replies, and the puts not yet awaited. */
    private final class Turn {
        final List<byte[]> replies = new ArrayList<>();
        final List<KvStore.Submitted> puts = new ArrayList<>();
        final List<Integer> putReplies = new ArrayList<>();

        /** Executes every whole request; false when the connection must close after the replies. */
        boolean run(RespCodec codec) {
            boolean goOn = true;
            try {
                List<byte[]> request;
                while (goOn && (request = codec.next()) != null) {
                    goOn = execute(request);
                }
            } catch (RespProtocolException bad) {
                awaitPuts();
                replies.add(RespCodec.error("Protocol error: " + bad.getMessage()));
                return false;
            }
            awaitPuts();
            return goOn;
        }

        private boolean execute(List<byte[]> request) {
            byte[] command = request.getFirst();
            // The two commands of every benchmark and most traffic, matched without making a string.
            if (named(command, 'S', 'E', 'T')) {
                set(request);
                return true;
            }
            if (named(command, 'G', 'E', 'T')) {
                get(request);
                return true;
            }
            String name = new String(command, StandardCharsets.UTF_8).toUpperCase(Locale.ROOT);
            int arguments = request.size() - 1;
            switch (name) {
                case "PING" -> replies.add(arguments == 0 ? PONG : RespCodec.bulk(request.get(1)));
                case "ECHO" -> replies.add(arguments == 1 ? RespCodec.bulk(request.get(1)) : wrongArguments(name));
                case "QUIT" -> {
                    replies.add(OK);
                    return false;
                }
                case "SELECT" -> replies.add(arguments == 1 && "0".equals(utf8(request.get(1))) ? OK
                        : RespCodec.error("only database 0 exists"));
                case "CONFIG" -> replies.add(config(request));
                case "COMMAND" -> replies.add(EMPTY_ARRAY);
                case "INFO" -> replies.add(info(request));
                case "SET" -> set(request);
                case "GET" -> get(request);
                case "DEL" -> countKeys(request, "DEL", true);
                case "EXISTS" -> countKeys(request, "EXISTS", false);
                default -> replies.add(RespCodec.error("unknown command '" + truncated(name) + "'"));
            }
            return true;
        }

        /**
         * {@code INFO [section ...]}: the server section {@code redis-benchmark} and {@code redis-cli} look for, and
         * the persistence section with the store's counters since it was opened ({@link KvStore.Stats}):
         * acknowledged puts and the syncs that made batches durable, so that a client can see how many writes share
         * a sync. Without a section, or with {@code default}, {@code all} or {@code everything}, both; sections are
         * named case-insensitively, and a section the server does not have adds nothing, as in Redis.
         */
        private byte[] info(List<byte[]> request) {
            boolean server = request.size() == 1;
            boolean persistence = request.size() == 1;
            for (byte[] argument : request.subList(1, request.size())) {
                switch (utf8(argument).toLowerCase(Locale.ROOT)) {
                    case "default", "all", "everything" -> {
                        server = true;
                        persistence = true;
                    }
                    case "server" -> server = true;
                    case "persistence" -> persistence = true;
                    default -> { }
                }
            }
            StringBuilder text = new StringBuilder();
            if (server) {
                text.append("# Server\r\nredis_version:7.0.0\r\nlockstep:1\r\n");
            }
            KvStore current = store.get();
            if (persistence && current != null) {
                KvStore.Stats stats = current.stats();
                text.append("# Persistence\r\nlockstep_puts:").append(stats.puts())
                        .append("\r\nlockstep_deletes:").append(stats.deletes())
                        .append("\r\nlockstep_syncs:").append(stats.syncs())
                        .append("\r\nlockstep_bytes_appended:").append(stats.bytesAppended()).append("\r\n");
            }
            return RespCodec.bulk(text.toString().getBytes(StandardCharsets.UTF_8));
        }

        /**
         * {@code CONFIG GET save} and {@code CONFIG GET appendonly}, which {@code redis-benchmark} reads at start,
         * answered as the store behaves: no snapshots, an append-only log. Any other parameter is not there.
         */
        private byte[] config(List<byte[]> request) {
            if (request.size() != 3 || !"GET".equalsIgnoreCase(utf8(request.get(1)))) {
                return RespCodec.error("only CONFIG GET is served");
            }
            String parameter = utf8(request.get(2)).toLowerCase(Locale.ROOT);
            return switch (parameter) {
                case "save" -> RespCodec.array(List.of(request.get(2), new byte[0]));
                case "appendonly" -> RespCodec.array(List.of(request.get(2), "yes".getBytes(StandardCharsets.UTF_8)));
                default -> EMPTY_ARRAY;
            };
        }

        private void set(List<byte[]> request) {
            if (request.size() != 3) {
                replies.add(wrongArguments("SET"));
                return;
            }
            KvStore current = store.get();
            if (current == null) {
                replies.add(RespCodec.error("store is opening"));
                return;
            }
            try {
                puts.add(current.submitPut(request.get(1), request.get(2)));
                putReplies.add(replies.size());
                replies.add(OK);
            } catch (StoreUnavailableException | IllegalArgumentException failed) {
                replies.add(RespCodec.error(String.valueOf(failed.getMessage())));
            }
        }

        private void get(List<byte[]> request) {
            if (request.size() != 2) {
                replies.add(wrongArguments("GET"));
                return;
            }
            awaitPuts();
            KvStore current = store.get();
            try {
                replies.add(current == null ? RespCodec.error("store is opening")
                        : RespCodec.bulk(current.get(request.get(1))));
            } catch (StoreUnavailableException | StorageException | IllegalArgumentException failed) {
                replies.add(RespCodec.error(String.valueOf(failed.getMessage())));
            }
        }

        /** {@code DEL} ({@code remove}) or {@code EXISTS}: answers how many of the keys were there. */
        private void countKeys(List<byte[]> request, String command, boolean remove) {
            if (request.size() < 2) {
                replies.add(wrongArguments(command));
                return;
            }
            awaitPuts();
            KvStore current = store.get();
            if (current == null) {
                replies.add(RespCodec.error("store is opening"));
                return;
            }
            try {
                long found = 0;
                for (byte[] key : request.subList(1, request.size())) {
                    if (current.get(key) != null) {
                        if (remove) {
                            current.delete(key);
                        }
                        found++;
                    }
                }
                replies.add(RespCodec.integer(found));
            } catch (StoreUnavailableException | StorageException | IllegalArgumentException failed) {
                replies.add(RespCodec.error(String.valueOf(failed.getMessage())));
            }
        }

        /** Waits for the puts submitted so far; a failed one's {@code +OK} becomes its error. */
        private void awaitPuts() {
            for (int i = 0; i < puts.size(); i++) {
                try {
                    puts.get(i).await();
                } catch (StoreUnavailableException failed) {
                    replies.set(putReplies.get(i), RespCodec.error(String.valueOf(failed.getMessage())));
                }
            }
            puts.clear();
            putReplies.clear();
        }
    }

    /** Whether {@code command} is the three-letter command {@code a b c}, in any case. */
    private static boolean named(byte[] command, char a, char b, char c) {
        return command.length == 3 && (command[0] & 0xdf) == a && (command[1] & 0xdf) == b
                && (command[2] & 0xdf) == c;
    }

    private static byte[] wrongArguments(String command) {
        return RespCodec.error("wrong number of arguments for '" + command.toLowerCase(Locale.ROOT) + "' command");
    }

    private static String utf8(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static String truncated(String text) {
        return text.length() <= 64 ? text : text.substring(0, 64) + "...";
    }
}
