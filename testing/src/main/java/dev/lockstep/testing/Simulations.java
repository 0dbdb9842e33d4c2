package dev.lockstep.testing;

import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.Task;
import dev.lockstep.sim.Checkpoint;
import dev.lockstep.sim.DecisionChain;
import dev.lockstep.sim.FaultPoints;
import dev.lockstep.sim.Outcome;
import dev.lockstep.sim.Priorities;
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
     * @param failOnLeaks whether a run that ends holding resources it did not start with fails
     *                    ({@link SimConfig#failOnLeaks()})
     * @param openFileLimit the simulated process's open-file limit, as {@code ulimit -n} sets it
     *                      ({@link SimConfig#openFileLimit()}): above {@link SimConfig#RESERVED_FDS} and at most
     *                      {@link SimConfig#MAX_OPEN_FILE_LIMIT}, the default, which no run meets
     * @param search fault points, priorities and the decision chain ({@link SearchSettings}), as a
     *               {@link SearchStrategy} chose them
     */
    public record Plan(FaultConfig faults, int workers, int crashes, Duration crashWithin, Duration timeLimit,
            boolean failOnLeaks, int openFileLimit, SearchSettings search) {
        /** Checks the values. */
        public Plan {
            Objects.requireNonNull(faults, "faults");
            Objects.requireNonNull(search, "search");
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
            if (openFileLimit <= SimConfig.RESERVED_FDS || openFileLimit > SimConfig.MAX_OPEN_FILE_LIMIT) {
                throw new IllegalArgumentException("openFileLimit must be above " + SimConfig.RESERVED_FDS
                        + " (descriptors 0 to " + (SimConfig.RESERVED_FDS - 1) + " are taken) and at most "
                        + SimConfig.MAX_OPEN_FILE_LIMIT + ", was " + openFileLimit);
            }
        }

        /**
         * A plan with the simulator's {@link SearchSettings#DEFAULT}.
         *
         * @param faults the faults
         * @param workers simulated workers
         * @param crashes lifetimes cut by a crash
         * @param crashWithin how long into a lifetime the crash may come
         * @param timeLimit the simulated time limit of each lifetime
         * @param failOnLeaks whether a run that ends holding resources it did not start with fails
         * @param openFileLimit the simulated process's open-file limit
         */
        public Plan(FaultConfig faults, int workers, int crashes, Duration crashWithin, Duration timeLimit,
                boolean failOnLeaks, int openFileLimit) {
            this(faults, workers, crashes, crashWithin, timeLimit, failOnLeaks, openFileLimit, SearchSettings.DEFAULT);
        }

        /**
         * This plan with other search settings.
         *
         * @param settings fault points, priorities and decision chain
         * @return the new plan
         */
        public Plan withSearch(SearchSettings settings) {
            return new Plan(faults, workers, crashes, crashWithin, timeLimit, failOnLeaks, openFileLimit, settings);
        }

        /**
         * A plan without an open-file limit a run meets ({@link SimConfig#MAX_OPEN_FILE_LIMIT}).
         *
         * @param faults the faults
         * @param workers simulated workers
         * @param crashes lifetimes cut by a crash
         * @param crashWithin how long into a lifetime the crash may come
         * @param timeLimit the simulated time limit of each lifetime
         * @param failOnLeaks whether a run that ends holding resources it did not start with fails
         */
        public Plan(FaultConfig faults, int workers, int crashes, Duration crashWithin, Duration timeLimit,
                boolean failOnLeaks) {
            this(faults, workers, crashes, crashWithin, timeLimit, failOnLeaks, SimConfig.MAX_OPEN_FILE_LIMIT);
        }

        /**
         * A plan whose runs fail when they end holding resources they did not start with
         * ({@link SimConfig#failOnLeaks()}), as every plan does unless {@link #withLeakChecks} turns it off.
         *
         * @param faults the faults
         * @param workers simulated workers
         * @param crashes lifetimes cut by a crash
         * @param crashWithin how long into a lifetime the crash may come
         * @param timeLimit the simulated time limit of each lifetime
         */
        public Plan(FaultConfig faults, int workers, int crashes, Duration crashWithin, Duration timeLimit) {
            this(faults, workers, crashes, crashWithin, timeLimit, true, SimConfig.MAX_OPEN_FILE_LIMIT);
        }

        /**
         * This plan with leak checking on or off.
         *
         * @param on whether a run that ends holding fds, ring buffers or fibers it did not start with fails
         * @return the new plan
         */
        public Plan withLeakChecks(boolean on) {
            return new Plan(faults, workers, crashes, crashWithin, timeLimit, on, openFileLimit, search);
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
            return new Plan(faults, workers, count, within, timeLimit, failOnLeaks, openFileLimit, search);
        }

        /**
         * The text {@link Simulations#replay} reads back: every value that decides the run, with the seed.
         *
         * @param seed the seed
         * @return e.g. {@code seed=1 workers=1 faults=torn-writes crashes=3 crashWithinNanos=20000000
         *     timeLimitNanos=3600000000000},
         *     with {@code failOnLeaks=false} at the end when leak checking is off, {@code openFileLimit=N} when
         *     the plan has a limit, and {@code faultPoints=E:F}, {@code priorities=D:S}, {@code chain=K:S,...},
         *     {@code nemesis=NAME} for search settings other than the defaults
         */
        public String replayText(long seed) {
            return "seed=" + seed + " workers=" + workers + " faults=" + faults + " crashes=" + crashes
                    + " crashWithinNanos=" + crashWithin.toNanos() + " timeLimitNanos=" + timeLimit.toNanos()
                    + (failOnLeaks ? "" : " failOnLeaks=false")
                    + (openFileLimit == SimConfig.MAX_OPEN_FILE_LIMIT ? "" : " openFileLimit=" + openFileLimit)
                    + search.replayText();
        }

        /**
         * This plan with another number of workers.
         *
         * @param count workers
         * @return the new plan
         */
        public Plan withWorkers(int count) {
            return new Plan(faults, count, crashes, crashWithin, timeLimit, failOnLeaks, openFileLimit, search);
        }

        /**
         * This plan under another open-file limit: past it, an open, a dial or an accept fails with
         * {@code EMFILE} as on a process under {@code ulimit -n} (see {@link SimConfig#openFileLimit()}).
         *
         * @param limit above {@link SimConfig#RESERVED_FDS} and at most {@link SimConfig#MAX_OPEN_FILE_LIMIT}
         * @return the new plan
         * @throws IllegalArgumentException naming a limit out of that range
         */
        public Plan withOpenFileLimit(int limit) {
            return new Plan(faults, workers, crashes, crashWithin, timeLimit, failOnLeaks, limit, search);
        }
    }

    private Simulations() {
    }

    /**
     * Reruns a failed run exactly, from the text its failure printed after {@code replay:} (crashes, their times
     * and the crash policies included: they are all drawn from the seed). The task must be the one that failed,
     * with what it keeps across lifetimes reset, as at the first run.
     *
     * <p>A text with {@code nemesis=NAME} reruns a run whose strategy chose that nemesis: the task gets it from
     * {@link NemesisStrategy#forThisRun}, as the first run's did.
     *
     * @param replayText e.g. {@code seed=1 workers=1 faults=torn-writes crashes=3 crashWithinNanos=20000000
     *     timeLimitNanos=3600000000000}
     * @param task the task
     * @param <T> its value
     * @return the run
     * @throws SimulationTestFailure if it fails again (its {@link SimulationTestFailure#digest()} is the digest the
     *     first failure printed)
     * @throws IllegalArgumentException naming a value the text lacks or that is not a number or profile, a key it
     *     does not know or has twice, a {@code failOnLeaks} that is not {@code true} or {@code false}, or a nemesis
     *     {@link NemesisStrategy#parse} does not know
     */
    public static <T> Run<T> replay(String replayText, Task<T> task) {
        Replay replay = parseReplay(replayText);
        return execute(replay.seed(), replay.plan(), task);
    }

    /** A replay text read back: the run's seed and plan. */
    record Replay(long seed, Plan plan) {
    }

    /**
     * Reads a replay text ({@link Plan#replayText}).
     *
     * @throws IllegalArgumentException as {@link #replay} does
     */
    static Replay parseReplay(String replayText) {
        java.util.Map<String, String> values = new java.util.HashMap<>();
        for (String part : replayText.trim().split("\\s+")) {
            int equals = part.indexOf('=');
            if (equals <= 0) {
                throw new IllegalArgumentException("a replay is key=value pairs; '" + part + "' in '" + replayText
                        + "' is not one");
            }
            String key = part.substring(0, equals);
            if (!REPLAY_KEYS.contains(key)) {
                // A misspelled key (openFileLimt=20) would otherwise replay a different run without a word.
                throw new IllegalArgumentException("the replay '" + replayText + "' has an unknown key '" + key
                        + "'; known: " + String.join(", ", REPLAY_KEYS));
            }
            if (values.put(key, part.substring(equals + 1)) != null) {
                throw new IllegalArgumentException("the replay '" + replayText + "' has " + key + "= twice");
            }
        }
        String leaks = values.get("failOnLeaks");
        if (leaks != null && !leaks.equals("true") && !leaks.equals("false")) {
            throw new IllegalArgumentException("the replay '" + replayText + "' has failOnLeaks=" + leaks
                    + ", not true or false");
        }
        long seed = number(values, "seed", replayText);
        Plan plan = new Plan(FaultConfig.parse(required(values, "faults", replayText)),
                intNumber(values, "workers", replayText), intNumber(values, "crashes", replayText),
                Duration.ofNanos(number(values, "crashWithinNanos", replayText)),
                Duration.ofNanos(number(values, "timeLimitNanos", replayText)),
                !"false".equals(values.get("failOnLeaks")),
                values.containsKey("openFileLimit") ? intNumber(values, "openFileLimit", replayText)
                        : SimConfig.MAX_OPEN_FILE_LIMIT, searchSettings(values, replayText));
        return new Replay(seed, plan);
    }

    /** The keys {@link Plan#replayText} writes, in its order. */
    private static final java.util.List<String> REPLAY_KEYS = java.util.List.of("seed", "workers", "faults",
            "crashes", "crashWithinNanos", "timeLimitNanos", "failOnLeaks", "openFileLimit", "faultPoints",
            "priorities", "chain", "nemesis");

    private static SearchSettings searchSettings(java.util.Map<String, String> values, String text) {
        try {
            return new SearchSettings(
                    values.containsKey("faultPoints") ? FaultPoints.parse(values.get("faultPoints"))
                            : FaultPoints.DEFAULT,
                    values.containsKey("priorities") ? Priorities.parse(values.get("priorities")) : Priorities.OFF,
                    values.containsKey("chain") ? DecisionChain.parse(values.get("chain")) : DecisionChain.NONE,
                    values.containsKey("nemesis") ? NemesisStrategy.parse(values.get("nemesis")) : null);
        } catch (IllegalArgumentException bad) {
            throw new IllegalArgumentException("the replay '" + text + "': " + bad.getMessage(), bad);
        }
    }

    private static String required(java.util.Map<String, String> values, String key, String text) {
        String value = values.get(key);
        if (value == null) {
            throw new IllegalArgumentException("the replay '" + text + "' has no " + key + "=");
        }
        return value;
    }

    private static int intNumber(java.util.Map<String, String> values, String key, String text) {
        long value = number(values, key, text);
        if (value != (int) value) {
            throw new IllegalArgumentException("the replay '" + text + "' has " + key + "=" + value
                    + ", out of range");
        }
        return (int) value;
    }

    private static long number(java.util.Map<String, String> values, String key, String text) {
        String value = required(values, key, text);
        // Decimal ASCII digits only: Long.parseLong also takes a leading '+' and the digits of every script, so
        // a line that shows one seed could replay another.
        if (!value.matches("-?[0-9]+")) {
            throw new IllegalArgumentException("the replay '" + text + "' has " + key + "=" + value
                    + ", not a number in decimal digits");
        }
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException bad) {
            throw new IllegalArgumentException("the replay '" + text + "' has " + key + "=" + value
                    + ", out of range");
        }
    }

    /**
     * The simulator configuration of a seed's first lifetime.
     *
     * @param seed the seed
     * @param plan the plan
     * @return the configuration
     */
    public static SimConfig config(long seed, Plan plan) {
        return plan.search().applyTo(plan.faults().applyTo(SimConfig.builder().seed(seed).workers(plan.workers())
                .timeLimit(plan.timeLimit()).failOnLeaks(plan.failOnLeaks())
                .openFileLimit(plan.openFileLimit()))).build();
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
        return execute(seed, plan, task, false);
    }

    /** As {@link #execute(long, Plan, Task)}; {@code underSimulationTest}: the failure may suggest {@code @Seed}. */
    static <T> Run<T> execute(long seed, Plan plan, Task<T> task, boolean underSimulationTest) {
        return execute(seed, plan, task, underSimulationTest, null);
    }

    /**
     * As {@link #execute(long, Plan, Task, boolean)}; {@code record}, if not null, is given every lifetime's
     * runner once it ran, whether the lifetime passed or failed.
     */
    static <T> Run<T> execute(long seed, Plan plan, Task<T> task, boolean underSimulationTest,
                              java.util.function.Consumer<SimRunner> record) {
        SimConfig config = config(seed, plan);
        // Every run draws the crash policy before the task and may spawn a crasher: SimRunner.of(config) alone
        // would run another course, so the line each run's failures print is this harness's own.
        String replayLine = replayLine(plan.replayText(seed));
        Checkpoint checkpoint = null;
        SimRunner runner = null;
        int lifetime = 0;
        try {
            for (; lifetime < plan.crashes(); lifetime++) {
                runner = (checkpoint == null ? SimRunner.of(config) : SimRunner.from(checkpoint))
                        .replayedBy(replayLine).attach(new RunSettings(plan.search()));
                Recovered<T> recovered;
                try {
                    recovered = runner.startAndRecover(ctx -> withCrash(ctx, plan, task));
                } finally {
                    recordRun(record, runner);
                }
                if (recovered.outcome() instanceof Outcome.Failed<T> failed) {
                    throw failure(seed, plan, lifetime, failed.failure(), digestOf(runner), underSimulationTest);
                }
                checkpoint = recovered.checkpoint();
            }
            SimRunner last = (checkpoint == null ? SimRunner.of(config) : SimRunner.from(checkpoint))
                    .replayedBy(replayLine).attach(new RunSettings(plan.search()));
            runner = last;
            T value;
            try {
                value = last.start(ctx -> {
                    SimControl control = SimRunner.control(ctx);
                    control.crashPolicy(plan.faults().crashPolicy(control.random()));
                    return task.run(ctx);
                });
            } finally {
                recordRun(record, last);
            }
            return new Run<>(value, last.digest());
        } catch (SimulationTestFailure failure) {
            throw failure;
        } catch (RuntimeException | Error failure) {
            throw failure(seed, plan, lifetime, failure, digestOf(runner), underSimulationTest);
        }
    }

    private static void recordRun(java.util.function.Consumer<SimRunner> record, SimRunner runner) {
        if (record != null) {
            record.accept(runner);
        }
    }

    private static String digestOf(SimRunner runner) {
        try {
            return runner == null ? null : runner.digest();
        } catch (IllegalStateException notRun) {
            return null;
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

    static SimulationTestFailure failure(long seed, Plan plan, int lifetime, Throwable cause, String digest,
                                         boolean underSimulationTest) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof dev.lockstep.UnsupportedJdkException unsupported) {
                // No seed and no flag is involved: this JDK lacks a member of its internals that Lockstep needs.
                return new SimulationTestFailure("the simulator cannot start on this JVM: " + unsupported.getMessage(),
                        seed, plan.faults(), null, null, cause);
            }
        }
        String missingFlag = missingJvmFlag(cause);
        if (missingFlag != null) {
            // No seed is involved: every seed fails the same way until the JVM is started with the flags.
            return new SimulationTestFailure("the simulator cannot start on this JVM: " + missingFlag
                    + "\n  fix: start the test JVM with " + JVM_FLAGS + " (Maven: the Surefire argLine, see the README)",
                    seed, plan.faults(), null, null, cause);
        }
        StringBuilder message = new StringBuilder("simulation failed with seed ").append(seed);
        if (plan.crashes() > 0) {
            message.append(" in lifetime ").append(lifetime + 1).append(" of ").append(plan.crashes() + 1);
        }
        message.append(" (faults ").append(plan.faults()).append(", workers ").append(plan.workers());
        if (plan.crashes() > 0) {
            message.append(", crashes ").append(plan.crashes()).append(" within ")
                    .append(plan.crashWithin().toMillis()).append(" ms");
        }
        message.append("): ").append(cause);
        if (underSimulationTest && plan.search().chain().segments().isEmpty()) {
            message.append("\n  rerun just this seed: add @Seed(").append(seed).append(") to the test method");
            if (!plan.search().equals(SearchSettings.DEFAULT)) {
                message.append(" (it runs under the sweep's strategy: keep its -D").append(SweepSettings.STRATEGY)
                        .append(", if it set one)");
            }
        }
        String replay = plan.replayText(seed);
        message.append("\n  ").append(replayLine(replay));
        if (digest != null) {
            message.append(" ends with audit digest ").append(digest);
        }
        if (underSimulationTest) {
            message.append("\n  or run the test method alone with -D").append(SweepSettings.REPLAY).append("=\"")
                    .append(replay).append('"');
        }
        return new SimulationTestFailure(message.toString(), seed, plan.faults(), replay, digest, cause);
    }

    /** The line that reruns a run of this replay text. */
    private static String replayLine(String replayText) {
        return "replay: Simulations.replay(\"" + replayText + "\", task)";
    }

    /** The flags every JVM that runs Lockstep needs. */
    static final String JVM_FLAGS = SimRunner.REQUIRED_JVM_FLAGS;

    private static String missingJvmFlag(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof IllegalStateException && t.getMessage() != null
                    && t.getMessage().contains(SimRunner.OPENS_FLAG)) {
                return t.getMessage();
            }
        }
        return null;
    }
}
