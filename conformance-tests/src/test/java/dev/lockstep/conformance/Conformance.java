package dev.lockstep.conformance;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.TestTemplate;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test once per runtime configuration of {@link RuntimeConfig#ALL} — the simulator under several seeds
 * with one and two workers, runtime-uring with one and two workers — naming each run after its configuration
 * ({@code [sim seed=7 workers=2]}, {@code [uring workers=1]}).
 *
 * <p>The test takes a {@link Runtimes} parameter: it makes a fresh runner per call (runtime-uring gets a fresh
 * storage directory each time), with the ring size asked for here, and the {@link Probe} of that runtime.
 */
@Documented
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@TestTemplate
@ExtendWith(RuntimeExtension.class)
public @interface Conformance {
    /** The default ring size: large enough that no case is ring-bound unless it asks for a smaller ring. */
    int DEFAULT_RING = 64;

    /**
     * Ring entries per worker of every runner the test makes.
     *
     * @return a power of two
     */
    int ring() default DEFAULT_RING;

    /**
     * Why this case ends its runs still holding resources on purpose — an operation or handle that escapes
     * {@code start}, which is the contract under test — or empty (the default) if it closes what it opens. A
     * non-empty reason turns off the simulator's leak check for the case (runtime-uring closes what is left
     * either way); everything else runs with the check on, so a case that forgets to close fails.
     *
     * @return the reason, or empty
     */
    String leavesOpen() default "";
}
