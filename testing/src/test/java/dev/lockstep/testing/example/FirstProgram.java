package dev.lockstep.testing.example;

import dev.lockstep.Blob;
import dev.lockstep.Task;
import dev.lockstep.sim.SimRunner;
import dev.lockstep.uring.UringRunner;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

public class FirstProgram {
    // Written once against dev.lockstep: a blob written, synced, read back.
    static final Task<String> GREET = ctx -> {
        try (Blob blob = ctx.open("greetings", "hello").await().blob()) {
            blob.writeAt(0, "hello, lockstep".getBytes(StandardCharsets.UTF_8)).await();
            blob.sync().await();                 // durable from here on
            ctx.sleep(Duration.ofMillis(5));     // simulated time in the simulator
            return new String(blob.readAt(0, 15).await(), StandardCharsets.UTF_8);
        }
    };

    public static void main(String[] args) throws Exception {
        Path data = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("lockstep-data");
        // In production: io_uring workers over a storage directory.
        System.out.println("runtime-uring: " + UringRunner.builder().storage(data).build().start(GREET));
        // Under test: the same task in the seeded simulator; seed 42 always runs the same way.
        SimRunner simulator = SimRunner.seeded(42);
        System.out.println("runtime-sim:   " + simulator.start(GREET));
    }
}
