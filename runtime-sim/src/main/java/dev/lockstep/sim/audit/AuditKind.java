package dev.lockstep.sim.audit;

import java.util.HashSet;
import java.util.List;

/**
 * An event kind of the {@link Auditor}'s format, with its encoding worked out once: what the simulator's most
 * frequent events pass, so that recording one looks nothing up. A kind listed in {@link #KINDS} is encoded as its
 * one-byte code; any other as a 0 byte, {@code varint(len(name))} and the name in UTF-8 (see {@link Auditor}).
 * Immutable; any thread.
 */
public final class AuditKind {
    /**
     * The event kinds encoded as one byte, {@code KINDS[i]} as {@code i + 1}: every kind the simulator records.
     * Append only: moving or removing a kind changes the encoding of every later one, so every pinned digest.
     */
    static final List<String> KINDS = List.of(
            "draw", "fiber.run", "ring.now", "ring.enter", "ring.complete", "ring.stage", "ring.submit",
            "clock.slip", "ring.stageRefused", "ring.allocate", "ring.free", "ring.close", "sys", "fiber.parked",
            "kernel.boot", "kernel.openRing", "sim.start", "sim.crash", "sim.crashPolicy", "sim.ticker",
            "sim.setLinks", "sim.networkConfig", "sim.storageFaults", "net.partition", "net.heal", "net.resetAll",
            "net.reset", "fs.powerOff", "fs.crash", "fs.processDied", "node.start", "node.pause", "node.resume",
            "node.drift", "node.step", "node.crash", "node.kill");

    static {
        if (KINDS.size() > 255 || new HashSet<>(KINDS).size() != KINDS.size()) {
            throw new ExceptionInInitializerError("AuditKind.KINDS must be at most 255 distinct kinds");
        }
    }

    static final AuditKind DRAW = of("draw");
    /** A fiber step: {@code u64(worker)}. */
    public static final AuditKind FIBER_RUN = of("fiber.run");
    /** A ring's clock read: {@code u64(ring), u64(now)}. */
    public static final AuditKind RING_NOW = of("ring.now");
    static final AuditKind RING_ENTER = of("ring.enter");
    static final AuditKind RING_COMPLETE = of("ring.complete");
    /** The clock slipping to an event: {@code u64(to)}. */
    public static final AuditKind CLOCK_SLIP = of("clock.slip");
    static final AuditKind RING_STAGE = of("ring.stage");
    static final AuditKind RING_SUBMIT = of("ring.submit");
    static final AuditKind SYS = of("sys");

    final String name;
    final byte[] encoded;

    private AuditKind(String name) {
        this.name = name;
        int code = KINDS.indexOf(name);
        if (code >= 0) {
            encoded = new byte[] {(byte) (code + 1)};
        } else {
            byte[] utf8 = Auditor.utf8(name);
            byte[] length = AuditChain.varint(utf8.length);
            encoded = new byte[1 + length.length + utf8.length];
            System.arraycopy(length, 0, encoded, 1, length.length);
            System.arraycopy(utf8, 0, encoded, 1 + length.length, utf8.length);
        }
    }

    /**
     * The kind named {@code name}, encoded.
     *
     * @param name the kind
     * @return its encoding, for the allocation-free {@code record*} methods of {@link Auditor}
     */
    static AuditKind of(String name) {
        return new AuditKind(name);
    }

    @Override
    public String toString() {
        return name;
    }
}
