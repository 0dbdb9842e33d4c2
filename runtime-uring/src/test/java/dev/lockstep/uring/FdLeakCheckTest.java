package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.File;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fd leak check lets the JDK's fds of a finished child process go, and still sees an fd left open. */
class FdLeakCheckTest {
    @Test
    void theFdsOfChildProcessesThatEndedAreNotCounted() throws Exception {
        int before = OpenDescriptors.fds().size();
        for (int i = 0; i < 10; i++) {
            Process child = new ProcessBuilder("true").redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            assertEquals(0, child.waitFor());
            int spawn = i;
            assertEquals(before, FdLeakCheck.settledFds(before).size(),
                    () -> "spawn " + spawn + " left fds: " + OpenDescriptors.fds());
        }
    }

    @Test
    void anFdLeftOpenIsStillCounted(@TempDir Path directory) throws Exception {
        int before = OpenDescriptors.fds().size();
        try (FileChannel left = FileChannel.open(directory.resolve("open"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE)) {
            assertEquals(before + 1, FdLeakCheck.settledFds(before).size(), () -> "fds: " + OpenDescriptors.fds());
        }
    }
}
