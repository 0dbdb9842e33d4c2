package dev.lockstep.sim;

import dev.lockstep.sim.audit.Generator;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a run's draws come from when they do not all come from its seed: after the first {@code fromDraw} raw
 * draws of the generator (counted over the whole run, every lifetime of a run cut by crashes included), the
 * generator starts again from a segment's seed, as a new {@link Generator} of that seed would. A run of seed
 * {@code s0} and chain {@code [k1:s1, k2:s2]} makes draws {@code 0..k1-1} as seed {@code s0} does, draws {@code
 * k1..k2-1} as seed {@code s1} does from its start, and the rest as seed {@code s2} does.
 *
 * <p>This is how the guided explorer branches from a run: it replays the run's first {@code k} draws, so the new
 * run is the old one up to that point, then takes a fresh seed. The chain is part of the configuration and of its
 * replay line, so a branched run replays from one line as any run does.
 *
 * @param segments in increasing order of {@code fromDraw}, each above 0; empty for a run drawn from its seed alone
 */
public record DecisionChain(List<Segment> segments) {
    /** No segment: every draw from the run's seed. */
    public static final DecisionChain NONE = new DecisionChain(List.of());
    /** The most segments a chain may have. */
    public static final int MAX_SEGMENTS = 1_000;

    /**
     * From draw {@code fromDraw} on, draws come from {@code seed}.
     *
     * @param fromDraw the raw draw count at which the segment starts, above 0
     * @param seed its seed
     */
    public record Segment(long fromDraw, long seed) {
    }

    /**
     * Checks the order.
     *
     * @throws InvalidConfigException naming a segment that does not start after the one before it (or at 0), or
     *     more than {@value #MAX_SEGMENTS} segments
     */
    public DecisionChain {
        segments = List.copyOf(segments);
        if (segments.size() > MAX_SEGMENTS) {
            throw new InvalidConfigException("DecisionChain.segments", "DecisionChain has " + segments.size()
                    + " segments, at most " + MAX_SEGMENTS + " allowed");
        }
        long previous = 0;
        for (Segment segment : segments) {
            if (segment.fromDraw() <= previous) {
                throw new InvalidConfigException("DecisionChain.segments", "DecisionChain segment " + segment.fromDraw()
                        + ":" + segment.seed() + " must start after draw " + previous);
            }
            previous = segment.fromDraw();
        }
    }

    /**
     * This chain cut at draw {@code fromDraw}, then a new segment from there: the branch of a run of this chain at
     * that draw.
     *
     * @param fromDraw above 0
     * @param seed the new segment's seed
     * @return the new chain
     * @throws InvalidConfigException if {@code fromDraw} is not above 0
     */
    public DecisionChain branch(long fromDraw, long seed) {
        List<Segment> kept = new ArrayList<>();
        for (Segment segment : segments) {
            if (segment.fromDraw() < fromDraw) {
                kept.add(segment);
            }
        }
        kept.add(new Segment(fromDraw, seed));
        return new DecisionChain(kept);
    }

    /**
     * The text a replay line carries: {@code fromDraw:seed} per segment, joined by commas; {@code none} without
     * segments.
     *
     * @return e.g. {@code 1200:77,3400:-91}
     */
    @Override
    public String toString() {
        if (segments.isEmpty()) {
            return "none";
        }
        StringBuilder text = new StringBuilder();
        for (Segment segment : segments) {
            text.append(text.isEmpty() ? "" : ",").append(segment.fromDraw()).append(':').append(segment.seed());
        }
        return text.toString();
    }

    /**
     * Reads {@link #toString()} back.
     *
     * @param text {@code none}, or {@code fromDraw:seed} pairs joined by commas
     * @return the chain
     * @throws IllegalArgumentException naming text that is neither, or segments out of order
     */
    public static DecisionChain parse(String text) {
        if (text.equals("none")) {
            return NONE;
        }
        List<Segment> segments = new ArrayList<>();
        for (String part : text.split(",", -1)) {
            int colon = part.indexOf(':');
            try {
                // Decimal ASCII digits only: Long.parseLong also takes '+' and the digits of every script.
                if (colon <= 0 || !part.matches("[0-9]+:-?[0-9]+")) {
                    throw new NumberFormatException();
                }
                segments.add(new Segment(Long.parseLong(part.substring(0, colon)),
                        Long.parseLong(part.substring(colon + 1))));
            } catch (NumberFormatException notANumber) {
                throw new IllegalArgumentException("a decision chain is 'none' or 'fromDraw:seed' pairs joined by"
                        + " commas; '" + part + "' in '" + text + "' is not one");
            }
        }
        return new DecisionChain(segments);
    }
}
