package dev.lockstep.engine;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A case of a {@link WhiteBoxCases} class: run once per configuration its concrete class's
 * {@link WhiteBoxCases#runtimes()} lists, each run named after its configuration, the {@link WhiteBoxRuntime}
 * passed as the parameter.
 */
@Documented
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedTest(name = "{0}")
@MethodSource("runtimes")
public @interface WhiteBoxCase {
}
