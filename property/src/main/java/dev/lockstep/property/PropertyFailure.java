package dev.lockstep.property;

import java.util.List;

/**
 * A property failed. The message has the property's name, the try and the seed, the shrunk case, the original
 * case, the failure of the shrunk case, and one line that replays it; the cause is what the shrunk case threw.
 * An {@link AssertionError}, so JUnit reports a failure, not an error.
 */
public final class PropertyFailure extends AssertionError {
    private final long seed;
    private final transient List<Object> original;
    private final transient List<Object> shrunk;
    private final String replay;
    private final int shrinkSteps;

    PropertyFailure(String message, Throwable cause, long seed, List<Object> original, List<Object> shrunk,
                    String replay, int shrinkSteps) {
        super(message, cause);
        this.seed = seed;
        this.original = original;
        this.shrunk = shrunk;
        this.replay = replay;
        this.shrinkSteps = shrinkSteps;
    }

    /**
     * The seed of the run that found the failure.
     *
     * @return it
     */
    public long seed() {
        return seed;
    }

    /**
     * The arguments of the failing try as first drawn, in parameter order.
     *
     * @return them (elements may be null if the generator gave null)
     */
    public List<Object> original() {
        return original;
    }

    /**
     * The arguments after shrinking, in parameter order: what the cause was thrown for (only those drawn before
     * it, if a generator threw it).
     *
     * @return them
     */
    public List<Object> shrunk() {
        return shrunk;
    }

    /**
     * The choice sequence of the shrunk case, as {@link Property#replay()} and
     * {@link PropertyCheck#replay(String)} take it.
     *
     * @return e.g. {@code "1 0 3 0"}
     */
    public String replay() {
        return replay;
    }

    /**
     * How many edits shrinking accepted.
     *
     * @return 0 if the original could not be made smaller
     */
    public int shrinkSteps() {
        return shrinkSteps;
    }
}
