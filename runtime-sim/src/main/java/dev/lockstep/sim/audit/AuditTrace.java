package dev.lockstep.sim.audit;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The events a traced {@link Auditor} keeps ({@link Auditor#startTrace}, for
 * {@link dev.lockstep.sim.DeterminismCheck}): each as an {@link Auditor.Event} with its circumstances, which the
 * {@link Auditor.TraceContext} and the recording thread's stack give, so that two runs of a seed can be compared
 * event by event and the first where they part named with the user's line. What is kept never reaches the chain:
 * tracing changes no digest. Not thread-safe, as the auditor.
 */
final class AuditTrace {
    /** How many payload bytes an event shows, as hex, over all its fields. */
    private static final int SHOWN_BYTES = 48;
    private final List<Auditor.Event> events = new ArrayList<>();
    private final Auditor.TraceContext context;

    AuditTrace(Auditor.TraceContext context) {
        this.context = context;
    }

    /** The events kept so far, in the order they were recorded. */
    List<Auditor.Event> events() {
        return events;
    }

    /**
     * Keeps the event being recorded.
     *
     * @param index the event's number in the chain
     * @param kind its kind
     * @param fields its payload, as {@link Auditor#record} takes it
     */
    void add(long index, String kind, byte[][] fields) {
        events.add(traced(index, kind, fields));
    }

    private Auditor.Event traced(long index, String kind, byte[][] fields) {
        if (kind.equals("fiber.parked")) {
            // Recorded by the simulator for the fiber that just ran: (line, worker, label).
            String line = new String(fields[0], StandardCharsets.UTF_8);
            int worker = (int) number(fields[1]);
            return new Auditor.Event(index, kind, line, worker, new String(fields[2], StandardCharsets.UTF_8),
                    context.nanos(), line);
        }
        StringBuilder payload = new StringBuilder();
        HexFormat hex = HexFormat.of();
        int room = SHOWN_BYTES;
        for (byte[] field : fields) {
            if (!payload.isEmpty()) {
                payload.append(' ');
            }
            int shown = Math.min(room, field.length);
            payload.append(hex.formatHex(field, 0, shown))
                    .append(shown < field.length ? "..(" + field.length + ")" : "");
            room -= shown;
        }
        return new Auditor.Event(index, kind, payload.toString(), context.worker(), context.fiber(),
                context.nanos(), where());
    }

    /** The value of a field {@link Auditor#u64} or {@link Auditor#u32} encoded. */
    private static long number(byte[] field) {
        long value = 0;
        for (byte b : field) {
            value = value << 8 | (b & 0xFF);
        }
        return value;
    }

    private String where() {
        String line = userLine();
        return line.isEmpty() ? context.where() : line;
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
}
