/**
 * The README's examples, compiled and run as tests: a first program, a journal and its {@code @SimulationTest},
 * a log server and its cluster tests, a segmented log whose fault point and assertions steer the search, and the
 * fixtures that show a failing run and a sweep on every processor.
 * {@code ReadmeTest} checks that what the README quotes is these sources.
 *
 * <p>May depend on what a user of the testing tools has: the public API ({@code dev.lockstep}), the runners
 * ({@code dev.lockstep.sim}, {@code dev.lockstep.uring}), {@code dev.lockstep.testing} and JUnit Jupiter.
 */
package dev.lockstep.testing.example;
