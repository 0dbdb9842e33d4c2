package dev.lockstep.testing;

import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.Task;
import dev.lockstep.sim.Checkpoint;
import dev.lockstep.sim.Outcome;
import dev.lockstep.sim.Recovered;
import dev.lockstep.sim.SimConfig;
import dev.lockstep.sim.SimControl;
import dev.lockstep.sim.SimRunner;
import java.time.Duration;
import java.util.Objects;

/**
 * Runs a test's task in the simulator under a seed and a {@link FaultConfig}, optionally through crashes and
 * restarts, and turns any failure into a {@link SimulationTestFailure} that names the seed, the faults and the
 * replay line. What {@link SimulationTest} and properties built on {@link SimGenerators} use.
 *
 * <h2>Crashes</h2>
 * With {@code crashes = n > 0} the task runs as {@code n + 1} <em>lifetimes</em> on one simulated machine: each of
 * the first {@code n} is cut by a crash at a seeded time within {@code crashWithin} (or, if the task returns
 * first, by a power cut right after it returns); then the next lifetime starts from what the disk kept
 * ({@link SimRunner#startAndRecover}). The last lifetime runs to its end. The task sees which lifetime it is in
 * with {@link SimControl#restarts()}, and keeps what it must remember across lifetimes (a model of what was
 * acknowledged) in ordinary fields: everything runs on the calling thread.
 */
public final class Simulations {

    /**
     * How to run: everything but the seed and the task.
     *
     * @param faults the faults
     * @param workers simulated workers (hosts)
     * @param crashes lifetimes cut by a crash before the last
     * @param crashWithin how long into a lifetime its crash may come
     * @param timeLimit the simulated time one lifetime may take
     */
    public record Plan(FaultConfig faults, int workers, int crashes, Duration crashWithin, Duration timeLimit) {
        /** Checks the values. */
        public Plan {
            Objects.requireNonNull(faults, "faults");
            Objects.requireNonNull(crashWithin, "crashWithin");
            Objects.requireNonNull(timeLimit, "timeLimit");
            if (workers < 1) {
                throw new IllegalArgumentException("workers must be at least 1, was " + workers);
            }
            if (crashes < 0) {
                throw new IllegalArgumentException("crashes must not be negative, was " + crashes);
            }
            if (crashWithin.isNegative() || crashWithin.isZero()) {
                throw new IllegalArgumentException("crashWithin must be positive, was " + crashWithin);
            }
        }

        /**
         * One worker, no crashes, a crash window of one second, a limit of one simulated hour.
         *
         * @param faults the faults
         * @return the plan
         */
        public static Plan of(FaultConfig faults) {
            return new Plan(faults, 1, 0, Duration.ofSeconds(1), Duration.ofHours(1));
        }

        /**
         * This plan with crashes.
         *
         * @param count lifetimes cut by a crash
         * @param within how long into a lifetime the crash may come
         * @return the new plan
         */
        public Plan withCrashes(int count, Duration within) {
            return new Plan(faults, workers, count, within, timeLimit);
        }

        /**
         * This plan with another number of workers.
         *
         * @param count workers
         * @return the new plan
         */
        public Plan withWorkers(int count) {
            return new Plan(faults, count, crashes, crashWithin, timeLimit);
        }
    }

    private Simulations() {
    }

    /**
     * The simulator configuration of a seed's first lifetime.
     *
     * @param seed the seed
     * @param plan the plan
     * @return the configuration
     */
    public static SimConfig config(long seed, Plan plan) {
        return plan.faults().applyTo(SimConfig.builder().seed(seed).workers(plan.workers())
                .timeLimit(plan.timeLimit())).build();
    }

    /**
     * Runs {@code task} once in the simulator, with the faults on and no crashes.
     *
     * @param seed the seed
     * @param faults the faults
     * @param task the task
     * @param <T> its value
     * @return what the task returned
     * @throws SimulationTestFailure if the task threw or the simulation failed
     */
    public static <T> T run(long seed, FaultConfig faults, Task<T> task) {
        return run(seed, Plan.of(faults), task);
    }

    /**
     * Runs {@code task} under {@code plan}: once, or as {@code crashes + 1} lifetimes.
     *
     * @param seed the seed
     * @param plan the plan
     * @param task the task, run once per lifetime
     * @param <T> its value
     * @return what the task returned in the last lifetime
     * @throws SimulationTestFailure if the task threw in any lifetime or the simulation failed
     */
    public static <T> T run(long seed, Plan plan, Task<T> task) {
        return execute(seed, plan, task).value();
    }

    /**
     * A finished run: the task's value in the last lifetime and the audit digest at its end.
     *
     * @param value what the task returned
     * @param digest the audit digest of the last lifetime
     * @param <T> the value's type
     */
    public record Run<T>(T value, String digest) {
    }

    /**
     * As {@link #run(long, Plan, Task)}, with the audit digest: two runs of the same seed, plan and task must
     * give the same digest.
     *
     * @param seed the seed
     * @param plan the plan
     * @param task the task
     * @param <T> its value
     * @return the value and the digest
     * @throws SimulationTestFailure if the task threw in any lifetime or the simulation failed
     */
    public static <T> Run<T> execute(long seed, Plan plan, Task<T> task) {
        SimConfig config = config(seed, plan);
        Checkpoint checkpoint = null;
        int lifetime = 0;
        try {
            for (; lifetime < plan.crashes(); lifetime++) {
                SimRunner runner = checkpoint == null ? SimRunner.of(config) : SimRunner.from(checkpoint);
                Recovered<T> recovered = runner.startAndRecover(ctx -> withCrash(ctx, plan, task));
                if (recovered.outcome() instanceof Outcome.Failed<T> failed) {
                    throw failure(seed, plan, config, lifetime, failed.failure());
                }
                checkpoint = recovered.checkpoint();
            }
            SimRunner last = checkpoint == null ? SimRunner.of(config) : SimRunner.from(checkpoint);
            T value = last.start(ctx -> {
                SimRunner.control(ctx).crashPolicy(plan.faults().crashPolicy(SimRunner.control(ctx).random()));
                return task.run(ctx);
            });
            return new Run<>(value, last.digest());
        } catch (SimulationTestFailure failure) {
            throw failure;
        } catch (RuntimeException | Error failure) {
            throw failure(seed, plan, config, lifetime, failure);
        }
    }

    private static <T> T withCrash(Context ctx, Plan plan, Task<T> task) throws Exception {
        SimControl control = SimRunner.control(ctx);
        control.crashPolicy(plan.faults().crashPolicy(control.random()));
        long delay = 1 + control.random().nextLong(plan.crashWithin().toNanos());
        Handle<Void> crasher = ctx.child("lockstep_crash").spawn(c -> {
            c.sleep(Duration.ofNanos(delay));
            throw SimRunner.control(c).crash();
        });
        try {
            return task.run(ctx);
        } finally {
            crasher.abort();
        }
    }

    static SimulationTestFailure failure(long seed, Plan plan, SimConfig config, int lifetime,
                                                 Throwable cause) {
        StringBuilder message = new StringBuilder("simulation failed with seed ").append(seed);
        if (plan.crashes() > 0) {
            message.append(" in lifetime ").append(lifetime + 1).append(" of ").append(plan.crashes() + 1);
        }
        message.append(" (faults ").append(plan.faults()).append(", workers ").append(plan.workers()).append(")");
        message.append(": ").append(cause);
        message.append("\n  rerun just this seed: add @Seed(").append(seed).append(") to the test method");
        message.append("\n  simulator: ").append(config.replayLine());
        return new SimulationTestFailure(message.toString(), seed, plan.faults(), cause);
    }
}
