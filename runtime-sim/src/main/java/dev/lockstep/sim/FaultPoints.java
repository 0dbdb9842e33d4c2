package dev.lockstep.sim;

import dev.lockstep.sim.audit.Site;

/**
 * How often the fault points of application code ({@link dev.lockstep.Search#faultPoint}) take their rare path in
 * a simulated run, as FoundationDB's BUGGIFY decides it: the first time a run reaches a point, the point is enabled
 * for the rest of that run with {@code enableProbability}; each time an enabled point is reached it fires with
 * {@code fireProbability}. A run is one simulated process run: each lifetime of a run cut by crashes, and the whole
 * of a run with {@link SimCluster} nodes (a point's decision is shared by every node).
 *
 * <p>Each decision is one draw from the run's generator ({@link Site#FAULT_POINT_ENABLED}, {@link
 * Site#FAULT_POINT_FIRED}) made only when a point is reached, so code without fault points draws what it drew
 * before; with {@link #OFF} nothing is drawn and no point fires.
 *
 * @param enableProbability the probability a point is enabled for a run, in {@code [0, 1]}
 * @param fireProbability the probability an enabled point fires at one reach, in {@code [0, 1]}
 */
public record FaultPoints(double enableProbability, double fireProbability) {
    /** The default: FoundationDB's, a quarter and a quarter. */
    public static final FaultPoints DEFAULT = new FaultPoints(0.25, 0.25);
    /** No point ever fires and nothing is drawn. */
    public static final FaultPoints OFF = new FaultPoints(0, 0);

    /**
     * Checks both probabilities.
     *
     * @throws InvalidConfigException naming a probability outside {@code [0, 1]} or NaN
     */
    public FaultPoints {
        check("enableProbability", enableProbability);
        check("fireProbability", fireProbability);
    }

    private static void check(String field, double value) {
        if (!(value >= 0 && value <= 1)) {
            throw new InvalidConfigException("FaultPoints." + field, "FaultPoints." + field
                    + " must be in [0, 1], was " + value);
        }
    }

    /** Whether a point can ever fire: when not, reaching one draws nothing. */
    public boolean off() {
        return enableProbability == 0 || fireProbability == 0;
    }

    /**
     * The text a replay line carries: {@code enable:fire}.
     *
     * @return e.g. {@code 0.25:0.25}
     */
    @Override
    public String toString() {
        return enableProbability + ":" + fireProbability;
    }

    /**
     * Reads {@link #toString()} back.
     *
     * @param text {@code enable:fire}
     * @return the fault points
     * @throws IllegalArgumentException naming text that is not two probabilities joined by a colon
     */
    public static FaultPoints parse(String text) {
        int colon = text.indexOf(':');
        try {
            // Plain decimals only: Double.parseDouble also reads NaN, hex and a trailing 'd'.
            if (colon > 0 && text.matches("[0-9]+(\\.[0-9]+)?(E-?[0-9]+)?:[0-9]+(\\.[0-9]+)?(E-?[0-9]+)?")) {
                return new FaultPoints(Double.parseDouble(text.substring(0, colon)),
                        Double.parseDouble(text.substring(colon + 1)));
            }
        } catch (NumberFormatException notANumber) {
            // reported below
        }
        throw new IllegalArgumentException("fault points are 'enable:fire', two probabilities, was '" + text + "'");
    }
}
