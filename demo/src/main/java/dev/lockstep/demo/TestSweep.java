package dev.lockstep.demo;

import dev.lockstep.testing.SimulationTest;
import dev.lockstep.testing.SimulationTestFailure;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * {@code explore --test} and {@code replay --test}: a user's own {@code @SimulationTest} methods, loaded from the
 * class path the user names and run through the JUnit Platform in this JVM, with the sweep settings
 * {@code @SimulationTest} reads ({@code lockstep.seeds}, {@code lockstep.firstSeed}, {@code lockstep.strategy},
 * {@code lockstep.stopAtFirstFailure}, {@code lockstep.shard}, {@code lockstep.report}, {@code lockstep.replay})
 * given as JUnit configuration parameters. Each failed run is printed with the command that reruns exactly that
 * run of that method.
 *
 * <p>The user's classes are loaded by a class loader of their own whose parent is this program's: Lockstep and
 * JUnit come from this program (so the user's class path may hold other copies of them, which are not used), the
 * test classes and the code under test from the user's class path. Runs on the calling thread, which the JUnit
 * Platform runs the invocations on (a sweep's seeds run ahead on threads of its own).
 */
final class TestSweep {
    /**
     * What to run.
     *
     * @param test {@code CLASS#METHOD}, or {@code CLASS} for every {@code @SimulationTest} method of it
     * @param classPath the user's class path, entries joined by {@link File#pathSeparator}
     * @param parameters the JUnit configuration parameters ({@code lockstep.*})
     */
    record Request(String test, String classPath, Map<String, String> parameters) {
        Request {
            parameters = Map.copyOf(parameters);
        }
    }

    /** A class and the methods of it to run. */
    record Target(Class<?> type, List<Method> methods) {
    }

    /** What a run of the launcher did. */
    record Outcome(int passed, int failed, int notRun, List<String> problems, List<SimulationTestFailure> failures) {
    }

    private TestSweep() {
    }

    /**
     * The class loader of the user's class path.
     *
     * @throws IllegalArgumentException naming an empty class path or an entry that does not exist
     */
    static URLClassLoader loader(String classPath) {
        if (classPath.isBlank()) {
            throw new IllegalArgumentException("--classpath is empty: name the directories and jars of the tests,"
                    + " for a Maven project target/test-classes:target/classes and its dependencies");
        }
        List<URL> urls = new ArrayList<>();
        for (String entry : classPath.split(File.pathSeparator)) {
            if (entry.isEmpty()) {
                continue;
            }
            Path path = Path.of(entry);
            if (!Files.exists(path)) {
                throw new IllegalArgumentException("--classpath entry " + entry + " does not exist");
            }
            try {
                urls.add(path.toAbsolutePath().toUri().toURL());
            } catch (MalformedURLException impossible) {
                throw new IllegalArgumentException("--classpath entry " + entry + ": " + impossible.getMessage());
            }
        }
        return new URLClassLoader("lockstep-user-tests", urls.toArray(URL[]::new), TestSweep.class.getClassLoader());
    }

    /**
     * The class and methods {@code test} names.
     *
     * @throws IllegalArgumentException naming a class that is not on the class path, a method it does not have, or
     *     a method (or a class with none) that is not a {@code @SimulationTest}
     */
    static Target target(String test, ClassLoader loader) {
        int hash = test.indexOf('#');
        String className = hash < 0 ? test : test.substring(0, hash);
        String methodName = hash < 0 ? null : test.substring(hash + 1);
        if (className.isEmpty() || (methodName != null && methodName.isEmpty())) {
            throw new IllegalArgumentException("--test " + test + ": name a class, CLASS#METHOD for one method");
        }
        Class<?> type;
        try {
            type = Class.forName(className, false, loader);
        } catch (ClassNotFoundException | LinkageError missing) {
            throw new IllegalArgumentException("--test " + test + ": class " + className + " is not on the class"
                    + " path (" + missing + ")");
        }
        List<Method> methods = new ArrayList<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Method method : c.getDeclaredMethods()) {
                if ((methodName == null || method.getName().equals(methodName))
                        && method.isAnnotationPresent(SimulationTest.class)) {
                    methods.add(method);
                }
            }
        }
        if (methods.isEmpty()) {
            throw new IllegalArgumentException("--test " + test + ": " + (methodName == null ? className
                    + " has no @SimulationTest method" : "no @SimulationTest method " + methodName + " in "
                    + className) + " (is it compiled against this Lockstep's lockstep-testing?)");
        }
        return new Target(type, methods);
    }

    /**
     * Runs the request's methods and reports each finished run on {@code out}.
     *
     * @param out where runs and failures are printed
     * @param request what to run
     * @param replayCommand the start of the command that reruns a failure, before its replay text, or null to print
     *                      none
     * @return what ran
     * @throws IllegalArgumentException as {@link #loader} and {@link #target}
     */
    static Outcome run(PrintWriter out, Request request, java.util.function.Function<String, String> replayCommand)
            throws IOException {
        AtomicInteger passed = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        AtomicInteger notRun = new AtomicInteger();
        List<String> problems = new ArrayList<>();
        List<SimulationTestFailure> failures = new ArrayList<>();
        // The engines are this program's: found before the user's loader is the context class loader.
        Launcher launcher = LauncherFactory.create();
        try (URLClassLoader loader = loader(request.classPath())) {
            Target target = target(request.test(), loader);
            LauncherDiscoveryRequestBuilder builder = LauncherDiscoveryRequestBuilder.request()
                    .configurationParameters(request.parameters());
            for (Method method : target.methods()) {
                builder.selectors(DiscoverySelectors.selectMethod(target.type(), method));
            }
            LauncherDiscoveryRequest discovery = builder.build();
            Thread thread = Thread.currentThread();
            ClassLoader previous = thread.getContextClassLoader();
            thread.setContextClassLoader(loader);
            try {
                launcher.execute(discovery, new TestExecutionListener() {
                    @Override
                    public void executionSkipped(TestIdentifier id, String reason) {
                        if (id.isTest()) {
                            notRun.incrementAndGet();
                        }
                    }

                    @Override
                    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                        Throwable thrown = result.getThrowable().orElse(null);
                        switch (result.getStatus()) {
                            case SUCCESSFUL -> {
                                if (id.isTest()) {
                                    passed.incrementAndGet();
                                }
                            }
                            case ABORTED -> {
                                if (id.isTest()) {
                                    notRun.incrementAndGet();
                                }
                            }
                            case FAILED -> {
                                if (!id.isTest()) {
                                    // A method or class that could not run at all: a bad setting, a constructor.
                                    problems.add(id.getDisplayName() + ": " + thrown);
                                    out.println(id.getDisplayName() + " could not run: " + thrown);
                                    return;
                                }
                                failed.incrementAndGet();
                                out.println(methodOf(id) + " " + id.getDisplayName() + " FAILED: "
                                        + firstLine(thrown));
                                if (thrown instanceof SimulationTestFailure failure && failure.replay() != null) {
                                    failures.add(failure);
                                    if (replayCommand != null) {
                                        out.println("  replay: " + replayCommand.apply(methodOf(id)) + " '"
                                                + failure.replay() + "'" + (failure.digest() == null ? ""
                                                : " --digest " + failure.digest().substring(0, 16)));
                                    }
                                }
                            }
                        }
                    }
                });
            } finally {
                thread.setContextClassLoader(previous);
            }
        }
        return new Outcome(passed.get(), failed.get(), notRun.get(), problems, failures);
    }

    /** The first line of a failure: a simulated test's message, else the exception with its class. */
    private static String firstLine(Throwable thrown) {
        String text = thrown instanceof SimulationTestFailure ? thrown.getMessage() : String.valueOf(thrown);
        return String.valueOf(text).lines().findFirst().orElse("");
    }

    /** {@code CLASS#METHOD} of a run's invocation. */
    private static String methodOf(TestIdentifier id) {
        return id.getSource().filter(MethodSource.class::isInstance).map(MethodSource.class::cast)
                .map(source -> source.getClassName() + "#" + source.getMethodName()).orElse(id.getDisplayName());
    }

    /** The configuration parameters of a sweep, in the order they are shown. */
    static Map<String, String> sweepParameters(Integer seeds, Long firstSeed, String strategy, boolean stop,
                                               Shard shard, Path report, Integer threads) {
        Map<String, String> parameters = new LinkedHashMap<>();
        if (seeds != null) {
            parameters.put("lockstep.seeds", Integer.toString(seeds));
        }
        if (firstSeed != null) {
            parameters.put("lockstep.firstSeed", Long.toString(firstSeed));
        }
        parameters.put("lockstep.strategy", strategy);
        parameters.put("lockstep.stopAtFirstFailure", Boolean.toString(stop));
        if (shard.count() > 1) {
            parameters.put("lockstep.shard", shard.index() + "/" + shard.count());
        }
        if (report != null) {
            parameters.put("lockstep.report", report.toAbsolutePath().toString());
        }
        if (threads != null) {
            parameters.put("lockstep.simulationtest.threads", Integer.toString(threads));
        }
        return parameters;
    }
}
