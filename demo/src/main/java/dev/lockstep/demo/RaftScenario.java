package dev.lockstep.demo;

import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.LockstepException;
import dev.lockstep.demo.raft.Entry;
import dev.lockstep.demo.raft.RaftClient;
import dev.lockstep.demo.raft.RaftConfig;
import dev.lockstep.demo.raft.RaftNode;
import dev.lockstep.demo.raft.RaftUnavailableException;
import dev.lockstep.demo.raft.RaftView;
import dev.lockstep.sim.SimCluster;
import dev.lockstep.sim.SimConfig;
import dev.lockstep.sim.SimControl;
import dev.lockstep.sim.SimNode;
import dev.lockstep.sim.SimRunner;
import dev.lockstep.sim.SimulationFailure;
import dev.lockstep.testing.Fault;
import dev.lockstep.testing.FaultConfig;
import dev.lockstep.testing.Nemesis;
import dev.lockstep.testing.ClusterNemesis;
import dev.lockstep.testing.NodeNemesis;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.function.IntSupplier;
import java.util.random.RandomGenerator;

/**
 * One seed of the replicated workload ({@link Workload#REPLICATED}, {@link Workload#REPLICATED_5}): a Raft cluster
 * ({@link RaftNode}) of three or five simulated nodes, two clients appending commands and reading the commit index,
 * a {@link NodeNemesis} crashing, killing, pausing and skewing one node at a time and, as the seed's
 * {@link FaultConfig} says, a {@link Nemesis} partitioning the nodes and resetting their connections, for a seeded
 * 0.2 to 1 simulated second. A search strategy may put a stronger node nemesis in the seed's spec
 * ({@link Scenario.Spec#nemesis()}: {@code ClusterNemesis}, aimed at the leader through {@link RaftChecker#leader}
 * and at elections through {@link RaftChecker#candidate}).
 * Then the faults stop and every node is brought back.
 *
 * <h2>What is checked</h2>
 * <ul>
 *   <li>Raft's safety properties as the nodes decide ({@link RaftChecker}), Log Matching at the end;</li>
 *   <li>linearizable reads: a commit index read never lies below a command acknowledged before the read began;</li>
 *   <li>liveness: within {@link #LIVENESS_BOUND} of simulated time after the faults stop, a leader is elected and a
 *       new command committed; then, {@link #FAILOVERS} times, the leader loses power and another must lead within
 *       {@link #failoverBound} of the nodes' {@link RaftConfig}; a check that finds no leader to start from waits
 *       as long for one and otherwise fails, so it never passes without having run;</li>
 *   <li>durability: every acknowledged command is then in the leader's log at the index it was acknowledged at.</li>
 * </ul>
 * Storage faults are not part of this workload: a node's disk fails only by crashing. Everything is drawn from the
 * seed; {@link Scenario.Spec#line()} replays it.
 */
final class RaftScenario {
    /** The port every node serves on. */
    static final int PORT = 7200;
    /** How long after the faults stop a leader must have been elected and a command committed. */
    static final Duration LIVENESS_BOUND = Duration.ofSeconds(2);
    private static final int CLIENTS = 2;
    /** Leader losses after the faults stop, each of which must be followed by a new leader in time. */
    static final int FAILOVERS = 2;
    /**
     * Election timeouts within which a new leader is due after the leader's loss: with randomized timeouts a few
     * rounds of split votes fit, with a fixed timeout the repeated splits do not (BENCHMARKS.md has the figures).
     */
    private static final int FAILOVER_TIMEOUTS = 4;
    /** How long an old leader, restarted, gets to catch up before the next failover. */
    private static final Duration FAILOVER_REJOIN = Duration.ofMillis(10);
    /** The node nemesis's mean time between disturbances, and the mean time one lasts. */
    private static final Duration NEMESIS_PAUSE = Duration.ofMillis(40);
    private static final Duration CLIENT_CALL = Duration.ofMillis(100);

    private record Acknowledged(long index, long command) {
    }

    private final Scenario.Spec spec;
    private final Trace trace;
    private final RaftChecker checker;
    private final List<Acknowledged> acknowledged = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();
    private long highestAcknowledged;
    private int crashes;
    private int partitions;
    private int resets;
    private int lifetimes;
    /** Leaders the failover check powered off and has not restarted (it stops at a failed failover). */
    private int failoverCrashesNotRestarted;
    /** How soon a new leader is due after the leader's loss: {@link #failoverBound} of the nodes' configuration. */
    private Duration failoverBound;

    private RaftScenario(Scenario.Spec spec, int traceLines) {
        this.spec = spec;
        this.trace = new Trace(traceLines);
        this.checker = new RaftChecker(trace::notable);
    }

    /**
     * Runs one seed.
     *
     * @param spec the seed, faults and bug (a replicated workload)
     * @param traceLines how many of the last events to keep, 0 for none
     * @return what it did
     */
    static Scenario.Result run(Scenario.Spec spec, int traceLines) {
        return new RaftScenario(spec, traceLines).run();
    }

    /**
     * Runs one seed and hands its simulator run, once it ran, to {@code ran} (its coverage and draws, for a guided
     * search).
     */
    static Scenario.Result run(Scenario.Spec spec, int traceLines, java.util.function.Consumer<SimRunner> ran) {
        RaftScenario scenario = new RaftScenario(spec, traceLines);
        scenario.ran = ran;
        return scenario.run();
    }

    /** Told of the seed's simulator run once it ran; never null. */
    private java.util.function.Consumer<SimRunner> ran = runner -> { };

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
        return spec.search().applyTo(SimConfig.builder()).seed(spec.seed()).workers(1).ringEntries(256).timeLimit(Duration.ofHours(1))
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
                SweepCpu.addSimulator(runner.simulatorCpuNanos());
                ran.accept(runner);
                String fired = runner.coverage().faultPoints().entrySet().stream()
                        .filter(point -> point.getValue().fired() > 0)
                        .map(point -> point.getKey() + " x" + point.getValue().fired())
                        .collect(java.util.stream.Collectors.joining(", "));
                if (!fired.isEmpty()) {
                    trace.notable("fault points fired: " + fired);
                }
            } catch (IllegalStateException notRun) {
                // Nothing ran.
            }
        }
        List<String> all = new ArrayList<>(checker.violations());
        all.addAll(failures);
        String failure = all.isEmpty() ? null : String.join("\n", all.subList(0, Math.min(5, all.size())));
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
        int nodes = spec.workload().nodes();
        List<InetSocketAddress> members = new ArrayList<>();
        List<InetAddress> hosts = new ArrayList<>();
        for (int id = 1; id <= nodes; id++) {
            hosts.add(SimCluster.address(id));
            members.add(new InetSocketAddress(SimCluster.address(id), PORT));
        }
        for (int id = 1; id <= nodes; id++) {
            RaftConfig config = RaftConfig.of(id, members).withBug(spec.bug());
            failoverBound = failoverBound(config);   // the same timing on every node
            cluster.start(RaftNode.task(config, checker));
        }
        IntSupplier leaderHook = () -> checker.leader(id -> cluster.node(id).state() == SimNode.State.RUNNING)
                .orElse(ClusterNemesis.NO_LEADER);
        IntSupplier electionHook = () -> checker.candidate(id -> cluster.node(id).state() == SimNode.State.RUNNING)
                .orElse(ClusterNemesis.NO_LEADER);
        java.util.function.Supplier<ClusterNemesis.Contest> contestHook = () -> checker.contest(
                id -> cluster.node(id).state() == SimNode.State.RUNNING);
        Handle<Void> nodeFaults = ctx.child("nodes").spawn(spec.nemesis().nemesis(spec.seed(), NEMESIS_PAUSE,
                leaderHook, electionHook, contestHook, checker::listenForVotes, trace::notable));
        Nemesis network = new Nemesis(faults, hosts, Duration.ofMillis(60), trace::notable);
        Handle<Void> networkFaults = network.active() ? ctx.child("network").spawn(network::run) : null;
        List<Handle<Void>> clients = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            int client = i;
            clients.add(ctx.child("client" + i).spawn(c -> client(c, client, members, random)));
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
        partitions = network.partitions();
        resets = network.resets();
        checker.faultsStopped();
        trace.notable("faults stopped: " + acknowledged.size() + " commands acknowledged; a leader and a commit"
                + " are due within " + LIVENESS_BOUND.toMillis() + " ms");
        if (awaitLiveness(ctx, members)) {
            OptionalInt leader = awaitLeader(ctx, cluster, "after the faults stopped and a command committed");
            if (leader.isPresent()) {
                checkAcknowledged(checker.view(leader.getAsInt()));
                checkFailovers(ctx, cluster);
            }
        }
        // Counted after the failovers, whose crashes and restarts are part of the run.
        lifetimes = 1; // counted as the key-value workloads count them: one, plus one per restart
        for (SimNode node : cluster.nodes()) {
            lifetimes += node.lifetime() - 1;
        }
        crashes = lifetimes - 1 + failoverCrashesNotRestarted;   // every restart follows a crash or a kill
        checker.checkLogMatching();
        return null;
    }

    /**
     * How soon a new leader is due after the leader's loss, for nodes of this configuration:
     * {@link #FAILOVER_TIMEOUTS} of its longest election timeout (160 ms for {@link RaftConfig#of}'s 40 ms).
     */
    static Duration failoverBound(RaftConfig config) {
        return config.electionTimeoutMax().multipliedBy(FAILOVER_TIMEOUTS);
    }

    /**
     * A running node that leads, waiting up to {@link #failoverBound} for one (a leader that just stepped down is
     * replaced within it); none then is a liveness violation naming {@code when}, never a silent skip.
     */
    private OptionalInt awaitLeader(Context ctx, SimCluster cluster, String when) {
        java.util.function.IntPredicate running = id -> cluster.node(id).state() == SimNode.State.RUNNING;
        java.time.Instant deadline = ctx.now().plus(failoverBound);
        OptionalInt leading = checker.leader(running);
        while (leading.isEmpty() && ctx.now().isBefore(deadline)) {
            ctx.sleep(Duration.ofMillis(1));
            leading = checker.leader(running);
        }
        if (leading.isEmpty()) {
            checker.violation("liveness: no leader within " + failoverBound.toMillis() + " ms " + when);
        }
        return leading;
    }

    /**
     * Liveness of a failover, with no fault but the leader's loss: {@link #FAILOVERS} times, the leader loses power
     * wherever in its heartbeat cycle the check finds it, and another node must lead a newer term within
     * {@link #failoverBound}; the old leader is restarted before the next. The followers last heard the same
     * heartbeat, so their election timers run out close together: the split votes randomized timeouts exist to
     * break, which a fixed timeout repeats (BENCHMARKS.md has how long failovers take).
     */
    private void checkFailovers(Context ctx, SimCluster cluster) {
        java.util.function.IntPredicate running = id -> cluster.node(id).state() == SimNode.State.RUNNING;
        for (int failover = 1; failover <= FAILOVERS; failover++) {
            OptionalInt leading = awaitLeader(ctx, cluster, "before failover " + failover);
            if (leading.isEmpty()) {
                return;                 // a violation was recorded
            }
            SimNode old = cluster.node(leading.getAsInt());
            long oldTerm = checker.view(old.id()).term();
            old.crash();
            failoverCrashesNotRestarted++;
            trace.notable("failover " + failover + ": leader node " + old.id() + " of term " + oldTerm
                    + " powered off; a new leader is due within " + failoverBound.toMillis() + " ms");
            java.util.function.IntPredicate successor = id -> id != old.id() && running.test(id);
            java.time.Instant deadline = ctx.now().plus(failoverBound);
            OptionalInt next = checker.leader(successor);
            while ((next.isEmpty() || checker.view(next.getAsInt()).term() <= oldTerm)
                    && ctx.now().isBefore(deadline)) {
                ctx.sleep(Duration.ofMillis(1));
                next = checker.leader(successor);
            }
            if (next.isEmpty() || checker.view(next.getAsInt()).term() <= oldTerm) {
                checker.violation("liveness: no leader within " + failoverBound.toMillis() + " ms of the loss of"
                        + " leader node " + old.id() + " (failover " + failover + ", after the faults stopped)");
                return;
            }
            old.restart();
            failoverCrashesNotRestarted--;
            ctx.sleep(FAILOVER_REJOIN);
        }
    }

    /** Appends commands and reads the commit index until aborted, checking each read against what was acked. */
    private Void client(Context ctx, int id, List<InetSocketAddress> members, RandomGenerator random) {
        try (RaftClient client = new RaftClient(members, Duration.ofMillis(10), Duration.ofMillis(5))) {
            return load(ctx, id, client, random);
        }
    }

    private Void load(Context ctx, int id, RaftClient client, RandomGenerator random) {
        for (long sequence = 1; ; sequence++) {
            try {
                if (random.nextInt(4) != 0) {
                    long command = ((long) (id + 1) << 32) | sequence;
                    long index = ctx.timeout(CLIENT_CALL, () -> client.append(ctx, command));
                    acknowledged.add(new Acknowledged(index, command));
                    highestAcknowledged = Math.max(highestAcknowledged, index);
                    if (trace.keeps()) {
                        trace.event("client " + id + ": command " + command + " acknowledged at #" + index);
                    }
                } else {
                    long mustSee = highestAcknowledged;
                    long read = ctx.timeout(CLIENT_CALL, () -> client.commitIndex(ctx));
                    if (read < mustSee) {
                        checker.violation("linearizable read: client " + id + " read commit index " + read + " after"
                                + " #" + mustSee + " was acknowledged");
                    } else if (trace.keeps()) {
                        trace.event("client " + id + ": read commit index " + read);
                    }
                }
            } catch (RaftUnavailableException | LockstepException noAnswer) {
                if (noAnswer instanceof dev.lockstep.ClosedException aborted) {
                    throw aborted;
                }
                if (trace.keeps()) {
                    trace.event("client " + id + ": " + noAnswer.getMessage());
                }
            }
            ctx.sleep(Duration.ofMillis(1));
        }
    }

    /** A leader elected and a new command committed within the bound; the leader's id, or empty after a failure. */
    /** Whether a command committed within {@link #LIVENESS_BOUND}; if not, a violation is recorded. */
    private boolean awaitLiveness(Context ctx, List<InetSocketAddress> members) {
        try (RaftClient client = new RaftClient(members, Duration.ofMillis(10), Duration.ofMillis(5))) {
            return awaitLiveness(ctx, client);
        }
    }

    private boolean awaitLiveness(Context ctx, RaftClient client) {
        java.time.Instant deadline = ctx.now().plus(LIVENESS_BOUND);
        long marker = Long.MIN_VALUE;
        while (ctx.now().isBefore(deadline)) {
            try {
                long index = ctx.timeout(CLIENT_CALL, () -> client.append(ctx, marker));
                trace.notable("after the faults: a command committed at #" + index);
                highestAcknowledged = Math.max(highestAcknowledged, index);
                return true;
            } catch (RaftUnavailableException | dev.lockstep.TimeoutException | dev.lockstep.NetworkException noAnswer) {
                ctx.sleep(Duration.ofMillis(5));
            }
        }
        checker.violation("liveness: no command committed within " + LIVENESS_BOUND.toMillis() + " ms of simulated"
                + " time after the faults stopped");
        return false;
    }

    /** Every acknowledged command is in the leader's log at the index it was acknowledged at. */
    private void checkAcknowledged(RaftView leader) {
        if (leader == null) {
            return;
        }
        List<Entry> log = leader.log();
        for (Acknowledged ack : acknowledged) {
            Entry there = ack.index() <= log.size() ? log.get((int) (ack.index() - 1)) : null;
            if (there == null || there.command() != ack.command()) {
                checker.violation("acknowledged command " + ack.command() + " at #" + ack.index() + " is lost: the"
                        + " leader, node " + leader.id() + " in term " + leader.term() + ", has "
                        + (there == null ? "no entry there" : there));
                return;
            }
        }
    }
}
