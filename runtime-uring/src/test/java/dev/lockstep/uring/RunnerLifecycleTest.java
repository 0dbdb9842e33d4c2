package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A runner started and stopped many times leaks no descriptor and never hangs at shutdown. */
class RunnerLifecycleTest {

    @Test
    void aRunnerStartedAndStopped1000TimesLeaksNothing() {
        // Warm up once so descriptors the JDK opens lazily do not count as leaks.
        UringRunner.builder().workers(2).ringEntries(2).build().start(ctx -> null);
        int before = OpenDescriptors.fdCount();
        for (int i = 0; i < 1000; i++) {
            int round = i;
            int value = UringRunner.builder().workers(1 + i % 2).ringEntries(2).build().start(ctx -> {
                // A spawned task and a timer on each start, so shutdown has fibers and requests to retire.
                var child = ctx.child("child").spawn(c -> {
                    c.sleep(Duration.ofMillis(1));
                    return round;
                });
                ctx.sleeper(Duration.ofSeconds(30)).close();
                return child.await();
            });
            assertEquals(i, value);
        }
        assertEquals(before, OpenDescriptors.fdCount(), "descriptors leaked: " + OpenDescriptors.fds());
    }
}
