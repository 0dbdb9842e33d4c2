package dev.lockstep.demo;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * What the clients know about the store, and the check that what the store returns is allowed.
 *
 * <p>Each client owns its keys and writes each key sequentially, so per key the writes form one sequence
 * numbered {@code 1, 2, ...}. Each value names its client, key and sequence number and is padded with bytes
 * derived from them, so a value the store returns identifies the write it came from, and a torn or zeroed value
 * is recognised. A write is <em>acknowledged</em> when its client received {@code OK}; any other end (error,
 * timeout, broken connection, a crash or abort) leaves its fate <em>unknown</em>: it may or may not be in the
 * store, now or later.
 *
 * <h2>The rule</h2>
 * A read of a key (a get, or the check after a restart) may return the key's last acknowledged write, or any
 * write whose fate is unknown; nothing else. An acknowledged write that is missing, a value from a write that was
 * superseded by an acknowledged one, or bytes that are no write at all are violations. After a crash every
 * in-flight message is gone, so the state observed by the post-restart check becomes the new baseline.
 *
 * <p>Threads: each {@link Client} is used by one fiber at a time; {@link #violations()} is synchronized.
 */
public final class Model {
    private final Client[] clients;
    private final List<String> violations = new ArrayList<>();

    /**
     * @param clients the number of clients
     * @param keysPerClient the keys each client owns
     * @param valueBytes the length of every value, at least 40
     */
    public Model(int clients, int keysPerClient, int valueBytes) {
        if (valueBytes < 40) {
            throw new IllegalArgumentException("valueBytes must be at least 40, was " + valueBytes);
        }
        this.clients = new Client[clients];
        for (int i = 0; i < clients; i++) {
            this.clients[i] = new Client(this, i, keysPerClient, valueBytes);
        }
    }

    /**
     * One client's part.
     *
     * @param index the client
     * @return its state
     */
    public Client client(int index) {
        return clients[index];
    }

    /**
     * The number of clients.
     *
     * @return it
     */
    public int clients() {
        return clients.length;
    }

    synchronized void violation(String what) {
        if (violations.size() < 100) {
            violations.add(what);
        }
    }

    /**
     * The violations found so far (at most 100).
     *
     * @return a copy
     */
    public synchronized List<String> violations() {
        return List.copyOf(violations);
    }

    /**
     * Acknowledged puts, summed over clients.
     *
     * @return the count
     */
    public long ackedPuts() {
        long sum = 0;
        for (Client client : clients) {
            sum += client.ackedPuts;
        }
        return sum;
    }

    /**
     * Acknowledged deletes, summed over clients.
     *
     * @return the count
     */
    public long ackedDeletes() {
        long sum = 0;
        for (Client client : clients) {
            sum += client.ackedDeletes;
        }
        return sum;
    }

    /**
     * Writes whose fate is unknown right now, summed over clients.
     *
     * @return the count
     */
    public long unknownWrites() {
        long sum = 0;
        for (Client client : clients) {
            for (KeyState key : client.keys) {
                sum += key.unknown.size();
            }
        }
        return sum;
    }

    /**
     * Reads checked, summed over clients.
     *
     * @return the count
     */
    public long readsChecked() {
        long sum = 0;
        for (Client client : clients) {
            sum += client.readsChecked;
        }
        return sum;
    }

    /** What a checked read returned. */
    public enum Verdict {
        /** The key's last acknowledged write (or absent, for a key never written or deleted). */
        LATEST_ACKNOWLEDGED,
        /** A write whose fate was unknown: allowed either way. */
        UNKNOWN_FATE_WRITE,
        /** Not allowed: recorded in {@link #violations()}. */
        VIOLATION
    }

    /** What one client knows about one key. */
    static final class KeyState {
        final byte[] key;
        long nextSequence = 1;
        boolean present;
        long sequence;
        /** Sequence numbers of unknown-fate writes; negative for deletes. */
        final List<Long> unknown = new ArrayList<>(2);

        KeyState(byte[] key) {
            this.key = key;
        }
    }

    /** One client's keys. Used by one fiber at a time. */
    public static final class Client {
        private final Model model;
        private final int index;
        private final int valueBytes;
        private final KeyState[] keys;
        private long ackedPuts;
        private long ackedDeletes;
        private long readsChecked;

        Client(Model model, int index, int keysPerClient, int valueBytes) {
            this.model = model;
            this.index = index;
            this.valueBytes = valueBytes;
            this.keys = new KeyState[keysPerClient];
            for (int k = 0; k < keysPerClient; k++) {
                keys[k] = new KeyState(("c" + index + "-k" + k).getBytes(StandardCharsets.UTF_8));
            }
        }

        /**
         * The client's index.
         *
         * @return it
         */
        public int index() {
            return index;
        }

        /**
         * The number of keys.
         *
         * @return it
         */
        public int keys() {
            return keys.length;
        }

        /**
         * The bytes of key {@code k}.
         *
         * @param k the key index
         * @return the key
         */
        public byte[] key(int k) {
            return keys[k].key;
        }

        /**
         * Whether key {@code k} has writes of unknown fate.
         *
         * @param k the key index
         * @return true if so
         */
        public boolean hasUnknown(int k) {
            return !keys[k].unknown.isEmpty();
        }

        /**
         * Starts a write: it is of unknown fate until {@link #acknowledged}.
         *
         * @param k the key index
         * @param delete a delete rather than a put
         * @return the write's sequence number
         */
        public long begin(int k, boolean delete) {
            KeyState state = keys[k];
            long sequence = state.nextSequence++;
            state.unknown.add(delete ? -sequence : sequence);
            return sequence;
        }

        /**
         * The value a put with this sequence number writes.
         *
         * @param k the key index
         * @param sequence the put's sequence number
         * @return the value
         */
        public byte[] value(int k, long sequence) {
            byte[] value = new byte[valueBytes];
            byte[] head = (index + ":" + k + ":" + sequence + ":").getBytes(StandardCharsets.UTF_8);
            System.arraycopy(head, 0, value, 0, head.length);
            for (int i = head.length; i < valueBytes; i++) {
                value[i] = filler(sequence, i);
            }
            return value;
        }

        private static byte filler(long sequence, int position) {
            return (byte) ('a' + Math.floorMod(sequence * 31 + position * 7L, 26));
        }

        /**
         * The write was acknowledged: it is durable and the latest.
         *
         * @param k the key index
         * @param sequence the write's sequence number
         * @param delete whether it was a delete
         */
        public void acknowledged(int k, long sequence, boolean delete) {
            KeyState state = keys[k];
            state.unknown.remove(Long.valueOf(delete ? -sequence : sequence));
            if (sequence > state.sequence) {
                state.present = !delete;
                state.sequence = sequence;
            }
            if (delete) {
                ackedDeletes++;
            } else {
                ackedPuts++;
            }
        }

        /**
         * Checks a read of key {@code k}, recording a violation if it is not allowed.
         *
         * @param k the key index
         * @param value what the store returned, or null for absent
         * @param where where the read happened, for the message
         * @return the verdict
         */
        public Verdict check(int k, byte[] value, String where) {
            readsChecked++;
            KeyState state = keys[k];
            String key = new String(state.key, StandardCharsets.UTF_8);
            if (value == null) {
                if (!state.present) {
                    return Verdict.LATEST_ACKNOWLEDGED;
                }
                if (state.unknown.stream().anyMatch(s -> s < 0)) {
                    return Verdict.UNKNOWN_FATE_WRITE;
                }
                model.violation(where + ": key " + key + " is missing, but put #" + state.sequence
                        + " was acknowledged" + unknownText(state));
                return Verdict.VIOLATION;
            }
            long sequence = parse(k, value);
            if (sequence < 0) {
                model.violation(where + ": key " + key + " holds " + value.length
                        + " bytes that no client wrote (torn or corrupt): " + preview(value));
                return Verdict.VIOLATION;
            }
            if (state.present && sequence == state.sequence) {
                return Verdict.LATEST_ACKNOWLEDGED;
            }
            if (state.unknown.contains(sequence)) {
                return Verdict.UNKNOWN_FATE_WRITE;
            }
            model.violation(where + ": key " + key + " holds put #" + sequence + ", but the last acknowledged "
                    + "write is " + (state.present ? "put" : "delete") + " #" + state.sequence + unknownText(state)
                    + (sequence < state.sequence ? " (an acknowledged write was lost)" : ""));
            return Verdict.VIOLATION;
        }

        /**
         * After a crash: what the store holds now is the baseline; no unknown write can land any more.
         *
         * @param k the key index
         * @param value what the store holds (already {@link #check checked}), or null
         */
        public void rebase(int k, byte[] value) {
            KeyState state = keys[k];
            state.unknown.clear();
            if (value == null) {
                state.present = false;
            } else {
                long sequence = parse(k, value);
                if (sequence >= 0) {
                    state.present = true;
                    state.sequence = sequence;
                }
            }
        }

        private static String unknownText(KeyState state) {
            if (state.unknown.isEmpty()) {
                return "";
            }
            StringBuilder text = new StringBuilder(" (unknown-fate writes:");
            for (long s : state.unknown) {
                text.append(s < 0 ? " delete #" + -s : " put #" + s);
            }
            return text.append(')').toString();
        }

        private long parse(int k, byte[] value) {
            if (value.length != valueBytes) {
                return -1;
            }
            String prefix = index + ":" + k + ":";
            int end = -1;
            for (int i = 0; i < Math.min(value.length, 40); i++) {
                if (value[i] == ':' && i > prefix.length() - 1) {
                    end = i;
                    break;
                }
            }
            if (end < 0) {
                return -1;
            }
            String head = new String(value, 0, end, StandardCharsets.UTF_8);
            if (!head.startsWith(prefix)) {
                return -1;
            }
            long sequence;
            try {
                sequence = Long.parseLong(head.substring(prefix.length()));
            } catch (NumberFormatException notOurs) {
                return -1;
            }
            for (int i = end + 1; i < value.length; i++) {
                if (value[i] != filler(sequence, i)) {
                    return -1;
                }
            }
            return sequence;
        }

        private static String preview(byte[] value) {
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < Math.min(24, value.length); i++) {
                int b = value[i] & 0xff;
                text.append(b >= 32 && b < 127 ? String.valueOf((char) b) : String.format("\\x%02x", b));
            }
            return text.append(value.length > 24 ? "..." : "").toString();
        }
    }
}
