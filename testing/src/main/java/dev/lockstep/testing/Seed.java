package dev.lockstep.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Pins a {@link SimulationTest} to one seed: the test runs under this seed only (and not on runtime-uring), as
 * it ran when a sweep failed. Put it on the method while you debug; take it off once it passes.
 */
@Documented
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
public @interface Seed {
    /**
     * The seed.
     *
     * @return it
     */
    long value();
}
