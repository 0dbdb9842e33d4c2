/**
 * The demo: a small durable key-value service written only against {@code dev.lockstep}, and the
 * {@code lockstep} command line that runs it on runtime-uring and in the simulator.
 *
 * <p>The service itself may depend on {@code dev.lockstep} only; the command line also on the two runtimes.
 */
package dev.lockstep.demo;
