package dev.lockstep.demo;

import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.LockstepException;
import dev.lockstep.demo.replica.ReplicaNode;
import dev.lockstep.sim.SimCluster;
import dev.lockstep.sim.SimConfig;
import dev.lockstep.sim.SimControl;
import dev.lockstep.sim.SimNode;
import dev.lockstep.sim.SimRunner;
import dev.lockstep.sim.SimulationFailure;
import dev.lockstep.testing.Fault;
import dev.lockstep.testing.FaultConfig;
import dev.lockstep.testing.Nemesis;
import dev.lockstep.testing.NodeNemesis;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * One seed of the replicated workload ({@link Workload#REPLICATED}): three {@link ReplicaNode}s on a simulated
 * {@link SimCluster} (node 1 the primary), two clients putting through the primary, a {@link NodeNemesis} crashing,
 * killing, pausing and skewing one node at a time and, as the seed's {@link FaultConfig} says, a {@link Nemesis}
 * partitioning the nodes and resetting their connections, for a seeded 0.2 to 1 simulated second. Then the faults
 * stop, every node is brought back, and the checker asks every node for every acknowledged put: each must be on at
 * least two of the three nodes, as the replication promises.
 *
 * <p>Storage faults are not part of this workload (the key-value workloads have them): a node's disk fails only by
 * crashing. Everything is drawn from the seed; {@link Scenario.Spec#line()} replays it.
 */
final class ClusterScenario {
    private static final int NODES = 3;
    private static final int CLIENTS = 2;

    private final Scenario.Spec spec;
    private final Trace trace;
    private final List<long[]> acknowledged = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();
    private int crashes;
    private int partitions;
    private int resets;
    private int lifetimes;

    private ClusterScenario(Scenario.Spec spec, int traceLines) {
        this.spec = spec;
        this.trace = new Trace(traceLines);
    }

    /**
     * Runs one seed.
     *
     * @param spec the seed, faults and bug (the workload is {@link Workload#REPLICATED})
     * @param traceLines how many of the last events to keep, 0 for none
     * @return what it did
     */
    static Scenario.Result run(Scenario.Spec spec, int traceLines) {
        return new ClusterScenario(spec, traceLines).run();
    }

    /** The fault kinds this workload injects: node crashes (always on), their crash policy, the network's. */
    private static final EnumSet<Fault> APPLICABLE = EnumSet.of(Fault.CRASH, Fault.TORN_WRITES, Fault.PARTITION,
            Fault.CONNECTION_RESET);

    /**
     * Whether this workload injects {@code fault} when a seed's faults have it on.
     *
     * @param fault the kind
     * @return false for storage and kernel faults
     */
    static boolean injects(Fault fault) {
        return APPLICABLE.contains(fault);
    }

    /**
     * The kinds this workload injects, by their command-line names.
     *
     * @return e.g. {@code crash, torn-writes, partition, connection-reset}
     */
    static String injectedKinds() {
        return String.join(", ", APPLICABLE.stream().map(Fault::cliName).toList());
    }

    /**
     * The part of a seed's faults this workload injects: storage and kernel faults are dropped, so a replay line
     * names only what ran. The run is the same either way (those kinds are never read here).
     */
    static FaultConfig applicable(FaultConfig faults) {
        EnumSet<Fault> kept = EnumSet.noneOf(Fault.class);
        for (Fault fault : faults.enabled()) {
            if (APPLICABLE.contains(fault)) {
                kept.add(fault);
            }
        }
        return new FaultConfig(kept, faults.intensity());
    }

    /** The simulator configuration of a seed: the crash policy of its faults, no storage faults. */
    static SimConfig config(Scenario.Spec spec) {
        return SimConfig.builder().seed(spec.seed()).workers(1).ringEntries(256).timeLimit(Duration.ofHours(1))
                .build();
    }

    private Scenario.Result run() {
        SimRunner runner = SimRunner.of(config(spec));
        long simulated = 0;
        long steps = 0;
        String digest = "";
        try {
            runner.start(this::controller);
        } catch (SimulationFailure failure) {
            failures.add(failure.getMessage().lines().findFirst().orElse("simulation failed"));
            trace.notable("simulation failed: " + failure.getMessage().lines().findFirst().orElse(""));
        } catch (RuntimeException | AssertionError failure) {
            failures.add("the run failed: " + failure);
        } finally {
            try {
                simulated = runner.stats().simulatedNanos();
                steps = runner.stats().schedulerSteps();
                digest = runner.digest();
            } catch (IllegalStateException notRun) {
                // Nothing ran.
            }
        }
        String failure = failures.isEmpty() ? null : String.join("\n", failures.subList(0, Math.min(5,
                failures.size())));
        return new Scenario.Result(spec, failure, trace.last(), trace.notable(), simulated, lifetimes, crashes,
                partitions, resets, 0, acknowledged.size(), digest, steps);
    }

    private Void controller(Context ctx) {
        SimControl control = SimRunner.control(ctx);
        trace.clock(control::now, control.now());
        RandomGenerator random = control.random();
        FaultConfig faults = spec.faults();
        control.crashPolicy(faults.crashPolicy(random));
        SimCluster cluster = control.cluster();
        List<InetSocketAddress> nodes = new ArrayList<>();
        List<InetAddress> hosts = new ArrayList<>();
        for (int id = 1; id <= NODES; id++) {
            hosts.add(SimCluster.address(id));
            nodes.add(new InetSocketAddress(SimCluster.address(id), ReplicaNode.PORT));
        }
        for (int id = 1; id <= NODES; id++) {
            List<InetSocketAddress> backups = id == 1 ? nodes.subList(1, NODES) : List.of();
            cluster.start(ReplicaNode.main(nodes.get(id - 1), backups, spec.bug()));
        }
        NodeNemesis nodeNemesis = new NodeNemesis(EnumSet.allOf(NodeNemesis.Action.class), Duration.ofMillis(40),
                trace::notable);
        Handle<Void> nodeFaults = ctx.child("nodes").spawn(nodeNemesis::run);
        Nemesis network = new Nemesis(faults, hosts, Duration.ofMillis(60), trace::notable);
        Handle<Void> networkFaults = network.active() ? ctx.child("network").spawn(network::run) : null;
        List<Handle<Void>> clients = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            clients.add(ctx.child("client" + i).spawn(c -> client(c, nodes.getFirst(), random)));
        }
        Duration length = Duration.ofMillis(200 + random.nextInt(800));
        ctx.sleep(length);
        for (Handle<Void> client : clients) {
            client.abort();
        }
        nodeFaults.abort();                           // brings back the node it took down or paused
        if (networkFaults != null) {
            networkFaults.abort();                    // heals what it cut
        }
        ctx.sleep(Duration.ofMillis(50));
        crashes = nodeNemesis.count(NodeNemesis.Action.CRASH) + nodeNemesis.count(NodeNemesis.Action.KILL);
        partitions = network.partitions();
        resets = network.resets();
        lifetimes = 1; // counted as the key-value workloads count them: one, plus one per restart
        for (SimNode node : cluster.nodes()) {
            lifetimes += node.lifetime() - 1;
        }
        trace.notable("load stopped: " + acknowledged.size() + " puts acknowledged; checking every node");
        check(ctx, nodes);
        return null;
    }

    /** Puts through the primary until aborted; what is acknowledged is kept for the check. */
    private Void client(Context ctx, InetSocketAddress primary, RandomGenerator random) {
        while (true) {
            long key = 1 + random.nextInt(64);
            long value = random.nextLong() | 1;        // never 0: 0 means "no record"
            try {
                long[] answer = ctx.timeout(Duration.ofMillis(60),
                        () -> ReplicaNode.call(ctx, primary, 'P', 0, key, value));
                if (answer[1] == 1) {
                    acknowledged.add(new long[] {answer[0], key, value});
                    if (trace.keeps()) {
                        trace.event("put " + key + " acknowledged at index " + answer[0]);
                    }
                } else if (trace.keeps()) {
                    trace.event("put " + key + " refused: no backup took it");
                }
            } catch (LockstepException downPausedOrCut) {
                if (trace.keeps()) {
                    trace.event("put " + key + " failed: " + downPausedOrCut.getClass().getSimpleName());
                }
            }
            ctx.sleep(Duration.ofMillis(1));
        }
    }

    /** Every acknowledged put must be on two nodes at least. */
    private void check(Context ctx, List<InetSocketAddress> nodes) {
        for (long[] put : acknowledged) {
            List<Integer> holders = new ArrayList<>();
            for (int node = 0; node < nodes.size(); node++) {
                InetSocketAddress address = nodes.get(node);
                long[] record = ctx.timeout(Duration.ofSeconds(1),
                        () -> ReplicaNode.call(ctx, address, 'G', put[0], 0, 0));
                if (record[0] == put[1] && record[1] == put[2]) {
                    holders.add(node + 1);
                }
            }
            if (holders.size() < 2) {
                String problem = "acknowledged put #" + put[0] + " (key " + put[1] + ") is on " + holders.size()
                        + " node" + (holders.size() == 1 ? "" : "s") + " " + holders + ", not on two of three";
                failures.add(problem);
                trace.notable("CHECK FAILED: " + problem);
                if (failures.size() >= 5) {
                    return;
                }
            }
        }
    }
}
