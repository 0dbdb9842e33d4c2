package dev.lockstep.property;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A JUnit 5 test that runs its body for {@link #tries()} tries, each with arguments drawn for its {@link ForAll}
 * parameters, and on failure shrinks the arguments and fails with a {@link PropertyFailure}: the shrunk case, the
 * original, and the line that replays it.
 *
 * <pre>{@code
 * @Property(tries = 200)
 * void sortedListsStaySorted(@ForAll("lists") List<Integer> values, @ForAll boolean reversed) { ... }
 *
 * static Gen<List<Integer>> lists() { return Gen.ints(-100, 100).list(0, 20); }
 * }</pre>
 *
 * <p>Every try runs on the same test instance, one after another on the test's thread: keep state a try needs
 * in locals. The run's seed is printed; it comes from {@code -Dlockstep.property.seed=N} if set, else from
 * {@link #seed()}, else it is drawn fresh. A try's arguments depend only on that seed and the try's number, and
 * shrinking depends only on the failing try, so the same seed gives the same tries, the same failure and the
 * same shrunk case.
 *
 * <p>A failure is shrunk only to cases that throw the same class of exception as the original, so that shrinking
 * does not slide from the bug found to a different one.
 */
@Documented
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Test
@ExtendWith(PropertyExtension.class)
public @interface Property {
    /** The value of {@link #seed()} that means "none given". */
    long NO_SEED = Long.MIN_VALUE;

    /**
     * How many tries (tries a filter discards are not counted, up to five times this many).
     *
     * @return at least 1
     */
    int tries() default 100;

    /**
     * The run's seed; the system property {@code lockstep.property.seed} overrides it.
     *
     * @return the seed, or {@link #NO_SEED} for a fresh one each run
     */
    long seed() default NO_SEED;

    /**
     * Runs one case alone, from the choice sequence a failure printed, instead of the tries.
     *
     * @return the choices, e.g. {@code "1 0 3 0"}, or empty
     */
    String replay() default "";

    /**
     * At most this many runs of the body while shrinking one failure.
     *
     * @return at least 0
     */
    int shrinkLimit() default 1000;
}
