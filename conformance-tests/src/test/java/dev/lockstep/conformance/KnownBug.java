package dev.lockstep.conformance;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A {@link Conformance} case that fails on one runtime because of a bug in that runtime: its runs on that
 * runtime are reported as disabled with {@link #value()} as the reason, its runs on the other runtime go on.
 * The case itself stays as it is — a case that passes on one runtime and fails on the other is a runtime bug,
 * never a reason to change the case. Run with {@code -Dlockstep.knownBugs=run} to see whether a bug is fixed.
 */
@Documented
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Repeatable(KnownBug.List.class)
public @interface KnownBug {
    /**
     * The runtime with the bug.
     *
     * @return the runtime
     */
    RuntimeKind runtime();

    /**
     * {@code "BUG: "}, the symptom, where the fault is and the proposed fix.
     *
     * @return the reason
     */
    String value();

    /** The container of repeated {@link KnownBug}s. */
    @Documented
    @Target(ElementType.METHOD)
    @Retention(RetentionPolicy.RUNTIME)
    @interface List {
        /** @return the bugs */
        KnownBug[] value();
    }
}
