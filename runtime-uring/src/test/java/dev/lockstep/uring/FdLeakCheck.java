package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class that leaves more or fewer fds open than it found, or more or fewer io_uring mappings.
 *
 * <p>Registered for every test class of runtime-uring by JUnit's extension auto-detection
 * ({@code META-INF/services/org.junit.jupiter.api.extension.Extension} and {@code junit-platform.properties}
 * in the test resources), so a new class cannot forget it. A class may still name it with
 * {@code @ExtendWith}; JUnit registers an extension type once. It runs around the class's own
 * {@code @BeforeAll}/{@code @AfterAll}, so resources those set up and tear down are inside the check.
 */
public final class FdLeakCheck implements BeforeAllCallback, AfterAllCallback {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(FdLeakCheck.class);

    /** For the service loader. */
    public FdLeakCheck() {
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        warmUpJdkDescriptors();
        ExtensionContext.Store store = context.getStore(NAMESPACE);
        store.put("fds", OpenDescriptors.fds());
        store.put("rings", OpenDescriptors.ringMappings());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        ExtensionContext.Store store = context.getStore(NAMESPACE);
        @SuppressWarnings("unchecked")
        TreeMap<Integer, String> before = (TreeMap<Integer, String>) store.get("fds");
        @SuppressWarnings("unchecked")
        List<String> ringsBefore = (List<String>) store.get("rings");
        TreeMap<Integer, String> after = settledFds(before.size());
        assertEquals(before.size(), after.size(), () -> "open fds changed across " + context.getDisplayName()
                + "\nbefore: " + before + "\nafter:  " + after);
        List<String> ringsAfter = OpenDescriptors.ringMappings();
        assertEquals(ringsBefore.size(), ringsAfter.size(), () -> "io_uring mappings changed across "
                + context.getDisplayName() + "\nbefore: " + ringsBefore + "\nafter:  " + ringsAfter);
    }

    /**
     * The open fds, listed again while their count differs from {@code expected}, for at most
     * {@link #SETTLE_ATTEMPTS} listings. The JDK's own threads close fds after the call that made them unneeded
     * has returned: a child process's pipes are closed by the process reaper thread after it signals the exit that
     * {@code waitFor} returns on, and a pipe of {@code ProcessBuilder.start}'s own was seen still open after
     * {@code waitFor} in most spawns, gone by 50 ms later; such an fd can even be listed and then read as closed.
     * A class's leaked fd stays open, so listing again only lets those transient fds go: a leak still fails, later.
     * The pause between listings waits for threads this check cannot join, and orders nothing of the test's own.
     */
    static TreeMap<Integer, String> settledFds(int expected) {
        TreeMap<Integer, String> fds = OpenDescriptors.fds();
        for (int attempt = 1; attempt < SETTLE_ATTEMPTS && fds.size() != expected; attempt++) {
            try {
                Thread.sleep(SETTLE_PAUSE);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                return fds;
            }
            fds = OpenDescriptors.fds();
        }
        return fds;
    }

    private static final int SETTLE_ATTEMPTS = 50;
    private static final java.time.Duration SETTLE_PAUSE = java.time.Duration.ofMillis(20);

    /**
     * The JDK opens some fds lazily and keeps them for the life of the process: the seed source of temporary
     * names, and the socket NIO dup2s over a socket's fd when it closes one (sun.nio.ch.UnixDispatcher's
     * pre-close fd, made on first use of a socket). Open them now, so they are in "before".
     */
    private static void warmUpJdkDescriptors() {
        try {
            Files.delete(Files.createTempDirectory("lockstep-warm-up"));
            SocketChannel.open().close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
