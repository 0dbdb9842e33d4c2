/**
 * The service interfaces through which a runtime plugs into the public API: today only {@link
 * dev.lockstep.spi.Awaiter}, which parks a fiber on an operation the runtime did not create.
 *
 * <p>Depends on {@code dev.lockstep} and the JDK only.
 */
package dev.lockstep.spi;
