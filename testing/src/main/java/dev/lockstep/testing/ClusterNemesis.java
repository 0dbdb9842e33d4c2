package dev.lockstep.testing;

import dev.lockstep.Context;
import dev.lockstep.sim.SimCluster;
import dev.lockstep.sim.SimControl;
import dev.lockstep.sim.SimNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * A nemesis strong enough for consensus protocols: where {@link NodeNemesis} disturbs one uniformly chosen node at a
 * time, so that with five nodes a majority is nearly always whole, this one also takes a majority at once, cuts a
 * node or a minority off the network, aims at the node the protocol believes leads, and crashes nodes at the
 * moments of their I/O where a missing sync shows: while a sync is in flight or just done, and just after answering
 * a request. Run it in its own task of the controller, as
 * {@code ctx.child("nemesis").spawn(nemesis::run)}; it runs until aborted, and when it is, it heals what it cut and
 * restarts or resumes what it took down.
 *
 * <h2>Disturbances</h2>
 * At seeded moments (mean {@code meanPause} apart) it draws one of its {@link Disturbance}s and, for those aimed at
 * one node, a target: the leader when a leader hook is given and names a running node, otherwise a running node
 * drawn uniformly. Each disturbance lasts a seeded while (mean {@code meanPause}) and is undone before the next
 * one starts. At each turn it also restarts any {@linkplain SimNode#failStop(boolean) fail-stop} node that went
 * down on its own, and so does undoing a disturbance for a node that fail-stopped while it held it: every such restart
 * is counted ({@link #restartsOfFailStopped()}) and named in the trace with the failure.
 *
 * <h2>The leader hook</h2>
 * An {@link IntSupplier} the protocol's test provides: the id of the node that currently believes it leads (the
 * latest such claim the test has seen), or {@link #NO_LEADER} when none is known. It is called on the simulator's
 * thread between steps, so it may read the nodes' plain fields; it must not block or draw randomness.
 *
 * <h2>The election hook</h2>
 * An {@link IntSupplier} of the same kind: the id of a node that is standing for election now (a candidate), or
 * {@link #NO_LEADER} when no election is running. {@link Disturbance#ELECTION} watches it to strike the voters of
 * an election while it runs, where a vote that is not durable, or forgotten by a reboot, elects two leaders.
 *
 * <h2>The contest hook</h2>
 * A {@link Supplier} of the same kind: a {@link Contest} (two candidates of one term and a voter that has voted for
 * neither) while the protocol's test sees one, else null. {@link Disturbance#ANSWERED_VOTE} and
 * {@link Disturbance#ANSWERED_VOTES} watch it.
 *
 * <h2>The vote hook</h2>
 * A {@link VoteHook}: the protocol's test calls the listener it registers as a node is about to grant a vote,
 * before the node writes or answers it. {@link Disturbance#GRANTED_VOTES} arms the voter's crash there, at the one
 * moment a poll of the other hooks would miss.
 *
 * <h2>Disturbances that need a hook</h2>
 * {@link Disturbance#ELECTION} needs the election hook, {@link Disturbance#ANSWERED_VOTE} and
 * {@link Disturbance#ANSWERED_VOTES} the contest hook, {@link Disturbance#ACK_THEN_LEADER_LOSS} and
 * {@link Disturbance#OLD_LEADER_RETURNS} the leader hook, {@link Disturbance#GRANTED_VOTES} the vote hook: without
 * it each would never find its moment and disturb nothing, so a nemesis given one of them without its hook is
 * refused at construction, naming the disturbance and the hook. The others do without: with no leader hook a
 * disturbance aimed at one node draws its target, and a vote strike that cannot tell the winner still crashes its
 * voters at their answer and brings them back, cutting no one off.
 *
 * <h2>Swarm</h2>
 * {@link #swarm} decides, from the seed alone, which disturbances a run uses and whether it aims at the leader:
 * some seeds then run with power losses only, others with splits and I/O crashes, and rare combinations each get
 * seeds of their own. The decision is made outside the simulation's generator, so it adds no draw to a run.
 *
 * <p>Every choice during the run comes from {@link SimControl#random()}, so the schedule is part of the seed.
 * Not thread-safe: a simulation runs on one thread.
 */
public final class ClusterNemesis {
    /** What the leader hook answers when no node is known to lead. */
    public static final int NO_LEADER = 0;

    /** What the nemesis may do. */
    public enum Disturbance {
        /** Crashes (a power cut) the target, restarts it later. */
        CRASH,
        /** Kills the target's process, restarts it later. */
        KILL,
        /** Pauses the target's process, resumes it later. */
        PAUSE,
        /** Cuts the target off from every other node ({@link NetworkSplit#isolate}), heals it later. */
        ISOLATE,
        /**
         * Splits the nodes into a minority (the target and up to {@code (n - 1) / 2 - 1} others drawn) and a majority
         * ({@link NetworkSplit#between}), heals it later. With fewer than three nodes, the same as {@link #ISOLATE}.
         */
        SPLIT,
        /**
         * Correlated power loss: crashes a majority ({@code n / 2 + 1} of the {@code n} nodes, the target among
         * them; fewer if fewer run) at one instant, restarts them later. What each had not synced is lost at once.
         */
        POWER_LOSS,
        /**
         * Arms the target to crash at its next sync in flight or next completed sync (drawn; see
         * {@link SimNode#crashAt}); restarts it later if it fired, disarms it if no sync came within the while.
         */
        CRASH_AT_SYNC,
        /**
         * Power loss of every running node at one instant; all are restarted together later, so their timers start
         * together again, as after a data centre's outage.
         */
        POWER_LOSS_ALL,
        /**
         * A crash during recovery: a majority (the target among them) loses power at once, and each is restarted
         * armed to crash again at its first sync in flight after the restart ({@link SimNode#crashAt}), which is
         * where a recovery that rewrites its files is weakest; what went down again is restarted later.
         */
        CRASH_IN_RECOVERY,
        /**
         * Crashes aimed at an election: waits (at most the disturbance's while) until the election hook names a
         * running candidate, then hits one of the other running nodes, a voter: armed to crash at its next sync in
         * flight (its vote's), or crashed or killed after a draw of up to {@code meanPause / 8}; it is down for a
         * short while (up to {@code meanPause / 2}) so that it is back in the same term. With no election within
         * the while, nothing happens. Needs the election hook.
         */
        ELECTION,
        /**
         * Cuts the target (the leader, when aimed) off from every other node for a long while (3 to 5 times
         * {@code meanPause}): time for the others to elect a leader and commit while the target, believing it
         * still leads, takes commands of its own, then heals it.
         */
        LONG_ISOLATE,
        /**
         * Arms the target to crash just after it answered a request: as soon as a peer has received what the target
         * sent back on a connection the peer opened ({@link SimNode.IoBoundary#ANSWERED}), so whatever the target
         * acknowledged and had not synced meets the crash policy while the asker holds the acknowledgement; restarts
         * it later if it fired, disarms it if it answered nothing within the while.
         */
        CRASH_AFTER_ANSWER,
        /**
         * An acknowledgement the leader counts and a follower then loses: with a leader named by the leader hook,
         * the followers beyond a bare majority are cut off, the others ({@code n / 2}, drawn) armed to crash just
         * after they answered ({@link SimNode.IoBoundary#ANSWERED}); once every one of them did, the leader loses
         * power within a network delay, before it can pass on what it committed on their word, and the split is
         * healed. The acknowledgers are back after up to {@code meanPause / 8}, the leader after the disturbance's
         * while and two mean pauses more: what they acknowledged and had not synced is then on no node that can be
         * elected. While the hook names no running leader, nothing happens. Needs the leader hook. Part of
         * {@link #STRIKES}.
         */
        ACK_THEN_LEADER_LOSS,
        /**
         * A vote answered and then lost: waits (at most the disturbance's while) until the contest hook names two
         * running candidates of one term and a running voter that has voted for neither, arms the voter to crash
         * just after it answered ({@link SimNode.IoBoundary#ANSWERED}: the candidate it answered holds the vote),
         * cuts off the candidate that then claims the term (named by the leader hook within a millisecond) so that
         * it tells the other nothing, and restarts the voter after up to {@code meanPause / 8}, within the other
         * candidate's election timeout, which then asks it again in the same term. With no contest within the while,
         * nothing happens. Needs the contest hook; without a leader hook no winner is cut off. Part of
         * {@link #STRIKES}.
         */
        ANSWERED_VOTE,
        /**
         * {@link #ANSWERED_VOTE} with every running node but the two candidates armed, not only the named voter
         * (with five nodes one vote does not decide), and the candidate that claims the term named by the leader hook
         * within three milliseconds of the first crash, time for the other votes it needs to be written and sent;
         * the armed nodes that answered nothing are disarmed when the crashed ones are restarted. Part of
         * {@link #PLACED}.
         */
        ANSWERED_VOTES,
        /**
         * A leader of an older term that leads again (the Raft paper's Figure 8): the leader named by the leader hook
         * is cut off with a bare minority of followers ({@code (n - 1) / 2 - 1} of them, drawn), takes what clients
         * send it for a draw of up to {@code meanPause / 4} and loses power. Once the hook names a new leader on the
         * majority's side, that leader is cut off alone at once (before it passes on what it takes next), the first
         * split is healed and the old leader restarted: a leader of a third term is elected among the others,
         * passing on what the old leader's side holds. After a draw of up to {@code meanPause / 8} it loses power
         * and the isolated leader, whose last entry is of a newer term than what the third leader passed on, is
         * healed: a vote may then go to it. Each wait is bounded by four mean pauses; while the hook names no running
         * leader, nothing happens. Needs the leader hook. {@link #PLACED} has it, {@link #STRIKES} does not.
         */
        OLD_LEADER_RETURNS,
        /**
         * Votes granted and then lost: waits (at most the disturbance's while) until the vote hook says a running
         * node is about to grant a candidate its vote, and arms it to crash just after it answered
         * ({@link SimNode.IoBoundary#ANSWERED}), so the crash lands on the grant itself: the candidate holds the vote
         * while what the voter had not synced meets the crash policy. Every other voter that grants that candidate
         * that term within three milliseconds is armed the same way; the candidate, once the leader hook names it
         * in that window, is cut off from every other node for the disturbance's while, so it tells no one of its
         * term, and the voters that crashed are back after up to {@code meanPause / 8}, well within an election
         * timeout: a voter that lost its vote may grant it again in the same term, to another node. With no vote
         * within the while, nothing happens. Needs the vote hook; without a leader hook no winner is cut off. No
         * built-in set has it: {@link NemesisStrategy#VOTES} runs it alone.
         */
        GRANTED_VOTES
    }

    /**
     * The two-step strikes, each a crash at an answer followed by what makes the answer count. {@link #swarm} never
     * draws them.
     */
    public static final Set<Disturbance> STRIKES = Collections.unmodifiableSet(EnumSet.of(
            Disturbance.ACK_THEN_LEADER_LOSS, Disturbance.ANSWERED_VOTE));

    /**
     * The strikes placed at a moment the hooks name, each a sequence of several steps:
     * {@link Disturbance#ACK_THEN_LEADER_LOSS}, {@link Disturbance#ANSWERED_VOTES} (the {@link #STRIKES}' vote strike
     * with every voter armed) and {@link Disturbance#OLD_LEADER_RETURNS}.
     */
    public static final Set<Disturbance> PLACED = Collections.unmodifiableSet(EnumSet.of(
            Disturbance.ACK_THEN_LEADER_LOSS, Disturbance.ANSWERED_VOTES, Disturbance.OLD_LEADER_RETURNS));

    /**
     * Every disturbance but the {@link #STRIKES}, the {@link #PLACED} strikes and {@link Disturbance#GRANTED_VOTES}:
     * what {@link #swarm} draws from.
     */
    public static final Set<Disturbance> SINGLE_STEP = Collections.unmodifiableSet(EnumSet.complementOf(
            EnumSet.of(Disturbance.ACK_THEN_LEADER_LOSS, Disturbance.ANSWERED_VOTE, Disturbance.ANSWERED_VOTES,
                    Disturbance.OLD_LEADER_RETURNS, Disturbance.GRANTED_VOTES)));

    /**
     * An election contested by two candidates of one term, and a voter that has voted for neither in it: what a
     * protocol's contest hook answers ({@link Disturbance#ANSWERED_VOTE}).
     *
     * @param first a candidate's id
     * @param second the other candidate's id
     * @param voter the id of a node that has voted for neither in their term
     */
    public record Contest(int first, int second, int voter) {
    }

    /**
     * A vote a node is about to grant: decided, not yet answered (what a protocol's vote hook reports,
     * {@link Disturbance#GRANTED_VOTES}).
     *
     * @param voter the id of the node granting its vote
     * @param candidate the id of the node it grants it to
     * @param term the term of the vote
     */
    public record Vote(int voter, int candidate, long term) {
    }

    /**
     * The vote hook a protocol's test provides: the nemesis gives it, once at the start of its run, the listener to
     * call each time a node is about to grant a vote, before the node writes or answers it. The test calls the
     * listener on the simulator's thread from the node's code (its decision, under its lock); the listener may arm
     * the node's crash and returns at once, without blocking; it draws nothing.
     */
    @FunctionalInterface
    public interface VoteHook {
        /**
         * Registers the listener; a later call replaces it.
         *
         * @param listener to call with each vote about to be granted
         */
        void listen(Consumer<Vote> listener);
    }

    private final Set<Disturbance> disturbances;
    private final Duration meanPause;
    private final IntSupplier leader;
    private final IntSupplier election;
    private final Supplier<Contest> contest;
    private final VoteHook votes;
    private final Consumer<String> events;
    private final int[] counts = new int[Disturbance.values().length];
    private int restartsOfFailStopped;

    /**
     * @param disturbances what it may do, at least one
     * @param meanPause the mean time between two disturbances, and the mean time one lasts
     * @param leader the leader hook (see the class doc), or null to draw every target uniformly
     * @param events receives one line per disturbance, for traces; may be a no-op
     * @throws IllegalArgumentException if {@code disturbances} is empty, {@code meanPause} is not positive, or a
     *     disturbance needs a hook that is null (see the class doc), naming the disturbance and the hook
     */
    public ClusterNemesis(Set<Disturbance> disturbances, Duration meanPause, IntSupplier leader,
            Consumer<String> events) {
        this(disturbances, meanPause, leader, null, events);
    }

    /**
     * @param disturbances what it may do, at least one
     * @param meanPause the mean time between two disturbances, and the mean time one lasts
     * @param leader the leader hook (see the class doc), or null to draw every target uniformly
     * @param election the election hook (see the class doc), or null if {@code disturbances} has no
     *     {@link Disturbance#ELECTION}
     * @param events receives one line per disturbance, for traces; may be a no-op
     * @throws IllegalArgumentException if {@code disturbances} is empty, {@code meanPause} is not positive, or a
     *     disturbance needs a hook that is null (see the class doc), naming the disturbance and the hook
     */
    public ClusterNemesis(Set<Disturbance> disturbances, Duration meanPause, IntSupplier leader, IntSupplier election,
            Consumer<String> events) {
        this(disturbances, meanPause, leader, election, null, events);
    }

    /**
     * @param disturbances what it may do, at least one
     * @param meanPause the mean time between two disturbances, and the mean time one lasts
     * @param leader the leader hook (see the class doc), or null to draw every target uniformly
     * @param election the election hook (see the class doc), or null if {@code disturbances} has no
     *     {@link Disturbance#ELECTION}
     * @param contest the contest hook (see the class doc), or null if {@code disturbances} has neither
     *     {@link Disturbance#ANSWERED_VOTE} nor {@link Disturbance#ANSWERED_VOTES}
     * @param events receives one line per disturbance, for traces; may be a no-op
     * @throws IllegalArgumentException if {@code disturbances} is empty, {@code meanPause} is not positive, or a
     *     disturbance needs a hook that is null (see the class doc), naming the disturbance and the hook
     */
    public ClusterNemesis(Set<Disturbance> disturbances, Duration meanPause, IntSupplier leader, IntSupplier election,
            Supplier<Contest> contest, Consumer<String> events) {
        this(disturbances, meanPause, leader, election, contest, null, events);
    }

    /**
     * @param disturbances what it may do, at least one
     * @param meanPause the mean time between two disturbances, and the mean time one lasts
     * @param leader the leader hook (see the class doc), or null to draw every target uniformly
     * @param election the election hook (see the class doc), or null if {@code disturbances} has no
     *     {@link Disturbance#ELECTION}
     * @param contest the contest hook (see the class doc), or null if {@code disturbances} has neither
     *     {@link Disturbance#ANSWERED_VOTE} nor {@link Disturbance#ANSWERED_VOTES}
     * @param votes the vote hook (see the class doc), or null if {@code disturbances} has no
     *     {@link Disturbance#GRANTED_VOTES}
     * @param events receives one line per disturbance, for traces; may be a no-op
     * @throws IllegalArgumentException if {@code disturbances} is empty, {@code meanPause} is not positive, or a
     *     disturbance needs a hook that is null (see the class doc), naming the disturbance and the hook (the
     *     leader hook for {@link Disturbance#ACK_THEN_LEADER_LOSS} and {@link Disturbance#OLD_LEADER_RETURNS})
     */
    public ClusterNemesis(Set<Disturbance> disturbances, Duration meanPause, IntSupplier leader, IntSupplier election,
            Supplier<Contest> contest, VoteHook votes, Consumer<String> events) {
        if (disturbances.isEmpty()) {
            throw new IllegalArgumentException("a cluster nemesis needs at least one disturbance");
        }
        if (meanPause.isNegative() || meanPause.isZero()) {
            throw new IllegalArgumentException("meanPause must be positive, was " + meanPause);
        }
        String refusal = new NemesisHooks(leader, election, contest, votes).refusal(disturbances);
        if (refusal != null) {
            throw new IllegalArgumentException(refusal);
        }
        this.disturbances = Collections.unmodifiableSet(EnumSet.copyOf(disturbances));
        this.meanPause = meanPause;
        this.leader = leader;
        this.election = election;
        this.contest = contest;
        this.votes = votes;
        this.events = Objects.requireNonNull(events, "events");
    }

    /**
     * Swarm testing of the {@link #SINGLE_STEP} disturbances: each is on with probability one half (at least one
     * is), and the leader hook
     * is used with probability one half, all decided by {@code seed} alone (see the class doc). With no election
     * hook in use {@link Disturbance#ELECTION} is never on.
     *
     * @param seed the run's seed
     * @param meanPause as for the constructor
     * @param leader the leader hook, or null
     * @param events as for the constructor
     * @return the nemesis for this seed
     */
    public static ClusterNemesis swarm(long seed, Duration meanPause, IntSupplier leader, Consumer<String> events) {
        return swarm(seed, meanPause, leader, null, events);
    }

    /**
     * As {@link #swarm(long, Duration, IntSupplier, Consumer)}, with an election hook; the hooks are used or not
     * together, so {@link Disturbance#ELECTION} is on only in seeds that use them. A seed's draws do not depend on
     * the hooks: a seed that uses them has the disturbances it has with every hook, and one that does not has them
     * less {@link Disturbance#ELECTION} (one other drawn if that leaves none).
     *
     * @param seed the run's seed
     * @param meanPause as for the constructor
     * @param leader the leader hook, or null
     * @param election the election hook, or null
     * @param events as for the constructor
     * @return the nemesis for this seed
     */
    public static ClusterNemesis swarm(long seed, Duration meanPause, IntSupplier leader, IntSupplier election,
            Consumer<String> events) {
        SplittableRandom random = new SplittableRandom(seed ^ 0x2545F4914F6CDD1DL);
        EnumSet<Disturbance> chosen = EnumSet.noneOf(Disturbance.class);
        List<Disturbance> drawable = List.copyOf(SINGLE_STEP);
        for (Disturbance disturbance : drawable) {
            if (random.nextBoolean()) {
                chosen.add(disturbance);
            }
        }
        if (chosen.isEmpty()) {
            chosen.add(drawable.get(random.nextInt(drawable.size())));
        }
        boolean aimed = random.nextBoolean();
        IntSupplier electionUsed = aimed ? election : null;
        if (electionUsed == null && chosen.remove(Disturbance.ELECTION) && chosen.isEmpty()) {
            List<Disturbance> blind = new ArrayList<>(drawable);
            blind.remove(Disturbance.ELECTION);
            chosen.add(blind.get(random.nextInt(blind.size())));
        }
        return new ClusterNemesis(chosen, meanPause, aimed ? leader : null, electionUsed, events);
    }

    /**
     * What it may do.
     *
     * @return the disturbances, unmodifiable
     */
    public Set<Disturbance> disturbances() {
        return disturbances;
    }

    /**
     * Whether it watches elections through an election hook.
     *
     * @return true if it has an election hook
     */
    public boolean watchesElections() {
        return election != null;
    }

    /**
     * Whether it aims at the leader the hook names.
     *
     * @return true if it has a leader hook
     */
    public boolean targetsLeader() {
        return leader != null;
    }

    /**
     * How often it did {@code disturbance} so far (a {@link Disturbance#CRASH_AT_SYNC} or
     * {@link Disturbance#CRASH_AFTER_ANSWER} counts when armed, fired or not).
     *
     * @param disturbance the disturbance
     * @return the count
     */
    public int count(Disturbance disturbance) {
        return counts[disturbance.ordinal()];
    }

    /**
     * Fail-stop nodes it restarted so far.
     *
     * @return the count
     */
    public int restartsOfFailStopped() {
        return restartsOfFailStopped;
    }

    /**
     * Disturbs the cluster until aborted.
     *
     * @param ctx the nemesis task's context, in the controller of a simulation with a cluster
     * @return never returns normally
     */
    public Void run(Context ctx) {
        SimControl control = dev.lockstep.sim.SimRunner.control(ctx);
        SimCluster cluster = control.cluster();
        RandomGenerator random = control.random();
        List<Disturbance> choices = new ArrayList<>(disturbances);
        List<SimNode> down = new ArrayList<>();
        NetworkSplit[] split = {null, null};
        PlacedStrikes strikes = new PlacedStrikes(meanPause, leader, contest, this::event);
        CrashSequences sequences = new CrashSequences(meanPause, election, this::event);
        GrantedVotes granted = new GrantedVotes(meanPause, leader, this::event);
        SingleSteps single = new SingleSteps(meanPause, this::event);
        if (disturbances.contains(Disturbance.GRANTED_VOTES)) {
            votes.listen(granted::granting);
        }
        try {
            while (true) {
                ctx.sleep(pause(random));
                restartFailStopped(cluster);
                List<SimNode> running = running(cluster);
                if (running.isEmpty()) {
                    continue;
                }
                Disturbance disturbance = choices.get(random.nextInt(choices.size()));
                SimNode target = target(cluster, running, random);
                Duration length = pause(random);
                counts[disturbance.ordinal()]++;
                switch (disturbance) {
                    case CRASH_IN_RECOVERY -> sequences.crashInRecovery(ctx, cluster, running, target, length, random,
                            down);
                    case ELECTION -> sequences.strikeElection(ctx, cluster, length, random, down);
                    case ACK_THEN_LEADER_LOSS -> strikes.ackThenLeaderLoss(ctx, control, cluster, length, random,
                            down, split);
                    case ANSWERED_VOTE, ANSWERED_VOTES -> strikes.answeredVote(ctx, control, cluster, length, random,
                            down, split, disturbance == Disturbance.ANSWERED_VOTES);
                    case OLD_LEADER_RETURNS -> strikes.oldLeaderReturns(ctx, control, cluster, random, down, split);
                    case GRANTED_VOTES -> granted.strike(ctx, control, cluster, length, random, down, split);
                    default -> single.disturb(ctx, control, cluster, disturbance, running, target, length, random,
                            down, split);
                }
                bringBack(down, split);
            }
        } finally {
            try {
                bringBack(down, split);
            } catch (RuntimeException simulationOver) {
                // The run is ending: nothing left to bring back.
            }
        }
    }

    private SimNode target(SimCluster cluster, List<SimNode> running, RandomGenerator random) {
        if (leader != null) {
            int id = leader.getAsInt();
            if (id >= 1 && id <= cluster.nodes().size()) {
                SimNode named = cluster.node(id);
                if (running.contains(named)) {
                    return named;
                }
            }
        }
        return running.get(random.nextInt(running.size()));
    }

    private void restartFailStopped(SimCluster cluster) {
        for (SimNode node : cluster.nodes()) {
            if (node.failure() != null) {
                restartFailStopped(node);
            }
        }
    }

    private void restartFailStopped(SimNode node) {
        Throwable failure = node.failure();
        node.restart();
        restartsOfFailStopped++;
        event("restart fail-stopped node " + node.id() + " (" + failure + ")");
    }

    private void bringBack(List<SimNode> down, NetworkSplit[] split) {
        for (int i = 0; i < split.length; i++) {
            if (split[i] != null) {
                split[i].heal();
                event("healed " + split[i]);
                split[i] = null;
            }
        }
        // Each line says what was done: a node that is up (its armed crash never came) is only disarmed, and one
        // that fail-stopped while the nemesis held it is restarted as every fail-stopped node is, counted and named.
        for (SimNode node : down) {
            SimNode.IoBoundary armed = node.disarm();
            switch (node.state()) {
                case DOWN -> {
                    if (node.failure() != null) {
                        restartFailStopped(node);
                        continue;
                    }
                    node.restart();
                }
                case PAUSED -> node.resume();
                default -> {
                    if (armed != null) {
                        event("node " + node.id() + " disarmed: no " + armed + " came");
                    }
                    continue;
                }
            }
            event("node " + node.id() + " back (lifetime " + node.lifetime() + ")");
        }
        down.clear();
    }

    static List<SimNode> running(SimCluster cluster) {
        List<SimNode> running = new ArrayList<>();
        for (SimNode node : cluster.nodes()) {
            if (node.state() == SimNode.State.RUNNING) {
                running.add(node);
            }
        }
        return running;
    }

    private void event(String line) {
        events.accept("nemesis: " + line);
    }

    private Duration pause(RandomGenerator random) {
        return Duration.ofNanos(1 + random.nextLong(2 * meanPause.toNanos()));
    }

    @Override
    public String toString() {
        return "ClusterNemesis(" + disturbances + (leader != null ? ", aimed at the leader" : "") + ")";
    }
}
