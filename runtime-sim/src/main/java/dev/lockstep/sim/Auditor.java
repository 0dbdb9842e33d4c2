package dev.lockstep.sim;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * A SHA-256 hash chain over every event of a simulation: two runs with the same seed and configuration must
 * end with the same {@link #digest()}, and the first event where two chains part localizes a divergence.
 *
 * <h2>Format</h2>
 * The chain starts at 32 zero bytes. Recording {@code (kind, f1 .. fn)} sets
 * <pre>digest = SHA-256( len(digest) digest  len(kind) kind  len(f1) f1 ... len(fn) fn )</pre>
 * where {@code kind} is UTF-8 and every {@code len} is an 8-byte big-endian length, so no two different
 * events hash the same input (the length prefixes make the encoding unambiguous). The helpers {@link #u64},
 * {@link #u32} and {@link #utf8} give fields a fixed encoding. This format is pinned by tests: changing it
 * changes every recorded digest.
 *
 * <p>Not thread-safe: the simulator uses it from its one thread.
 */
public final class Auditor {

    /** The number of bytes of a digest. */
    public static final int DIGEST_BYTES = 32;

    /**
     * A copy of an auditor's chain, for checkpoints: an auditor restored from it continues the same chain.
     *
     * @param digest the current digest, {@value #DIGEST_BYTES} bytes
     * @param events the number of events recorded
     */
    public record State(byte[] digest, long events) {
        /**
         * Copies the digest, so the state cannot change after the fact.
         */
        public State {
            if (digest.length != DIGEST_BYTES) {
                throw new IllegalArgumentException(
                        "Auditor.State.digest must have " + DIGEST_BYTES + " bytes, had " + digest.length);
            }
            if (events < 0) {
                throw new IllegalArgumentException("Auditor.State.events must be >= 0, was " + events);
            }
            digest = digest.clone();
        }

        /**
         * The digest.
         *
         * @return a copy of it
         */
        @Override
        public byte[] digest() {
            return digest.clone();
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof State state && state.events == events && Arrays.equals(state.digest, digest);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(digest) * 31 + Long.hashCode(events);
        }

        @Override
        public String toString() {
            return "Auditor.State(" + HexFormat.of().formatHex(digest) + ", events=" + events + ")";
        }
    }

    private final MessageDigest sha256;
    private final byte[] lengthScratch = new byte[Long.BYTES];
    private byte[] digest;
    private long events;

    /** A new chain, starting at the all-zero digest. */
    public Auditor() {
        this(new byte[DIGEST_BYTES], 0);
    }

    private Auditor(byte[] digest, long events) {
        try {
            this.sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
        this.digest = digest;
        this.events = events;
    }

    /**
     * An auditor that continues a checkpointed chain.
     *
     * @param state from {@link #snapshot()}
     * @return the auditor
     */
    public static Auditor fromState(State state) {
        return new Auditor(state.digest(), state.events());
    }

    /**
     * Extends the chain by one event.
     *
     * @param kind what happened, e.g. {@code "complete"}
     * @param fields the payload, each hashed with its length
     */
    public void record(String kind, byte[]... fields) {
        sha256.reset();
        updateWithLength(digest);
        updateWithLength(kind.getBytes(StandardCharsets.UTF_8));
        for (byte[] field : fields) {
            updateWithLength(field);
        }
        digest = sha256.digest();
        events++;
    }

    private void updateWithLength(byte[] bytes) {
        long length = bytes.length;
        for (int i = Long.BYTES - 1; i >= 0; i--) {
            lengthScratch[i] = (byte) length;
            length >>>= 8;
        }
        sha256.update(lengthScratch);
        sha256.update(bytes);
    }

    /**
     * The current digest.
     *
     * @return 64 lower-case hex digits
     */
    public String digest() {
        return HexFormat.of().formatHex(digest);
    }

    /**
     * The current digest.
     *
     * @return a copy of its {@value #DIGEST_BYTES} bytes
     */
    public byte[] digestBytes() {
        return digest.clone();
    }

    /**
     * The number of events recorded since the chain began (checkpoints included).
     *
     * @return the count
     */
    public long events() {
        return events;
    }

    /**
     * A copy of the chain's state, for checkpoints.
     *
     * @return the state
     */
    public State snapshot() {
        return new State(digest, events);
    }

    /**
     * An independent auditor with the same chain so far: later records to either do not affect the other.
     *
     * @return the copy
     */
    public Auditor copy() {
        return new Auditor(digest.clone(), events);
    }

    /**
     * An observer that records every draw of a {@link Generator} as a {@code "draw"} event with the site's
     * name and the value.
     *
     * @return the observer, for {@link Generator#setObserver}
     */
    public Generator.DrawObserver drawRecorder() {
        return (site, value) -> record("draw", utf8(site.name()), u64(value));
    }

    /**
     * The 8-byte big-endian encoding of a value.
     *
     * @param value the value
     * @return its bytes
     */
    public static byte[] u64(long value) {
        byte[] bytes = new byte[Long.BYTES];
        for (int i = Long.BYTES - 1; i >= 0; i--) {
            bytes[i] = (byte) value;
            value >>>= 8;
        }
        return bytes;
    }

    /**
     * The 4-byte big-endian encoding of a value.
     *
     * @param value the value
     * @return its bytes
     */
    public static byte[] u32(int value) {
        return new byte[] {(byte) (value >>> 24), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value};
    }

    /**
     * The UTF-8 encoding of a string.
     *
     * @param text the string
     * @return its bytes
     */
    public static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "Auditor(" + digest() + ", events=" + events + ")";
    }
}
