/**
 * The service interfaces through which a runtime plugs into the public API: {@link dev.lockstep.spi.Awaiter},
 * which parks a fiber on an operation the runtime did not create, and {@link dev.lockstep.spi.SearchHooks}, which
 * answers {@link dev.lockstep.Search}'s fault points and assertions, and {@link dev.lockstep.spi.MetricsSink}, to
 * which a runtime offers its {@link dev.lockstep.spi.Meter}s.
 *
 * <p>For runtimes, not applications: {@link dev.lockstep.spi.Awaiter#parkThread} is public so that each runtime's
 * {@code Awaiter} (and {@code dev.lockstep.sync} with no runtime) waits on a plain thread the same way; an
 * application waits with {@link dev.lockstep.Operation#await()}.
 *
 * <p>Depends on {@code dev.lockstep} and the JDK only.
 */
package dev.lockstep.spi;
