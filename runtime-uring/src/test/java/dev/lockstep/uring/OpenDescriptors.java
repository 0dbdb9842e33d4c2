package dev.lockstep.uring;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Stream;

/** What this process has open: its fds from {@code /proc/self/fd} and its io_uring mappings. */
final class OpenDescriptors {
    private static final Path FD_DIRECTORY = Path.of("/proc/self/fd");

    private OpenDescriptors() {
    }

    /** Open fds and what they point at; includes the fd used to list them, the same one each time. */
    static TreeMap<Integer, String> fds() {
        TreeMap<Integer, String> targets = new TreeMap<>();
        try (Stream<Path> entries = Files.list(FD_DIRECTORY)) {
            for (Path entry : entries.toList()) {
                String target;
                try {
                    target = Files.readSymbolicLink(entry).toString();
                } catch (IOException closedMeanwhile) {
                    target = "(closed while listing)";
                }
                targets.put(Integer.parseInt(entry.getFileName().toString()), target);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return targets;
    }

    static int fdCount() {
        return fds().size();
    }

    /** Lines of {@code /proc/self/maps} that map an io_uring instance. */
    static List<String> ringMappings() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/maps"))) {
            return lines.filter(line -> line.contains("io_uring")).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
