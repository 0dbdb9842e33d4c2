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
     * Not the key-value store: a Raft cluster of three simulated nodes under node crashes, kills, pauses and clock
     * moves ({@link RaftScenario}). The store's fields below are unused.
     */
    REPLICATED(3),
    /** As {@link #REPLICATED}, with five nodes. */
    REPLICATED_5(5);

    final int clients;
    final int keysPerClient;
    final int valueBytes;
    final LoadClient.Shape shape;
    private final int nodes;

    Workload(int clients, int keysPerClient, int valueBytes, LoadClient.Shape shape) {
        this.clients = clients;
        this.keysPerClient = keysPerClient;
        this.valueBytes = valueBytes;
        this.shape = shape;
        this.nodes = 0;
    }

    Workload(int nodes) {
        this.clients = 2;
        this.keysPerClient = 0;
        this.valueBytes = 0;
        this.shape = null;
        this.nodes = nodes;
    }

    /**
     * Whether this is a replicated workload (a Raft cluster) rather than the key-value store.
     *
     * @return true for {@link #REPLICATED} and {@link #REPLICATED_5}
     */
    public boolean replicated() {
        return nodes > 0;
    }

    /**
     * The nodes of a replicated workload's cluster.
     *
     * @return 3 or 5, 0 for the key-value workloads
     */
    public int nodes() {
        return nodes;
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
