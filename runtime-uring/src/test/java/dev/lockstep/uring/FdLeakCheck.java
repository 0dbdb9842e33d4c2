package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.TreeMap;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/** Fails a test class that leaves more or fewer fds open than it found, or an io_uring mapped. */
final class FdLeakCheck implements BeforeAllCallback, AfterAllCallback {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(FdLeakCheck.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        warmUpJdkDescriptors();
        context.getStore(NAMESPACE).put("fds", OpenDescriptors.fds());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        @SuppressWarnings("unchecked")
        TreeMap<Integer, String> before = (TreeMap<Integer, String>) context.getStore(NAMESPACE).get("fds");
        TreeMap<Integer, String> after = OpenDescriptors.fds();
        assertEquals(before.size(), after.size(), () -> "open fds changed across " + context.getDisplayName()
                + "\nbefore: " + before + "\nafter:  " + after);
        assertEquals(java.util.List.of(), OpenDescriptors.ringMappings(), "io_uring mappings left behind");
    }

    /** The JDK opens some fds lazily and keeps them (the seed source of temporary names); open them now. */
    private static void warmUpJdkDescriptors() {
        try {
            Files.delete(Files.createTempDirectory("lockstep-warm-up"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
