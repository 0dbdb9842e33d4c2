package dev.lockstep.sim.audit;

import dev.lockstep.sim.DeterminismCheck;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * A SHA-256 digest over every event of a simulation: two runs with the same seed and configuration must end with
 * the same {@link #digest()}, and the first event where two runs part localizes a divergence (see
 * {@link DeterminismCheck}).
 *
 * <h2>Format</h2>
 * Each event {@code (kind, f1 .. fn)} is encoded as
 * <pre>kind  varint(n)  varint(len(f1)) f1 ... varint(len(fn)) fn</pre>
 * where {@code kind} is one byte, the kind's code in {@link AuditKind#KINDS} (1 for {@code KINDS[0]}, and so on),
 * or for a kind not listed there a 0 byte, then {@code varint(len(name))} and the name in UTF-8; and {@code varint}
 * is unsigned LEB128 (7 bits a byte, low bits first, the top bit set on every byte but the last). Every part of an
 * event says where it ends, so the encoding of a sequence of events is a concatenation of self-delimiting events
 * and no two different sequences have the same encoding. Fields are bytes; the helpers {@link #u64}, {@link #u32}
 * and {@link #utf8} give them a fixed encoding (a number is its big-endian bytes without leading zeros: 0 is the
 * empty field, 255 one byte), and the allocation-free {@code record*} methods below encode exactly as {@link
 * #record} does with those helpers.
 *
 * <p>A field of {@value #BLOCK_BYTES} bytes or more is encoded by blocks: after {@code varint(len)}, each whole
 * {@value #BLOCK_BYTES}-byte block of it, from its first byte, is replaced by the block's SHA-256 (32 bytes), and
 * the bytes after the last whole block follow as they are. The length says how many blocks and how many plain
 * bytes follow, so events stay self-delimiting; two fields encode alike only if their lengths are equal and every
 * block has the same SHA-256, so the chain still commits to every payload byte. A block's SHA-256 is worked out
 * once per content and remembered by the bytes themselves (a table of the last few hundred blocks, handed from
 * a finished run to the next): the 4 KiB a write moved, a later read of the same bytes and the same block in the
 * next seed's run are hashed once, not once per event.
 *
 * <p>The bytes are hashed in chunks: the chain starts at 32 zero bytes, and at the end of the first event that
 * brings the unhashed bytes to {@value #CHUNK_BYTES} or more, {@code chain = SHA-256(chain ‖ those bytes)}. The
 * digest is {@code SHA-256(chain ‖ the bytes since the last chunk)}, or {@code chain} itself when there are none,
 * so asking for it changes nothing. Where a chunk ends is decided by the bytes alone, so the digest is a function
 * of the encoded sequence; a collision of two sequences' digests would be a collision of SHA-256 (the chain is
 * the Merkle–Damgård construction over chunks). Each encoded byte is hashed once, with one finalization per chunk
 * (a few hundred events) instead of one per event. This format is pinned by tests: changing it changes every
 * recorded digest.
 *
 * <p>Not thread-safe: the simulator uses it from its one thread.
 *
 * <p>The format, its one generic writer and the allocation-free writers of the simulator's frequent events, which
 * must encode byte for byte as the generic one does, are kept here so that a change to one is seen beside the
 * others. They write through {@link AuditChain}, which holds the encoded bytes, encodes each part of an event and
 * hashes the chunks and the blocks of long fields; the kinds' encodings are {@link AuditKind}s, which the generic
 * writer finds by name in a {@link KindTable}; a traced auditor's kept events are {@link AuditTrace}'s.
 */
public final class Auditor {

    /** The number of bytes of a digest. */
    public static final int DIGEST_BYTES = 32;
    /** The unhashed bytes at which the chain takes in a chunk: see the class doc. */
    public static final int CHUNK_BYTES = 16 * 1024;
    /** The size of a block of a long field, encoded as its SHA-256: see the class doc. */
    public static final int BLOCK_BYTES = 4096;

    /**
     * A copy of an auditor's chain, for checkpoints: an auditor restored from it continues the same chain.
     *
     * @param digest the chain after the last chunk, {@value #DIGEST_BYTES} bytes
     * @param events the number of events recorded
     * @param pending the encoded events since the last chunk
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
         * The encoded events since the last chunk.
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
    public interface TraceContext {
        /** The worker recording, or -1. */
        int worker();

        /** The fiber recording, or empty. */
        String fiber();

        /** The simulated time. */
        long nanos();

        /** Where user code stands when the event is recorded outside a fiber (a fiber about to run), or empty. */
        String where();
    }

    /** The events kept with their circumstances since {@link #startTrace}; null if not tracing. */
    private AuditTrace trace;

    /** The encoded events and the chain they are hashed onto. */
    private final AuditChain out;
    /** The kinds {@link #record} was given by name, encoded once each. */
    private final KindTable kinds = new KindTable();

    /** The room every small event is given at once, so its fields are written without a check each. */
    private static final int SMALL_EVENT_BYTES = 64;

    /** A new chain, starting at the all-zero digest. */
    public Auditor() {
        this(new AuditChain(new byte[DIGEST_BYTES], 0, new byte[0]));
    }

    private Auditor(AuditChain out) {
        this.out = out;
    }

    /**
     * An auditor that continues a checkpointed chain.
     *
     * @param state from {@link #snapshot()}
     * @return the auditor
     */
    public static Auditor fromState(State state) {
        return new Auditor(new AuditChain(state.digest(), state.events(), state.pending()));
    }

    /**
     * Extends the chain by one event.
     *
     * @param kind what happened, e.g. {@code "complete"}
     * @param fields the payload, each hashed with its length
     */
    public void record(String kind, byte[]... fields) {
        NamedEventListener listener = namedEventListener;
        if (listener != null) {
            listener.onEvent(kind, fields);
        }
        out.putKind(kinds.of(kind));
        out.putVarint(fields.length);
        for (byte[] field : fields) {
            out.putField(field);
        }
        if (trace != null) {
            keep(kind, fields);
        }
        out.endEvent();
    }

    /** Sees the events recorded by name ({@link #record(String, byte[]...)}): the rare ones, not steps or draws. */
    @FunctionalInterface
    public interface NamedEventListener {
        /**
         * Called before the event is hashed.
         *
         * @param kind the event's kind
         * @param fields its payload, not to be changed
         */
        void onEvent(String kind, byte[][] fields);
    }

    /** See {@link NamedEventListener}; null for none. The simulator's thread only. */
    private NamedEventListener namedEventListener;

    /** Installs the listener of events recorded by name, replacing any; null for none. */
    public void namedEventListener(NamedEventListener listener) {
        this.namedEventListener = listener;
    }

    /** {@code record(kind.name, u64(only))} without allocating: the same encoding (a fiber step, a clock slip). */
    public void recordU64(AuditKind kind, long only) {
        out.ensure(SMALL_EVENT_BYTES + kind.encoded.length);
        out.putKind(kind);
        out.putCount(1);
        out.putNumber(only);
        if (trace != null) {
            keep(kind.name, new byte[][] {u64(only)});
        }
        out.endEvent();
    }

    /** {@code record(kind.name, u64(first), u64(second))} without allocating: the same encoding (a clock read). */
    public void recordU64U64(AuditKind kind, long first, long second) {
        out.ensure(SMALL_EVENT_BYTES + kind.encoded.length);
        out.putKind(kind);
        out.putCount(2);
        out.putNumber(first);
        out.putNumber(second);
        if (trace != null) {
            keep(kind.name, new byte[][] {u64(first), u64(second)});
        }
        out.endEvent();
    }

    /**
     * {@code record("ring.enter", u64(ring), u32(wait), u64(timeout), u64(now), u32(staged))} without allocating:
     * the same encoding (a ring's enter).
     */
    public void recordRingEnter(long ring, int wait, long timeoutNanos, long now, int staged) {
        out.ensure(SMALL_EVENT_BYTES);
        out.putKind(AuditKind.RING_ENTER);
        out.putCount(5);
        out.putNumber(ring);
        out.putNumber(wait & 0xFFFF_FFFFL);
        out.putNumber(timeoutNanos);
        out.putNumber(now);
        out.putNumber(staged & 0xFFFF_FFFFL);
        if (trace != null) {
            keep(AuditKind.RING_ENTER.name, new byte[][] {u64(ring), u32(wait), u64(timeoutNanos), u64(now),
                u32(staged)});
        }
        out.endEvent();
    }

    /**
     * {@code record("ring.complete", u64(ring), u64(sequence), opcode, u64(userData), u32(result), u64(now),
     * moved)} without allocating, where {@code moved} is the first {@code movedBytes} bytes of {@code buffer} (none
     * when {@code movedBytes} is 0): the same encoding, so the same digest, with the payload copied once, straight
     * from the request's buffer. A ring completion.
     *
     * @param unchanging null, or an array nobody changes from now on holding exactly the moved bytes (the page a
     *                   read copied, the data a write left to the file system): the payload is then looked up by
     *                   that array, without a copy ({@link RememberedBlocks#digestOfUnchanging}); the same event
     */
    public void recordRingComplete(long ring, long sequence, byte[] opcode, long userData, int result, long now,
            java.lang.foreign.MemorySegment buffer, int movedBytes, byte[] unchanging) {
        out.ensure(SMALL_EVENT_BYTES + opcode.length);
        out.putKind(AuditKind.RING_COMPLETE);
        out.putCount(7);
        out.putNumber(ring);
        out.putNumber(sequence);
        out.putField(opcode);
        out.putNumber(userData);
        out.putNumber(result & 0xFFFF_FFFFL);
        out.putNumber(now);
        out.putPayload(null, buffer, movedBytes, unchanging);
        if (trace != null) {
            byte[] moved = buffer.asSlice(0, movedBytes).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            keep(AuditKind.RING_COMPLETE.name, new byte[][] {u64(ring), u64(sequence), opcode, u64(userData),
                u32(result), u64(now), moved});
        }
        out.endEvent();
    }

    /**
     * {@code record("sys", name, u32(fd), u64(offset), u32(length), u32(0), utf8(String.valueOf(result)), moved)}
     * without allocating, where {@code moved} is the first {@code movedBytes} bytes of {@code buffer}: the same
     * encoding, so the same digest, as {@code SimSystemCalls}' generic audit gives a positioned read that returned
     * {@code result} (a read at the call, {@code preadv2}), with the payload hashed straight from the buffer instead
     * of copied out of it first.
     *
     * @param name the call's name, {@link #utf8} of it
     * @param unchanging null, or an array nobody changes from now on holding exactly the bytes read (the page they
     *                   were copied from), as for {@link #recordRingComplete}
     */
    public void recordPositionedRead(byte[] name, int fd, long offset, int length, int result,
            java.lang.foreign.MemorySegment buffer, int movedBytes, byte[] unchanging) {
        out.ensure(SMALL_EVENT_BYTES + 16 + name.length);
        out.putKind(AuditKind.SYS);
        out.putCount(7);
        out.putField(name);
        out.putNumber(fd & 0xFFFF_FFFFL);
        out.putNumber(offset);
        out.putNumber(length & 0xFFFF_FFFFL);
        out.putNumber(0);
        out.putDecimal(result);
        out.putPayload(null, buffer, movedBytes, unchanging);
        if (trace != null) {
            byte[] moved = buffer.asSlice(0, movedBytes).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            keep(AuditKind.SYS.name, new byte[][] {name, u32(fd), u64(offset), u32(length), u32(0),
                utf8(String.valueOf(result)), moved});
        }
        out.endEvent();
    }

    /**
     * {@code record("ring.stage", u64(ring), u64(sequence), opcode, u32(fd), u64(offset), u32(length),
     * u32(rwFlags), u32(flags), u64(userData), u64(target))} without allocating: the same encoding (a staged
     * submission).
     */
    public void recordRingStage(long ring, long sequence, byte[] opcode, int fd, long offset, int length, int rwFlags,
            int flags, long userData, long target) {
        out.ensure(SMALL_EVENT_BYTES + 40 + opcode.length);
        out.putKind(AuditKind.RING_STAGE);
        out.putCount(10);
        out.putNumber(ring);
        out.putNumber(sequence);
        out.putField(opcode);
        out.putNumber(fd & 0xFFFF_FFFFL);
        out.putNumber(offset);
        out.putNumber(length & 0xFFFF_FFFFL);
        out.putNumber(rwFlags & 0xFFFF_FFFFL);
        out.putNumber(flags & 0xFFFF_FFFFL);
        out.putNumber(userData);
        out.putNumber(target);
        if (trace != null) {
            keep(AuditKind.RING_STAGE.name, new byte[][] {u64(ring), u64(sequence), opcode, u32(fd), u64(offset),
                u32(length), u32(rwFlags), u32(flags), u64(userData), u64(target)});
        }
        out.endEvent();
    }

    /**
     * {@code record("ring.submit", u64(ring), u64(sequence), u64(earliestNanos), u32(decided))} without allocating:
     * the same encoding (a submission entering the simulated kernel).
     */
    public void recordRingSubmit(long ring, long sequence, long earliestNanos, int decided) {
        out.ensure(SMALL_EVENT_BYTES);
        out.putKind(AuditKind.RING_SUBMIT);
        out.putCount(4);
        out.putNumber(ring);
        out.putNumber(sequence);
        out.putNumber(earliestNanos);
        out.putNumber(decided & 0xFFFF_FFFFL);
        if (trace != null) {
            keep(AuditKind.RING_SUBMIT.name, new byte[][] {u64(ring), u64(sequence), u64(earliestNanos),
                u32(decided)});
        }
        out.endEvent();
    }

    /**
     * Records a draw of a {@link Generator} as {@code record("draw", u32(site.ordinal()), u64(value))} would,
     * without allocating: a site is hashed by its position in {@link Site}, which only ever grows at the end.
     */
    void recordDraw(Site site, long drawn) {
        out.ensure(SMALL_EVENT_BYTES);
        out.putKind(AuditKind.DRAW);
        out.putCount(2);
        out.putNumber(site.ordinal());
        out.putNumber(drawn);
        if (trace != null) {
            keep("draw", new byte[][] {utf8(site.name()), u64(drawn)});
        }
        out.endEvent();
    }

    /** Keeps the event being recorded in the trace, which is on: see {@link AuditTrace#add}. */
    private void keep(String kind, byte[][] fields) {
        trace.add(out.events(), kind, fields);
    }

    /**
     * How many blocks of long fields this auditor hashed, not counting those whose digest it found remembered:
     * what the table of remembered blocks saves is the rest.
     *
     * @return the count
     */
    long blocksHashed() {
        return out.blocksHashed();
    }

    /**
     * Gives this auditor's table of remembered blocks to the next run ({@link RememberedBlocks#giveBack}); a later
     * block this auditor hashes takes a table again. Changes no digest. Call it from the thread that records, once
     * the run's events are recorded.
     */
    public void releaseRememberedBlocks() {
        out.releaseRememberedBlocks();
    }

    /** Starts keeping every event with its circumstances, for {@link DeterminismCheck}: see {@link AuditTrace}. */
    public void startTrace(TraceContext context) {
        this.trace = new AuditTrace(context);
    }

    /** The events kept since {@link #startTrace}, or null if not tracing. */
    public java.util.List<Event> trace() {
        return trace == null ? null : trace.events();
    }

    /**
     * The current digest.
     *
     * @return 64 lower-case hex digits
     */
    public String digest() {
        return HexFormat.of().formatHex(out.current());
    }

    /**
     * The current digest.
     *
     * @return a copy of its {@value #DIGEST_BYTES} bytes
     */
    public byte[] digestBytes() {
        return out.current();
    }

    /**
     * The number of events recorded since the chain began (checkpoints included).
     *
     * @return the count
     */
    public long events() {
        return out.events();
    }

    /**
     * A copy of the chain's state, for checkpoints.
     *
     * @return the state
     */
    public State snapshot() {
        return out.snapshot();
    }

    /**
     * An independent auditor with the same chain so far: later records to either do not affect the other.
     *
     * @return the copy
     */
    public Auditor copy() {
        return new Auditor(out.copy());
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
     * The encoding of an unsigned 64-bit value as a field: its big-endian bytes without leading zeros (0 is the
     * empty field, 1 to 255 one byte, and so on up to 8 bytes).
     *
     * @param value the value, taken as unsigned
     * @return its bytes
     */
    public static byte[] u64(long value) {
        int length = (Long.SIZE + 7 - Long.numberOfLeadingZeros(value)) >>> 3;
        byte[] bytes = new byte[length];
        for (int i = length - 1; i >= 0; i--) {
            bytes[i] = (byte) value;
            value >>>= 8;
        }
        return bytes;
    }

    /**
     * The encoding of an unsigned 32-bit value as a field: as {@link #u64} of it taken unsigned (a negative
     * {@code int}, an error code, is four bytes).
     *
     * @param value the value, taken as unsigned
     * @return its bytes
     */
    public static byte[] u32(int value) {
        return u64(value & 0xFFFF_FFFFL);
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
        return "Auditor(" + digest() + ", events=" + out.events() + ")";
    }
}
