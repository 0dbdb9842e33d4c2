/**
 * The service interfaces through which a runtime plugs into the public API: {@link dev.lockstep.spi.Awaiter},
 * which parks a fiber on an operation the runtime did not create, and {@link dev.lockstep.spi.SearchHooks}, which
 * answers {@link dev.lockstep.Search}'s fault points and assertions, and {@link dev.lockstep.spi.MetricsSink}, to
 * which a runtime offers its {@link dev.lockstep.spi.Meter}s.
 *
 * <p>Depends on {@code dev.lockstep} and the JDK only.
 */
package dev.lockstep.spi;
