package dev.lockstep.property;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A parameter of a {@link Property} method whose value a generator draws for each try.
 *
 * <p>{@code @ForAll("steps")} names a method of the test class (static or not, any visibility, no parameters)
 * that returns the {@link Gen}. A bare {@code @ForAll} works for {@code int}, {@code long}, {@code boolean}
 * (boxed or not), any enum, and {@code byte[]} (0 to 64 bytes); anything else needs a named generator.
 */
@Documented
@Target(ElementType.PARAMETER)
@Retention(RetentionPolicy.RUNTIME)
public @interface ForAll {
    /**
     * The generator method's name, or empty for the type's default generator.
     *
     * @return the name
     */
    String value() default "";
}
