package dev.lockstep.sim;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * A SHA-256 digest over every event of a simulation: two runs with the same seed and configuration must end with
 * the same {@link #digest()}, and the first event where two runs part localizes a divergence (see
 * {@link DeterminismCheck}).
 *
 * <h2>Format</h2>
 * Each event {@code (kind, f1 .. fn)} is encoded as
 * <pre>len(n+1)  len(kind) kind  len(f1) f1 ... len(fn) fn</pre>
 * where {@code kind} is UTF-8 and every {@code len} is an 8-byte big-endian length, so no two different event
 * sequences have the same encoding. Events are hashed in segments of {@value #SEGMENT_EVENTS}: the chain starts
 * at 32 zero bytes and each full segment sets {@code chain = SHA-256(chain ‖ the segment's encoded events)}. The
 * digest is {@code SHA-256(chain ‖ the events since the last full segment)}, or {@code chain} itself when there
 * are none, so asking for it changes nothing. Every event is hashed once, with one finalization per segment,
 * instead of one finalization and a re-hash of the digest per event. The helpers {@link #u64}, {@link #u32} and
 * {@link #utf8} give fields a fixed encoding. This format is pinned by tests: changing it changes every recorded
 * digest.
 *
 * <p>Not thread-safe: the simulator uses it from its one thread.
 */
public final class Auditor {

    /** The number of bytes of a digest. */
    public static final int DIGEST_BYTES = 32;
    /** Events per hashed segment: see the class doc. */
    public static final int SEGMENT_EVENTS = 256;

    /**
     * A copy of an auditor's chain, for checkpoints: an auditor restored from it continues the same chain.
     *
     * @param digest the chain after the last full segment, {@value #DIGEST_BYTES} bytes
     * @param events the number of events recorded
     * @param pending the encoded events since the last full segment ({@code events % SEGMENT_EVENTS} of them)
     */
    public record State(byte[] digest, long events, byte[] pending) {
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
            pending = pending.clone();
        }

        /**
         * The encoded events since the last full segment.
         *
         * @return a copy of them
         */
        @Override
        public byte[] pending() {
            return pending.clone();
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
            return other instanceof State state && state.events == events && Arrays.equals(state.digest, digest)
                    && Arrays.equals(state.pending, pending);
        }

        @Override
        public int hashCode() {
            return (Arrays.hashCode(digest) * 31 + Long.hashCode(events)) * 31 + Arrays.hashCode(pending);
        }

        @Override
        public String toString() {
            return "Auditor.State(" + HexFormat.of().formatHex(digest) + ", events=" + events + ", pending="
                    + pending.length + " bytes)";
        }
    }

    /**
     * One event as a traced run recorded it (see {@link DeterminismCheck}): enough to say where two runs of a seed
     * part.
     *
     * @param index the event's number in the chain, from 0
     * @param kind what happened
     * @param payload the event's fields, as hex (at most 48 bytes of them)
     * @param worker the worker whose fiber or service turn recorded it, or -1 for the simulator's own loop
     * @param fiber the label of the fiber that recorded it, or empty
     * @param nanos the simulated time, epoch nanoseconds
     * @param where the user's source line that led to it, or empty (the simulator's own decisions)
     */
    public record Event(long index, String kind, String payload, int worker, String fiber, long nanos, String where) {
        /**
         * Whether two events are the same event: everything but the source line, which a lambda may render
         * differently.
         *
         * @param other the other event
         * @return true if kind, payload, worker, fiber and time agree
         */
        public boolean sameAs(Event other) {
            return kind.equals(other.kind) && payload.equals(other.payload) && worker == other.worker
                    && fiber.equals(other.fiber) && nanos == other.nanos;
        }

        @Override
        public String toString() {
            long seconds = Math.floorDiv(nanos, 1_000_000_000L);
            return "#" + index + " " + kind + " [" + payload + "] worker " + (worker < 0 ? "-" : worker) + ", fiber '"
                    + fiber + "', at " + java.time.Instant.ofEpochSecond(seconds, Math.floorMod(nanos, 1_000_000_000L))
                    + (where.isEmpty() ? "" : ", from " + where);
        }
    }

    /** What a traced auditor asks about each event's circumstances. */
    interface TraceContext {
        /** The worker recording, or -1. */
        int worker();

        /** The fiber recording, or empty. */
        String fiber();

        /** The simulated time. */
        long nanos();

        /** Where user code stands when the event is recorded outside a fiber (a fiber about to run), or empty. */
        String where();
    }

    private java.util.List<Event> trace;
    private TraceContext traceContext;

    private final MessageDigest sha256;
    /** The chain after the last full segment. */
    private byte[] chain;
    /** The encoded events since the last full segment: {@code pending[0, pendingLength)}. */
    private byte[] pending;
    private int pendingLength;
    private long events;
    /**
     * Encoded event kinds: an open-addressed table keyed by the kind string's own (cached) hash, probed by identity
     * first (kinds are constants), so the hottest lookup of the simulator costs a field load and a compare. Half
     * full at most; {@link #kindSlot} grows it.
     */
    private String[] kindKeys = new String[64];
    private byte[][] kindBytes = new byte[64][];
    private int kindCount;
    private static final byte[] DRAW = utf8("draw");
    private static final byte[][] SITES = new byte[Site.values().length][];

    static {
        for (Site site : Site.values()) {
            SITES[site.ordinal()] = utf8(site.name());
        }
    }

    /** A new chain, starting at the all-zero digest. */
    public Auditor() {
        this(new byte[DIGEST_BYTES], 0, new byte[0]);
    }

    private Auditor(byte[] chain, long events, byte[] pending) {
        try {
            this.sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
        this.chain = chain;
        this.events = events;
        this.pending = Arrays.copyOf(pending, Math.max(4096, pending.length * 2));
        this.pendingLength = pending.length;
    }

    /**
     * An auditor that continues a checkpointed chain.
     *
     * @param state from {@link #snapshot()}
     * @return the auditor
     */
    public static Auditor fromState(State state) {
        return new Auditor(state.digest(), state.events(), state.pending());
    }

    /**
     * Extends the chain by one event.
     *
     * @param kind what happened, e.g. {@code "complete"}
     * @param fields the payload, each hashed with its length
     */
    public void record(String kind, byte[]... fields) {
        putLength(fields.length + 1);
        put(encodedKind(kind));
        for (byte[] field : fields) {
            put(field);
        }
        if (trace != null) {
            trace.add(traced(kind, fields));
        }
        endEvent();
    }

    /**
     * {@code record(kind, u64(first), u64(second))} without allocating: the same encoding, so the same digest.
     * For the simulator's most frequent events (a ring reading the clock).
     */
    void recordU64U64(String kind, long first, long second) {
        if (trace != null) {
            record(kind, u64(first), u64(second));
            return;
        }
        putLength(3);
        put(encodedKind(kind));
        putU64Field(first);
        putU64Field(second);
        endEvent();
    }

    /** {@code record(kind, u32(first), u64(second))} without allocating: the same encoding (a fiber step). */
    void recordU32U64(String kind, int first, long second) {
        if (trace != null) {
            record(kind, u32(first), u64(second));
            return;
        }
        putLength(3);
        put(encodedKind(kind));
        putU32Field(first);
        putU64Field(second);
        endEvent();
    }

    /** {@code record(kind, u64(only))} without allocating: the same encoding (a clock slip). */
    void recordU64(String kind, long only) {
        if (trace != null) {
            record(kind, u64(only));
            return;
        }
        putLength(2);
        put(encodedKind(kind));
        putU64Field(only);
        endEvent();
    }

    /** {@code record(kind, u64(a), u32(b), u64(c), u64(d), u32(e))} without allocating (a ring's enter). */
    void recordRingEnter(String kind, long a, int b, long c, long d, int e) {
        if (trace != null) {
            record(kind, u64(a), u32(b), u64(c), u64(d), u32(e));
            return;
        }
        putLength(6);
        put(encodedKind(kind));
        putU64Field(a);
        putU32Field(b);
        putU64Field(c);
        putU64Field(d);
        putU32Field(e);
        endEvent();
    }

    /**
     * {@code record(kind, u64(ring), u64(sequence), opcode, u64(userData), u32(result), u64(now), moved)} without
     * allocating, where {@code moved} is the first {@code movedBytes} bytes of {@code buffer} (none when
     * {@code movedBytes} is 0): the same encoding, so the same digest, with the payload copied once, straight from
     * the request's buffer. A ring completion.
     */
    void recordRingComplete(String kind, long ring, long sequence, byte[] opcode, long userData, int result,
            long now, java.lang.foreign.MemorySegment buffer, int movedBytes) {
        if (trace != null) {
            byte[] moved = new byte[movedBytes];
            if (movedBytes > 0) {
                java.lang.foreign.MemorySegment.copy(buffer, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, moved, 0,
                        movedBytes);
            }
            record(kind, u64(ring), u64(sequence), opcode, u64(userData), u32(result), u64(now), moved);
            return;
        }
        putLength(8);
        put(encodedKind(kind));
        putU64Field(ring);
        putU64Field(sequence);
        put(opcode);
        putU64Field(userData);
        putU32Field(result);
        putU64Field(now);
        putLength(movedBytes);
        ensure(movedBytes);
        if (movedBytes > 0) {
            java.lang.foreign.MemorySegment.copy(buffer, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, pending,
                    pendingLength, movedBytes);
        }
        pendingLength += movedBytes;
        endEvent();
    }

    /** The UTF-8 bytes of an event kind, computed once per kind. */
    private byte[] encodedKind(String kind) {
        int mask = kindKeys.length - 1;
        int h = kind.hashCode();
        for (int i = (h ^ (h >>> 16)) & mask; ; i = (i + 1) & mask) {
            String key = kindKeys[i];
            if (key == kind) {
                return kindBytes[i];
            }
            if (key == null) {
                return addKind(kind);
            }
            if (key.equals(kind)) {
                return kindBytes[i];
            }
        }
    }

    private byte[] addKind(String kind) {
        if ((kindCount + 1) * 2 > kindKeys.length) {
            String[] oldKeys = kindKeys;
            byte[][] oldBytes = kindBytes;
            kindKeys = new String[oldKeys.length * 2];
            kindBytes = new byte[oldKeys.length * 2][];
            kindCount = 0;
            for (int i = 0; i < oldKeys.length; i++) {
                if (oldKeys[i] != null) {
                    insertKind(oldKeys[i], oldBytes[i]);
                }
            }
        }
        byte[] encoded = kind.getBytes(StandardCharsets.UTF_8);
        insertKind(kind, encoded);
        return encoded;
    }

    private void insertKind(String kind, byte[] encoded) {
        int mask = kindKeys.length - 1;
        int h = kind.hashCode();
        int i = (h ^ (h >>> 16)) & mask;
        while (kindKeys[i] != null) {
            i = (i + 1) & mask;
        }
        kindKeys[i] = kind;
        kindBytes[i] = encoded;
        kindCount++;
    }

    /** A field of {@link #u64} bytes: its length, then the value big-endian. */
    private void putU64Field(long value) {
        putLength(Long.BYTES);
        putLength(value);
    }

    /** A field of {@link #u32} bytes: its length, then the value big-endian. */
    private void putU32Field(int value) {
        putLength(Integer.BYTES);
        ensure(Integer.BYTES);
        pending[pendingLength] = (byte) (value >>> 24);
        pending[pendingLength + 1] = (byte) (value >>> 16);
        pending[pendingLength + 2] = (byte) (value >>> 8);
        pending[pendingLength + 3] = (byte) value;
        pendingLength += Integer.BYTES;
    }

    /**
     * Records a draw of a {@link Generator} as {@code record("draw", utf8(site.name()), u64(value))} would,
     * without allocating.
     */
    void recordDraw(Site site, long drawn) {
        long value = drawn;
        putLength(3);
        put(DRAW);
        put(SITES[site.ordinal()]);
        putLength(Long.BYTES);
        ensure(Long.BYTES);
        for (int i = Long.BYTES - 1; i >= 0; i--) {
            pending[pendingLength + i] = (byte) value;
            value >>>= 8;
        }
        pendingLength += Long.BYTES;
        if (trace != null) {
            trace.add(traced("draw", new byte[][] {utf8(site.name()), u64(drawn)}));
        }
        endEvent();
    }

    private void endEvent() {
        events++;
        if ((events & (SEGMENT_EVENTS - 1)) == 0) { // events % SEGMENT_EVENTS, a power of two
            sha256.update(chain);
            sha256.update(pending, 0, pendingLength);
            chain = sha256.digest();
            pendingLength = 0;
        }
    }

    private void put(byte[] bytes) {
        putLength(bytes.length);
        ensure(bytes.length);
        System.arraycopy(bytes, 0, pending, pendingLength, bytes.length);
        pendingLength += bytes.length;
    }

    private void putLength(long length) {
        ensure(Long.BYTES);
        LONG_BIG_ENDIAN.set(pending, pendingLength, length);
        pendingLength += Long.BYTES;
    }

    private static final java.lang.invoke.VarHandle LONG_BIG_ENDIAN = java.lang.invoke.MethodHandles
            .byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.BIG_ENDIAN);

    private void ensure(int more) {
        if (pendingLength + more > pending.length) {
            pending = Arrays.copyOf(pending, Math.max(pending.length * 2, pendingLength + more));
        }
    }

    /** The digest now: the chain, or the chain with the pending events hashed onto it (see the class doc). */
    private byte[] current() {
        if (pendingLength == 0) {
            return chain.clone();
        }
        sha256.update(chain);
        sha256.update(pending, 0, pendingLength);
        return sha256.digest();
    }

    /** Starts keeping every event with its circumstances, for {@link DeterminismCheck}. */
    void startTrace(TraceContext context) {
        this.trace = new java.util.ArrayList<>();
        this.traceContext = context;
    }

    /** The events kept since {@link #startTrace}, or null if not tracing. */
    java.util.List<Event> trace() {
        return trace;
    }

    private Event traced(String kind, byte[][] fields) {
        if (kind.equals("fiber.parked")) {
            // Recorded by the simulator for the fiber that just ran: (line, worker, label).
            String line = new String(fields[0], StandardCharsets.UTF_8);
            int worker = java.nio.ByteBuffer.wrap(fields[1]).getInt();
            return new Event(events, kind, line, worker, new String(fields[2], StandardCharsets.UTF_8),
                    traceContext.nanos(), line);
        }
        StringBuilder payload = new StringBuilder();
        HexFormat hex = HexFormat.of();
        int room = 48;
        for (byte[] field : fields) {
            if (!payload.isEmpty()) {
                payload.append(' ');
            }
            int shown = Math.min(room, field.length);
            payload.append(hex.formatHex(field, 0, shown)).append(shown < field.length ? "..(" + field.length + ")" : "");
            room -= shown;
        }
        return new Event(events, kind, payload.toString(), traceContext.worker(), traceContext.fiber(),
                traceContext.nanos(), where());
    }

    private String where() {
        String line = userLine();
        return line.isEmpty() ? traceContext.where() : line;
    }

    /** The first frame of the caller's stack outside the JDK, the engine and the simulator's own classes. */
    private static String userLine() {
        java.security.CodeSource simulator = Auditor.class.getProtectionDomain().getCodeSource();
        return StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE).walk(frames -> frames
                .filter(frame -> {
                    String type = frame.getClassName();
                    if (type.startsWith("java.") || type.startsWith("jdk.") || type.startsWith("sun.")
                            || type.startsWith("dev.lockstep.engine.") || type.startsWith("dev.lockstep.kernel.")
                            || (type.startsWith("dev.lockstep.")
                                && Character.isUpperCase(type.charAt("dev.lockstep.".length())))) {
                        return false;
                    }
                    java.security.CodeSource source = frame.getDeclaringClass().getProtectionDomain().getCodeSource();
                    return simulator == null || source == null || !simulator.getLocation().equals(source.getLocation());
                })
                .findFirst().map(frame -> frame.toStackTraceElement().toString()).orElse(""));
    }

    /**
     * The current digest.
     *
     * @return 64 lower-case hex digits
     */
    public String digest() {
        return HexFormat.of().formatHex(current());
    }

    /**
     * The current digest.
     *
     * @return a copy of its {@value #DIGEST_BYTES} bytes
     */
    public byte[] digestBytes() {
        return current();
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
        return new State(chain, events, Arrays.copyOf(pending, pendingLength));
    }

    /**
     * An independent auditor with the same chain so far: later records to either do not affect the other.
     *
     * @return the copy
     */
    public Auditor copy() {
        return new Auditor(chain.clone(), events, Arrays.copyOf(pending, pendingLength));
    }

    /**
     * An observer that records every draw of a {@link Generator} as a {@code "draw"} event with the site's
     * name and the value.
     *
     * @return the observer, for {@link Generator#setObserver}
     */
    public Generator.DrawObserver drawRecorder() {
        return this::recordDraw;
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
