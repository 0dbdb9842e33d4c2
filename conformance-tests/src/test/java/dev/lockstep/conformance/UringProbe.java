package dev.lockstep.conformance;

import dev.lockstep.Context;
import dev.lockstep.ReceiveLimits;
import dev.lockstep.Runner;
import dev.lockstep.spi.MetricsSink;
import dev.lockstep.uring.UringRunner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/** The probe of runtime-uring, through {@link UringRunner} and this process's {@code /proc/self/fd}. */
final class UringProbe implements Probe {
    static final UringProbe INSTANCE = new UringProbe();

    private UringProbe() {
    }

    @Override
    public Runner runner(RuntimeConfig config, int ringEntries, Path storage, boolean leakChecked,
                         MetricsSink metrics) {
        return UringRunner.builder().workers(config.workers()).ringEntries(ringEntries).storage(storage)
                .metrics(metrics).build();
    }

    @Override
    public Runner runner(RuntimeConfig config, int ringEntries, ReceiveLimits limits, MetricsSink metrics) {
        return UringRunner.builder().workers(config.workers()).ringEntries(ringEntries).receiveLimits(limits)
                .metrics(metrics).build();
    }

    @Override
    public long receiveBufferBytes(Runner runner) {
        return ((UringRunner) runner).receiveBufferBytes();
    }

    @Override
    public Set<Integer> openFds(Context ctx) {
        Set<Integer> fds = new TreeSet<>();
        try (Stream<Path> entries = Files.list(Path.of("/proc/self/fd"))) {
            entries.forEach(entry -> {
                try {
                    // The listing's own directory fd takes the lowest free number (often one just closed): skip it.
                    String target = Files.readSymbolicLink(entry).toString();
                    if (target.startsWith("/proc/") && target.endsWith("/fd")) {
                        return;
                    }
                } catch (IOException closedMeanwhile) {
                    return;
                }
                fds.add(Integer.parseInt(entry.getFileName().toString()));
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return fds;
    }

    @Override
    public String toString() {
        return "uring probe";
    }
}
