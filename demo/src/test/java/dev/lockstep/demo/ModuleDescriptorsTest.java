package dev.lockstep.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Runner;
import dev.lockstep.property.Gen;
import dev.lockstep.sim.SimRunner;
import dev.lockstep.testing.SimulationTest;
import dev.lockstep.uring.UringRunner;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ResolvedModule;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.spi.ToolProvider;
import java.util.stream.Collectors;
import org.apiguardian.api.API;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.commons.support.AnnotationSupport;
import org.opentest4j.AssertionFailedError;

/**
 * The module descriptors of the published artifacts, read from the jars (or class directories) this module's tests
 * run with: each is a named module, exports what its descriptor comment says and nothing else, and the graph
 * resolves on the module path. A consumer module compiled against them reaches the simulator's user API and not
 * its rooms. (Tests run on the class path, where descriptors are ignored; this is where they are held to account.)
 */
class ModuleDescriptorsTest {
    private static final String ENGINE = "dev.lockstep.engine.Engine";

    @Test
    void eachArtifactExportsItsApiAndNothingElse() throws Exception {
        Map<String, Map<String, Set<String>>> expected = Map.of(
                "lockstep.api", Map.of("dev.lockstep", Set.of(), "dev.lockstep.sync", Set.of(),
                        "dev.lockstep.spi", Set.of()),
                "lockstep.runtime.core", Map.of(
                        "dev.lockstep.engine", Set.of("lockstep.runtime.uring", "lockstep.runtime.sim"),
                        "dev.lockstep.engine.task", Set.of("lockstep.runtime.uring", "lockstep.runtime.sim"),
                        "dev.lockstep.engine.worker", Set.of("lockstep.runtime.sim"),
                        "dev.lockstep.engine.request", Set.of("lockstep.runtime.sim"),
                        "dev.lockstep.engine.buffer", Set.of("lockstep.runtime.sim"),
                        "dev.lockstep.kernel", Set.of("lockstep.runtime.uring", "lockstep.runtime.sim")),
                "lockstep.runtime.uring", Map.of("dev.lockstep.uring", Set.of()),
                "lockstep.runtime.sim", Map.of("dev.lockstep.sim", Set.of()),
                "lockstep.property", Map.of("dev.lockstep.property", Set.of()),
                "lockstep.testing", Map.of("dev.lockstep.testing", Set.of()));
        List<Path> locations = lockstepLocations();
        ModuleFinder lockstep = ModuleFinder.of(locations.toArray(Path[]::new));
        for (var module : expected.entrySet()) {
            ModuleDescriptor descriptor = lockstep.find(module.getKey())
                    .orElseThrow(() -> new AssertionFailedError("no module " + module.getKey() + " in " + locations))
                    .descriptor();
            assertFalse(descriptor.isAutomatic(), module.getKey() + " has no module-info.class");
            assertFalse(descriptor.isOpen(), module.getKey() + " is an open module");
            Map<String, Set<String>> exports = new TreeMap<>();
            for (ModuleDescriptor.Exports export : descriptor.exports()) {
                exports.put(export.source(), new TreeSet<>(export.targets()));
            }
            assertEquals(new TreeMap<>(module.getValue()), exports, module.getKey() + " exports");
        }
        Set<String> simPackages = lockstep.find("lockstep.runtime.sim").orElseThrow().descriptor().packages();
        assertTrue(simPackages.contains("dev.lockstep.sim.sched"), "the scheduler room is in the module: "
                + simPackages);
        Set<String> corePackages = lockstep.find("lockstep.runtime.core").orElseThrow().descriptor().packages();
        assertTrue(corePackages.contains("dev.lockstep.engine.io"), "the engine's storage and network room is in the "
                + "module, exported to no one: " + corePackages);
    }

    @Test
    void theGraphResolvesOnTheModulePath() throws Exception {
        Configuration configuration = ModuleLayer.boot().configuration().resolve(modulePath(), ModuleFinder.of(),
                Set.of("lockstep.testing", "lockstep.runtime.uring"));
        Set<String> testingReads = configuration.findModule("lockstep.testing").orElseThrow().reads().stream()
                .map(ResolvedModule::name).collect(Collectors.toSet());
        // requires transitive: a user's module that requires lockstep-testing reads the API and the simulator.
        assertTrue(testingReads.containsAll(Set.of("lockstep.api", "lockstep.runtime.sim", "lockstep.property",
                "org.junit.jupiter.api")), "dev.lockstep.testing reads " + testingReads);
    }

    @Test
    void theRuntimesPlugInThroughTheServiceLoaderOnTheModulePath() throws Exception {
        Configuration configuration = ModuleLayer.boot().configuration().resolveAndBind(modulePath(),
                ModuleFinder.of(), Set.of("lockstep.testing", "lockstep.runtime.uring"));
        ModuleLayer layer = ModuleLayer.boot().defineModulesWithOneLoader(configuration,
                ClassLoader.getPlatformClassLoader());
        ClassLoader loader = layer.findLoader("lockstep.api");
        Map<String, String> providers = Map.of("dev.lockstep.spi.Awaiter", "dev.lockstep.engine.task.FiberAwaiter",
                "dev.lockstep.spi.SearchHooks", "dev.lockstep.sim.SimSearchHooks");
        for (var service : providers.entrySet()) {
            List<String> found = ServiceLoader.load(layer, loader.loadClass(service.getKey())).stream()
                    .map(provider -> provider.type().getName()).toList();
            assertEquals(List.of(service.getValue()), found, service.getKey() + " providers");
        }
        // The API's own lookups (static initialisers) run inside lockstep.api, which must declare what it uses.
        for (String user : List.of("dev.lockstep.Search", "dev.lockstep.sync.Awaiting")) {
            assertEquals("lockstep.api", Class.forName(user, true, loader).getModule().getName(), user);
        }
    }

    @Test
    void aConsumerModuleReachesTheUserApiButNotTheRooms(@TempDir Path dir) throws Exception {
        String allowed = "import dev.lockstep.sim.SimRunner; public class App { Object runner = SimRunner.seeded(1); }";
        assertEquals("", compileConsumer(dir.resolve("allowed"), allowed));
        for (String internal : List.of("dev.lockstep.sim.os.SimKernel", "dev.lockstep.sim.sched.Scheduler",
                ENGINE, "dev.lockstep.engine.worker.Worker")) {
            String source = "public class App { Class<?> type = " + internal + ".class; }";
            String errors = compileConsumer(dir.resolve(internal), source);
            String pkg = internal.substring(0, internal.lastIndexOf('.'));
            assertTrue(errors.contains("package " + pkg + " is not visible")
                    || errors.contains("does not export " + pkg), internal + ": " + errors);
        }
    }

    /** Compiles {@code module consumer { requires lockstep.testing; }} with one class; javac's errors, or "". */
    private static String compileConsumer(Path dir, String app) throws Exception {
        Path source = dir.resolve("src");
        Files.createDirectories(source.resolve("consumer"));
        Files.writeString(source.resolve("module-info.java"), "module consumer { requires lockstep.testing; }");
        Files.writeString(source.resolve("consumer/App.java"), "package consumer; " + app);
        List<String> arguments = new ArrayList<>(List.of("-d", dir.resolve("out").toString(), "--module-path",
                String.join(java.io.File.pathSeparator, modulePathEntries().stream().map(Path::toString).toList()),
                source.resolve("module-info.java").toString(), source.resolve("consumer/App.java").toString()));
        StringWriter output = new StringWriter();
        PrintWriter writer = new PrintWriter(output);
        int status = ToolProvider.findFirst("javac").orElseThrow()
                .run(writer, writer, arguments.toArray(String[]::new));
        writer.flush();
        return status == 0 ? "" : output + " (exit " + status + ")";
    }

    private static ModuleFinder modulePath() throws URISyntaxException, ClassNotFoundException {
        return ModuleFinder.of(modulePathEntries().toArray(Path[]::new));
    }

    /**
     * The Lockstep modules and what they require outside the JDK: JUnit Jupiter's API and the modules it requires
     * (apiguardian's only statically, but javac reads it when it compiles against JUnit).
     */
    private static List<Path> modulePathEntries() throws URISyntaxException, ClassNotFoundException {
        List<Path> entries = new ArrayList<>(lockstepLocations());
        for (Class<?> type : List.of(Test.class, AnnotationSupport.class, AssertionFailedError.class, API.class)) {
            entries.add(location(type));
        }
        return entries;
    }

    /** Each published module's jar, or its classes directory when the build runs from the reactor. */
    private static List<Path> lockstepLocations() throws URISyntaxException, ClassNotFoundException {
        List<Path> locations = new ArrayList<>();
        for (Class<?> type : List.of(Runner.class, Class.forName(ENGINE), UringRunner.class, SimRunner.class,
                Gen.class, SimulationTest.class)) {
            locations.add(location(type));
        }
        return locations;
    }

    private static Path location(Class<?> type) throws URISyntaxException {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
