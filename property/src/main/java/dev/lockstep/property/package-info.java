/**
 * Property-based testing for JUnit 5, written for Lockstep: {@link dev.lockstep.property.Gen generators} drawn
 * from a seeded {@link dev.lockstep.property.Choices choice sequence}, {@link dev.lockstep.property.Property
 * &#64;Property} with {@link dev.lockstep.property.ForAll &#64;ForAll} parameters (or
 * {@link dev.lockstep.property.PropertyCheck} inside any test), and shrinking by the recorded choices: a failing
 * try's choices are shortened and lowered and the arguments drawn again from them, so every generator, however
 * combined ({@code map}, {@code filter}, {@code flatMap}, {@code oneOf}, {@code frequency}, lambdas), shrinks
 * without a shrinker of its own, towards the simplest value each one maps choice 0 to.
 *
 * <h2>Why it is written here</h2>
 * Lockstep's properties used the most common JUnit 5 property library until its 1.10 release, from which on its
 * maintainers ask that it not be used with AI coding agents at all; we respect that wish and do not pin an older
 * release to get around it. No other maintained Java property library fits (junit-quickcheck has been
 * unmaintained for years and is built for JUnit 4), and what Lockstep needs is small: deterministic tries from one printed seed, deterministic
 * shrinking, and a replay line. Shrinking by the choice sequence is Hypothesis's approach; it is what lets a
 * generator built on simulator seeds and fault switches shrink by turning faults off.
 *
 * <h2>Where it sits</h2>
 * Its own module, {@code lockstep-property}, depending on the JUnit Jupiter API only. runtime-core's and
 * runtime-sim's own tests need it, and lockstep-testing depends on runtime-sim: were the harness inside
 * lockstep-testing, those tests would depend on a module built after them (a cycle Maven refuses). So the
 * reactor builds this module first, every module's tests take it in test scope, and lockstep-testing depends on
 * it in compile scope, so its users get it with the simulator generators of {@code dev.lockstep.testing}.
 */
package dev.lockstep.property;
