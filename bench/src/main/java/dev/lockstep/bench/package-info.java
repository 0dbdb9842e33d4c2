/**
 * Benchmarks: Lockstep measured side by side with liburing, fio, the JDK's NIO and virtual threads, and Netty in
 * one run. {@link dev.lockstep.bench.Bench} ({@code ./lockstep bench [--quick]}) runs every comparison in
 * interleaved rounds and prints the tables; {@link dev.lockstep.bench.BenchPrograms} holds the Java programs it
 * runs (each measured over a {@code Window}), {@code src/main/c} the C ones (compiled by the {@code lockstep} script at run time). Results and the
 * commands that reproduce them are in {@code BENCHMARKS.md}.
 *
 * <p>May depend on every Lockstep module and on the libraries it compares against.
 */
package dev.lockstep.bench;
