package dev.lockstep.conformance;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The README row a case is counted in. On a class, the row of each of its cases; on a method, that case's row
 * (over its class's). Every {@link Conformance} case has one; a {@code @Property}, {@code @Test} or
 * {@code @ParameterizedTest} method is counted only where it or its class has one.
 */
@Documented
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@interface Group {
    /**
     * The row.
     *
     * @return the row
     */
    ReadmeGroup value();
}
