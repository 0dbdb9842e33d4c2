/**
 * Lockstep's public contract: what application code imports ({@code dev.lockstep}, the task primitives of
 * {@code dev.lockstep.sync}) and what a runtime plugs in ({@code dev.lockstep.spi}). Depends on the JDK's base
 * module only.
 *
 * <p>The runtimes plug in through {@link java.util.ServiceLoader}: runtime-core provides the {@code Awaiter} that
 * parks a fiber (without one, {@code await} parks the thread), runtime-sim the {@code SearchHooks} that fault
 * points and {@code sometimes} report to.
 */
module lockstep.api {
    exports dev.lockstep;
    exports dev.lockstep.sync;
    exports dev.lockstep.spi;

    uses dev.lockstep.spi.Awaiter;
    uses dev.lockstep.spi.SearchHooks;
}
