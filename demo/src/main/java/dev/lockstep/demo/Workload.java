package dev.lockstep.demo;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The shapes of load the simulator sweeps can run: how many clients, how many keys each, the mix of operations.
 * Few keys per client, so that keys are overwritten and deleted often and every check has history behind it.
 */
public enum Workload {
    /** 60% puts, 5% deletes, 35% gets. */
    MIXED(6, 8, 64, new LoadClient.Shape(60, 5, Duration.ofMillis(500), Duration.ofMillis(20), Duration.ZERO)),
    /** 90% puts, 5% deletes, 5% gets. */
    WRITE_HEAVY(8, 8, 64, new LoadClient.Shape(90, 5, Duration.ofMillis(500), Duration.ofMillis(20), Duration.ZERO)),
    /** 15% puts, 5% deletes, 80% gets. */
    READ_HEAVY(6, 8, 64, new LoadClient.Shape(15, 5, Duration.ofMillis(500), Duration.ofMillis(20), Duration.ZERO)),
    /** 60% puts with 2 KiB values across segment boundaries. */
    LARGE_VALUES(4, 4, 2048, new LoadClient.Shape(60, 5, Duration.ofMillis(500), Duration.ofMillis(20),
            Duration.ZERO)),
    /**
     * Not the key-value store: three replicated log nodes on a simulated cluster, primary-backup, under node
     * crashes, kills, pauses and clock moves ({@link ClusterScenario}). The store's fields below are unused.
     */
    REPLICATED(2, 64, 8, new LoadClient.Shape(100, 0, Duration.ofMillis(500), Duration.ofMillis(20), Duration.ZERO));

    final int clients;
    final int keysPerClient;
    final int valueBytes;
    final LoadClient.Shape shape;

    Workload(int clients, int keysPerClient, int valueBytes, LoadClient.Shape shape) {
        this.clients = clients;
        this.keysPerClient = keysPerClient;
        this.valueBytes = valueBytes;
        this.shape = shape;
    }

    /**
     * The command-line name.
     *
     * @return e.g. {@code write-heavy}
     */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * Parses a command-line name.
     *
     * @param name the name
     * @return the workload
     * @throws IllegalArgumentException naming the known names
     */
    public static Workload parse(String name) {
        for (Workload workload : values()) {
            if (workload.cliName().equalsIgnoreCase(name) || workload.name().equalsIgnoreCase(name)) {
                return workload;
            }
        }
        throw new IllegalArgumentException("unknown workload '" + name + "'; known: "
                + Arrays.stream(values()).map(Workload::cliName).collect(Collectors.joining(", ")));
    }
}
