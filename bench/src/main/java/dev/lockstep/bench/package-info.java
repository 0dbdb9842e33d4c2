/**
 * Benchmarks: Lockstep measured side by side with the JDK's NIO, Netty and fio in one run. Results and the
 * commands that reproduce them are in {@code BENCHMARKS.md}.
 *
 * <p>May depend on every Lockstep module and on the libraries it compares against.
 */
package dev.lockstep.bench;
