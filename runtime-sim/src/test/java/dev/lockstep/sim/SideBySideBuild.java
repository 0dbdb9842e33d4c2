package dev.lockstep.sim;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;

/**
 * One build of Lockstep in a class loader of its own, for the tools that measure several builds side by side in
 * one JVM ({@link SimThroughputSideBySide}, the demo's {@code SweepSideBySide}): a checkout's compiled class
 * folders, and the jars of this JVM's class path that the caller shares among all builds. Closing it closes the
 * class loader. Used from one thread.
 */
public final class SideBySideBuild implements AutoCloseable {
    private final String name;
    private final URLClassLoader loader;
    private final Method main;

    private SideBySideBuild(String name, URLClassLoader loader, Method main) {
        this.name = name;
        this.loader = loader;
        this.main = main;
    }

    /**
     * Loads a build.
     *
     * @param root         the checkout's root directory
     * @param classFolders its compiled class folders, relative to {@code root}, in class path order
     * @param sharedJar    which jars of this JVM's class path the build shares
     * @param mainClass    the class whose {@code main} {@link #run} calls
     * @return the build, named by its directory's name
     * @throws IllegalArgumentException naming a class folder that is not there
     * @throws ReflectiveOperationException if the build has no such class or {@code main}
     * @throws IOException if its class loader cannot be made
     */
    public static SideBySideBuild load(File root, List<String> classFolders, Predicate<File> sharedJar,
            String mainClass) throws ReflectiveOperationException, IOException {
        List<URL> urls = new ArrayList<>();
        for (String classes : classFolders) {
            File folder = new File(root, classes);
            if (!folder.isDirectory()) {
                throw new IllegalArgumentException(folder + " is not compiled: build " + root + " first");
            }
            urls.add(folder.toURI().toURL());
        }
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            File jar = new File(entry);
            if (entry.endsWith(".jar") && sharedJar.test(jar)) {
                urls.add(jar.toURI().toURL());
            }
        }
        URLClassLoader loader = new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
        try {
            Method main = loader.loadClass(mainClass).getMethod("main", String[].class);
            return new SideBySideBuild(root.getAbsoluteFile().toPath().normalize().getFileName().toString(), loader,
                    main);
        } catch (ReflectiveOperationException | RuntimeException | Error failure) {
            loader.close();
            throw failure;
        }
    }

    /** The build's directory name: what the tables print (two builds may share it; callers key by position). */
    public String name() {
        return name;
    }

    /**
     * Calls the build's {@code main} on this thread, with the build's class loader as the context class loader
     * (the runtimes find their services through it), and returns what it printed to {@code System.out}.
     *
     * @param args the arguments to {@code main}
     * @return the lines printed
     * @throws Exception what {@code main} threw
     */
    public List<String> run(String... args) throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream out = System.out;
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        Thread thread = Thread.currentThread();
        ClassLoader context = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        try {
            main.invoke(null, (Object) args);
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        } finally {
            thread.setContextClassLoader(context);
            System.setOut(out);
        }
        return printed.toString(StandardCharsets.UTF_8).lines().toList();
    }

    /** Closes the class loader; the build cannot run after. */
    @Override
    public void close() throws IOException {
        loader.close();
    }

    /**
     * The median the side-by-side tables print: the middle value, the upper one of an even count.
     *
     * @param values at least one value
     * @return the median
     */
    public static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    /**
     * Closes every build, the later ones even if an earlier one fails to close.
     *
     * @param builds the builds
     * @throws IOException the first failure, later ones suppressed in it
     */
    public static void closeAll(List<SideBySideBuild> builds) throws IOException {
        IOException failure = null;
        for (SideBySideBuild build : builds) {
            try {
                build.close();
            } catch (IOException next) {
                if (failure == null) {
                    failure = next;
                } else {
                    failure.addSuppressed(next);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
