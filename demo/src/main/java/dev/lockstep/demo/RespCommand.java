package dev.lockstep.demo;

import dev.lockstep.demo.kv.KvOptions;
import dev.lockstep.demo.kv.KvStore;
import dev.lockstep.demo.resp.RespService;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The demo's store behind the Redis protocol, on runtime-uring, for redis-cli and redis-benchmark. */
@Command(name = "resp", description = "serve the demo's store over the Redis protocol (RESP2) on the loopback"
        + " address, on runtime-uring, until stopped; prints READY <port> when it serves")
final class RespCommand implements Callable<Integer> {
    @Option(names = "--port", paramLabel = "N", defaultValue = "6380", description = "the loopback port, 0 for any"
            + " (${DEFAULT-VALUE})")
    int port;

    @Option(names = "--dir", paramLabel = "DIR", required = true, description = "the data directory")
    Path directory;

    @Option(names = "--fsync", paramLabel = "WHEN", defaultValue = "always", description = "always: a SET is"
            + " durable before its reply; everysec: synced once a second (${DEFAULT-VALUE})")
    String fsync;

    @Option(names = "--workers", paramLabel = "N", defaultValue = "1", description = "io_uring workers"
            + " (${DEFAULT-VALUE})")
    int workers;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        KvOptions.Durability durability = switch (fsync) {
            case "always" -> KvOptions.Durability.SYNC_BEFORE_ACK;
            case "everysec" -> KvOptions.Durability.SYNC_EVERY_SECOND;
            default -> throw new CommandLine.ParameterException(spec.commandLine(),
                    "--fsync must be always or everysec, was '" + fsync + "'");
        };
        if (port < 0 || port > 65_535) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--port must be 0 to 65535, was " + port);
        }
        if (workers < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--workers must be at least 1, was " + workers);
        }
        if (Main.checkOnly()) {
            return Main.PASSED;
        }
        Files.createDirectories(directory);
        RespService.run(directory, port, workers, durability, System.out);
        return Main.PASSED;
    }
}
