package dev.lockstep.testing;

import dev.lockstep.Context;
import dev.lockstep.Task;
import dev.lockstep.sim.SimConfig;
import dev.lockstep.sim.SimControl;
import dev.lockstep.sim.SimRunner;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.Extension;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;
import org.junit.jupiter.api.extension.TestTemplateInvocationContext;
import org.junit.jupiter.api.extension.TestTemplateInvocationContextProvider;

/**
 * The JUnit 5 extension behind {@link SimulationTest}: one invocation per seed (or only the {@link Seed}), plus
 * one on runtime-uring when asked. Each invocation runs the test method as the root task of a runner, through
 * {@link Simulations} in the simulator.
 *
 * <p>The parameters the method takes ({@code Context}, {@code SimControl}, {@code RandomGenerator},
 * {@link SimulationInfo}) exist only inside the runner, so the resolver hands JUnit placeholders and the
 * interceptor calls the method itself, inside the runner, with the real values.
 *
 * <p>With more than one thread ({@link SimulationTest#threads()}) the seeds' runs go ahead of JUnit on a
 * {@code Sweep}, each on an instance of its own, and each invocation waits for its seed's result; with one, each
 * invocation runs its seed on JUnit's thread and instance. {@code Sweep} (package-private) says why this design
 * and not JUnit's own concurrent execution.
 */
public final class SimulationExtension implements TestTemplateInvocationContextProvider {
    /**
     * The JUnit configuration parameter that sets {@link SimulationTest#threads()} for every method that leaves it
     * at 0: {@code 1} runs every sweep one seed at a time, {@code 0} (or unset) one per processor.
     */
    public static final String THREADS = "lockstep.simulationtest.threads";

    @Override
    public boolean supportsTestTemplate(ExtensionContext context) {
        return context.getTestMethod().map(m -> m.isAnnotationPresent(SimulationTest.class)).orElse(false);
    }

    @Override
    public Stream<TestTemplateInvocationContext> provideTestTemplateInvocationContexts(ExtensionContext context) {
        Method method = context.getRequiredTestMethod();
        SimulationTest test = method.getAnnotation(SimulationTest.class);
        if (test.seeds() < 1) {
            throw new IllegalArgumentException("@SimulationTest(seeds = " + test.seeds() + ") on " + method
                    + ": seeds must be at least 1");
        }
        if (test.faults().isBlank() || (!test.faults().equals("swarm"))) {
            FaultConfig.parse(test.faults()); // Fails early, naming the bad fault.
        }
        if (test.firstSeed() > Long.MAX_VALUE - (test.seeds() - 1)) {
            throw new IllegalArgumentException("@SimulationTest(firstSeed = " + test.firstSeed() + ", seeds = "
                    + test.seeds() + ") on " + method + ": the last seed would be past " + Long.MAX_VALUE);
        }
        if (test.workers() < 1) {
            throw new IllegalArgumentException("@SimulationTest(workers = " + test.workers() + ") on " + method
                    + ": workers must be at least 1");
        }
        if (test.crashes() < 0) {
            throw new IllegalArgumentException("@SimulationTest(crashes = " + test.crashes() + ") on " + method
                    + ": crashes must not be negative");
        }
        if (test.crashWithinMillis() <= 0) {
            throw new IllegalArgumentException("@SimulationTest(crashWithinMillis = " + test.crashWithinMillis()
                    + ") on " + method + ": the crash window must be positive");
        }
        if (test.openFileLimit() <= SimConfig.RESERVED_FDS || test.openFileLimit() > SimConfig.MAX_OPEN_FILE_LIMIT) {
            throw new IllegalArgumentException("@SimulationTest(openFileLimit = " + test.openFileLimit() + ") on "
                    + method + ": the limit must be above " + SimConfig.RESERVED_FDS + " (descriptors 0 to "
                    + (SimConfig.RESERVED_FDS - 1) + " are taken) and at most " + SimConfig.MAX_OPEN_FILE_LIMIT);
        }
        int threads = threads(test, method, context);
        SweepSettings settings = SweepSettings.of(test, method, context);
        Seed pinned = method.getAnnotation(Seed.class);
        List<TestTemplateInvocationContext> invocations = new ArrayList<>();
        MethodRuns runs;
        if (settings.replay() != null) {
            // One run, exactly as a failure printed it: on JUnit's thread and instance.
            Simulations.Replay replay = Simulations.parseReplay(settings.replay());
            runs = new MethodRuns(settings, null, new SearchStrategy.Candidate(replay.seed(), replay.plan()), 1);
            invocations.add(new Invocation(test, replay.seed(), false, 0, null, runs));
        } else if (pinned != null) {
            // One seed, to debug: on JUnit's thread and instance, as any test runs.
            runs = new MethodRuns(settings, null, null, 1);
            invocations.add(new Invocation(test, pinned.value(), false, 0, null, runs));
        } else {
            // A strategy whose runs depend on the runs before it goes one run at a time, in order, on JUnit's thread.
            runs = new MethodRuns(settings, settings.strategy().sequential()
                    ? settings.strategy().session(settings.sessionFirstSeed(), seed -> plan(test, seed)) : null,
                    null, settings.runs());
            Sweep sweep = settings.strategy().sequential() ? null : sweep(test, method, context, threads, runs);
            for (int i = 0; i < settings.runs(); i++) {
                invocations.add(new Invocation(test, settings.seedAt(i), false, i, sweep, runs));
            }
            if (test.uring()) {
                invocations.add(new Invocation(test, settings.firstSeed(), true, -1, sweep, runs));
            }
        }
        if (settings.report() != null) {
            // The method's store closes it, writing the report, once every invocation of the method is done.
            runs.summary = new SweepSummary(context.getRequiredTestClass(), method.getName(), settings, runs);
            context.getStore(ExtensionContext.Namespace.create(SimulationExtension.class))
                    .put(SweepSummary.class, runs.summary);
        }
        return invocations.stream();
    }

    /**
     * The runs at once this method asks for: {@link SimulationTest#threads()}, else the configuration parameter
     * {@link #THREADS}, else one per processor.
     */
    static int threads(SimulationTest test, Method method, ExtensionContext context) {
        if (test.threads() < 0) {
            throw new IllegalArgumentException("@SimulationTest(threads = " + test.threads() + ") on " + method
                    + ": threads must be 0 (one per processor), 1 (one run at a time) or more");
        }
        if (test.threads() > 0) {
            return test.threads();
        }
        String parameter = context.getConfigurationParameter(THREADS).orElse("0").trim();
        int threads;
        try {
            threads = Integer.parseInt(parameter);
        } catch (NumberFormatException notANumber) {
            threads = -1;
        }
        if (threads < 0) {
            throw new IllegalArgumentException("the configuration parameter " + THREADS + " = " + parameter
                    + ": it must be 0 (one per processor), 1 (one run at a time) or more");
        }
        return threads == 0 ? Runtime.getRuntime().availableProcessors() : threads;
    }

    /**
     * The sweep on several threads, or null for one run at a time on JUnit's thread: with one thread, with one
     * run, or for a class whose runs would share state ({@link FreshInstance#sharedBetweenRuns}) - refused if
     * {@code threads} was asked for on the annotation, else run one at a time with a report entry that says why.
     */
    private static Sweep sweep(SimulationTest test, Method method, ExtensionContext context, int threads,
                               MethodRuns methodRuns) {
        SweepSettings settings = methodRuns.settings;
        long runs = (long) settings.runs() * (test.checkDeterminism() ? 2 : 1);
        int parallel = (int) Math.min(threads, runs);
        if (parallel <= 1) {
            return null;
        }
        Class<?> type = context.getRequiredTestClass();
        String shared = FreshInstance.sharedBetweenRuns(context, type, method);
        if (shared != null) {
            if (test.threads() > 1) {
                throw new ExtensionConfigurationException("@SimulationTest(threads = " + test.threads() + ") on "
                        + type.getSimpleName() + "." + method.getName() + " cannot run seeds at once: " + shared
                        + ". Keep what a seed's run uses in instance fields of a class JUnit makes per method, or"
                        + " set threads = 1");
            }
            context.publishReportEntry("SimulationTest", "seeds run one at a time on JUnit's thread: " + shared);
            return null;
        }
        Sweep sweep = new Sweep(test, methodRuns, method, type, parallel);
        // The method's store closes the sweep (its pool) once every invocation of the method is done.
        context.getStore(ExtensionContext.Namespace.create(SimulationExtension.class)).put(Sweep.class, sweep);
        return sweep;
    }

    static FaultConfig faults(SimulationTest test, long seed) {
        return test.faults().equals("swarm") ? FaultConfig.swarm(seed) : FaultConfig.parse(test.faults());
    }

    static Simulations.Plan plan(SimulationTest test, long seed) {
        return new Simulations.Plan(faults(test, seed), test.workers(), test.crashes(),
                Duration.ofMillis(test.crashWithinMillis()), Duration.ofHours(1), test.checkLeaks(),
                test.openFileLimit());
    }

    /** The plan of {@code seed} under a strategy whose runs are independent. */
    static Simulations.Plan plan(SimulationTest test, long seed, SearchStrategy strategy) {
        return strategy.planFor(seed, plan(test, seed), test.clusterNemesis());
    }

    /**
     * What a method's invocations share: its sweep settings, the session of a sequential strategy (used only on
     * JUnit's thread, one invocation after another) and whether a seed failed (written and read on JUnit's
     * thread, which runs the invocations; volatile for a JUnit configured to run them elsewhere).
     */
    static final class MethodRuns {
        final SweepSettings settings;
        final SearchStrategy.Session session;
        /** The one run of a {@code lockstep.replay}, or null. */
        final SearchStrategy.Candidate replay;
        /** How many simulated invocations the method has. */
        final int invocations;
        /** The report of the sweep, or null; set before JUnit runs the first invocation. */
        SweepSummary summary;
        volatile boolean failed;
        /**
         * Each {@code sometimes} label the sweep's runs evaluated, with whether one made it true. Written by the
         * threads that run seeds, read by JUnit's thread after the last seed's run: a concurrent map, and every
         * run records into it before its result is handed to JUnit's thread.
         */
        private final java.util.concurrent.ConcurrentHashMap<String, Boolean> sometimes =
                new java.util.concurrent.ConcurrentHashMap<>();

        MethodRuns(SweepSettings settings, SearchStrategy.Session session, SearchStrategy.Candidate replay,
                   int invocations) {
            this.settings = settings;
            this.session = session;
            this.replay = replay;
            this.invocations = invocations;
        }

        void recordSometimes(RunRecord record) {
            for (dev.lockstep.sim.Coverage coverage : record.lifetimes()) {
                coverage.sometimes().forEach((label, count) -> sometimes.merge(label, count.satisfied() > 0,
                        Boolean::logicalOr));
            }
        }

        /** The labels evaluated and never true, in order. */
        java.util.SortedSet<String> neverSatisfied() {
            java.util.TreeSet<String> never = new java.util.TreeSet<>();
            sometimes.forEach((label, satisfied) -> {
                if (!satisfied) {
                    never.add(label);
                }
            });
            return never;
        }
    }

    /** The failure of {@code checkDeterminism} when a seed's two runs end with different digests. */
    static SimulationTestFailure differs(long seed, Simulations.Plan plan, String first, String second) {
        return Simulations.failure(seed, plan, plan.crashes(), new AssertionError("two runs of seed " + seed
                + " differ: audit digest " + first + " then " + second
                + "; the test or the code under test depends on something outside the simulation"
                + " (wall-clock time, an unseeded random, identity hash order, another thread)"), second, true);
    }

    /** Calls the test method on {@code target} as the root task of a simulated run of {@code seed}. */
    static Object invoke(Method method, Object target, Context ctx, Simulations.Plan plan, long seed)
            throws Exception {
        SimControl control = SimRunner.control(ctx);
        String refusal = nemesisRefusal(method);
        RunSettings settings = RunSettings.of(control);
        if (refusal != null && settings != null) {
            settings.refuseNemesis(refusal);
        }
        int lifetime = control.restarts();
        SimulationInfo info = new SimulationInfo(seed, lifetime, lifetime == plan.crashes(), plan.faults(), true);
        return Runner.call(method, target, ctx, control, control.random(), info);
    }

    /** Why {@link NemesisStrategy#forThisRun} is refused in a run of {@code method}, on either runtime, or null. */
    static String nemesisRefusal(Method method) {
        return method.getAnnotation(SimulationTest.class).clusterNemesis() ? null : "NemesisStrategy.forThisRun in "
                + method.getName() + ", whose @SimulationTest does not say clusterNemesis = true: no search strategy"
                + " chooses a nemesis for it; add clusterNemesis = true";
    }

    /** A piece of work that may throw anything. */
    @FunctionalInterface
    interface ThrowingRunnable {
        void run() throws Throwable;
    }

    /** One seed (at {@code index} in the sweep), or the runtime-uring run; {@code sweep} null: on JUnit's thread. */
    private record Invocation(SimulationTest test, long seed, boolean uring, int index, Sweep sweep, MethodRuns runs)
            implements TestTemplateInvocationContext {
        @Override
        public String getDisplayName(int invocationIndex) {
            return uring ? "runtime-uring" : runs.replay != null ? "replay of seed " + seed
                    : runs.session != null ? "guided run " + (index + 1) : "seed " + seed;
        }

        @Override
        public List<Extension> getAdditionalExtensions() {
            return List.of(new Placeholders(uring), new Runner(test, seed, uring, index, sweep, runs));
        }
    }

    /** Accepts the runtime's parameters; their real values are made inside the runner. */
    private record Placeholders(boolean uring) implements ParameterResolver {
        @Override
        public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
            Class<?> type = parameter.getParameter().getType();
            return type == Context.class || type == SimControl.class || type == RandomGenerator.class
                    || type == SimulationInfo.class;
        }

        @Override
        public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
            if (uring && parameter.getParameter().getType() == SimControl.class) {
                throw new ParameterResolutionException("SimControl exists only in the simulator: "
                        + context.getRequiredTestMethod().getName() + " takes one, so it cannot run with uring = true");
            }
            return null;
        }
    }

    /**
     * Runs the method inside the runner: here on JUnit's thread and instance, or through the sweep, whose runs
     * have instances of their own (so JUnit's instance is not set up or torn down: it is not used).
     */
    private record Runner(SimulationTest test, long seed, boolean uring, int index, Sweep sweep, MethodRuns runs)
            implements InvocationInterceptor {
        private boolean swept() {
            return sweep != null && !uring;
        }

        @Override
        public void interceptBeforeEachMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> call,
                                              ExtensionContext context) throws Throwable {
            if (swept()) {
                invocation.skip(); // the seed's run calls it on its own instance
            } else {
                invocation.proceed();
            }
        }

        @Override
        public void interceptAfterEachMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> call,
                                             ExtensionContext context) throws Throwable {
            if (swept()) {
                invocation.skip(); // the seed's run calls it on its own instance
            } else {
                invocation.proceed();
            }
        }

        @Override
        public void interceptTestTemplateMethod(Invocation<Void> invocation,
                                                ReflectiveInvocationContext<Method> call,
                                                ExtensionContext context) throws Throwable {
            invocation.skip();
            Method method = call.getExecutable();
            Object target = call.getTarget().orElse(null);
            method.setAccessible(true);
            if (uring) {
                if (sweep != null) {
                    sweep.alone(() -> runOnUring(method, target));
                } else {
                    runOnUring(method, target);
                }
                return;
            }
            boolean last = index == runs.invocations - 1;
            if (runs.settings.stopAtFirstFailure() && runs.failed) {
                if (last) {
                    reportNeverSatisfied(context);
                }
                if (runs.summary != null) {
                    runs.summary.notRun();
                }
                throw new org.opentest4j.TestAbortedException("not run: an earlier seed failed and "
                        + SweepSettings.STOP_AT_FIRST_FAILURE + " is true");
            }
            try {
                runSimulated(method, target, context);
                if (runs.summary != null) {
                    runs.summary.passed();
                }
            } catch (Throwable failure) {
                runs.failed = true;
                if (runs.summary != null) {
                    runs.summary.failed(failure);
                }
                throw failure;
            } finally {
                if (last) {
                    reportNeverSatisfied(context);
                }
            }
        }

        /** After the sweep's last seed: the {@code sometimes} labels no run made true, as a report entry. */
        private void reportNeverSatisfied(ExtensionContext context) {
            java.util.SortedSet<String> never = runs.neverSatisfied();
            if (!never.isEmpty()) {
                context.publishReportEntry("sometimes never true", never.size() + " label"
                        + (never.size() == 1 ? "" : "s") + " evaluated in this sweep and never true: "
                        + String.join(", ", never));
            }
        }

        private void runSimulated(Method method, Object target, ExtensionContext context) throws Throwable {
            if (sweep != null) {
                sweep.await(index, seed);
                return;
            }
            SearchStrategy.Candidate candidate = runs.replay != null ? runs.replay
                    : runs.session != null ? runs.session.next()
                    : new SearchStrategy.Candidate(seed, plan(test, seed, runs.settings.strategy()));
            long seed = candidate.seed();
            Simulations.Plan plan = candidate.plan();
            RunRecord record = new RunRecord();
            Simulations.Run<Object> first;
            try {
                first = Simulations.execute(seed, plan, ctx -> invoke(method, target, ctx, plan, seed), true,
                        record::add);
            } finally {
                runs.recordSometimes(record);
            }
            if (runs.session != null) {
                runs.session.observe(candidate, record);
            }
            if (test.checkDeterminism()) {
                // The rerun gets a fresh instance, as the first run did: what the test keeps in fields (a model of
                // what was acknowledged) must start empty again, or the rerun differs for the test's own reasons.
                Object fresh = FreshInstance.of(context, target);
                Simulations.Run<Object> second;
                try {
                    second = Simulations.execute(seed, plan, ctx -> invoke(method, fresh, ctx, plan, seed), true);
                } finally {
                    FreshInstance.tearDown(fresh);
                }
                if (!first.digest().equals(second.digest())) {
                    throw differs(seed, plan, first.digest(), second.digest());
                }
            }
        }

        private void runOnUring(Method method, Object target) throws Throwable {
            UringRun.requireOnClassPath(method, SimulationExtension.class.getClassLoader());
            Path storage = Files.createTempDirectory("lockstep-test-");
            try {
                SimulationInfo info = new SimulationInfo(seed, 0, true, FaultConfig.NONE, false);
                UringRefusal.during(nemesisRefusal(method), () -> UringRun.start(test.workers(), storage,
                        ctx -> call(method, target, ctx, null, new SplittableRandom(seed), info)));
            } catch (RuntimeException | Error failure) {
                throw new AssertionError("the runtime-uring run of " + method.getName() + " failed: " + failure,
                        failure);
            } finally {
                deleteTree(storage);
            }
        }

        private static Object call(Method method, Object target, Context ctx, SimControl control,
                                   RandomGenerator random, SimulationInfo info) throws Exception {
            Parameter[] parameters = method.getParameters();
            Object[] arguments = new Object[parameters.length];
            for (int i = 0; i < parameters.length; i++) {
                Class<?> type = parameters[i].getType();
                arguments[i] = type == Context.class ? ctx : type == SimControl.class ? control
                        : type == RandomGenerator.class ? random : type == SimulationInfo.class ? info : null;
            }
            try {
                return method.invoke(target, arguments);
            } catch (InvocationTargetException thrown) {
                Throwable cause = thrown.getCause();
                if (cause instanceof Exception exception) {
                    throw exception;
                }
                throw (Error) cause;
            }
        }

        private static void deleteTree(Path root) throws IOException {
            try (Stream<Path> paths = Files.walk(root)) {
                for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(path);
                }
            }
        }
    }
}
