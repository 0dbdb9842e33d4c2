package dev.lockstep.testing;

import dev.lockstep.Context;
import dev.lockstep.Task;
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
 */
public final class SimulationExtension implements TestTemplateInvocationContextProvider {

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
        Seed pinned = method.getAnnotation(Seed.class);
        List<TestTemplateInvocationContext> invocations = new ArrayList<>();
        if (pinned != null) {
            invocations.add(new Invocation(test, pinned.value(), false));
        } else {
            for (int i = 0; i < test.seeds(); i++) {
                invocations.add(new Invocation(test, test.firstSeed() + i, false));
            }
            if (test.uring()) {
                invocations.add(new Invocation(test, test.firstSeed(), true));
            }
        }
        return invocations.stream();
    }

    static FaultConfig faults(SimulationTest test, long seed) {
        return test.faults().equals("swarm") ? FaultConfig.swarm(seed) : FaultConfig.parse(test.faults());
    }

    static Simulations.Plan plan(SimulationTest test, long seed) {
        return new Simulations.Plan(faults(test, seed), test.workers(), test.crashes(),
                Duration.ofMillis(test.crashWithinMillis()), Duration.ofHours(1), test.checkLeaks());
    }

    /** One seed, or the runtime-uring run. */
    private record Invocation(SimulationTest test, long seed, boolean uring) implements TestTemplateInvocationContext {
        @Override
        public String getDisplayName(int invocationIndex) {
            return uring ? "runtime-uring" : "seed " + seed;
        }

        @Override
        public List<Extension> getAdditionalExtensions() {
            return List.of(new Placeholders(uring), new Runner(test, seed, uring));
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

    /** Runs the method inside the runner. */
    private record Runner(SimulationTest test, long seed, boolean uring) implements InvocationInterceptor {
        @Override
        public void interceptTestTemplateMethod(Invocation<Void> invocation,
                                                ReflectiveInvocationContext<Method> call,
                                                ExtensionContext context) throws Throwable {
            invocation.skip();
            Method method = call.getExecutable();
            Object target = call.getTarget().orElse(null);
            method.setAccessible(true);
            if (uring) {
                runOnUring(method, target);
                return;
            }
            Simulations.Plan plan = plan(test, seed);
            Simulations.Run<Object> first = Simulations.execute(seed, plan, ctx -> invoke(method, target, ctx, plan),
                    true);
            if (test.checkDeterminism()) {
                // The rerun gets a fresh instance, as the first run did: what the test keeps in fields (a model of
                // what was acknowledged) must start empty again, or the rerun differs for the test's own reasons.
                Object fresh = FreshInstance.of(context, target);
                Simulations.Run<Object> second;
                try {
                    second = Simulations.execute(seed, plan, ctx -> invoke(method, fresh, ctx, plan), true);
                } finally {
                    FreshInstance.tearDown(fresh);
                }
                if (!first.digest().equals(second.digest())) {
                    throw Simulations.failure(seed, plan, plan.crashes(), new AssertionError("two runs of seed "
                            + seed + " differ: audit digest " + first.digest() + " then " + second.digest()
                            + "; the test or the code under test depends on something outside the simulation"
                            + " (wall-clock time, an unseeded random, identity hash order, another thread)"),
                            second.digest(), true);
                }
            }
        }

        private Object invoke(Method method, Object target, Context ctx, Simulations.Plan plan) throws Exception {
            SimControl control = SimRunner.control(ctx);
            int lifetime = control.restarts();
            SimulationInfo info = new SimulationInfo(seed, lifetime, lifetime == plan.crashes(), plan.faults(), true);
            return call(method, target, ctx, control, control.random(), info);
        }

        private void runOnUring(Method method, Object target) throws Throwable {
            UringRun.requireOnClassPath(method, SimulationExtension.class.getClassLoader());
            Path storage = Files.createTempDirectory("lockstep-test-");
            try {
                SimulationInfo info = new SimulationInfo(seed, 0, true, FaultConfig.NONE, false);
                UringRun.start(test.workers(), storage,
                        ctx -> call(method, target, ctx, null, new SplittableRandom(seed), info));
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
