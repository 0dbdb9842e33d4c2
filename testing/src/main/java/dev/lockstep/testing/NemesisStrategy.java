package dev.lockstep.testing;

import dev.lockstep.Task;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * The node-level nemeses by name, for tools that pick one as a search strategy (a command-line flag, a scoreboard
 * comparing strategies at equal budget). Each makes the nemesis task a run spawns in its controller:
 * {@code ctx.child("nemesis").spawn(strategy.nemesis(seed, pause, leaderHook, events))}.
 *
 * <p>A {@link ClusterNemesis} strategy keeps only the disturbances whose hooks it is given (the class doc of
 * {@link ClusterNemesis} says which disturbance needs which hook), so that none it draws disturbs nothing: without
 * an election hook {@link #TARGETED} has no {@link ClusterNemesis.Disturbance#ELECTION}, without a contest hook
 * {@link #PLACED} has no {@link ClusterNemesis.Disturbance#ANSWERED_VOTES}. Given every hook, each has its whole set.
 * A strategy left with none of the disturbances that make it what it is ({@link #STRIKES}' strikes, {@link #PLACED}'s,
 * {@link #VOTES}' vote strike) is refused, naming it and the hooks it misses.
 */
public enum NemesisStrategy {
    /** {@link NodeNemesis} with every action: one uniformly chosen node at a time. */
    UNIFORM,
    /** {@link ClusterNemesis} with every disturbance, aimed at the leader and the elections the hooks name. */
    TARGETED,
    /** {@link ClusterNemesis#swarm}: each seed its own set of disturbances, aimed at the leader or not. */
    SWARM,
    /**
     * As {@link #TARGETED}, with the two-step {@link ClusterNemesis#STRIKES} too: an acknowledgement counted and
     * then lost with the leader, a vote answered and then lost while another candidate of its term waits.
     */
    STRIKES,
    /**
     * {@link ClusterNemesis} with the {@link ClusterNemesis#PLACED} strikes alone, aimed through every hook: each
     * disturbance is a sequence placed at a moment where a protocol's subtle bugs show (an answer, a contested vote,
     * an old leader's return), with no single-step disturbance between them to spoil it.
     */
    PLACED,
    /**
     * {@link ClusterNemesis} with {@link ClusterNemesis.Disturbance#GRANTED_VOTES} alone, aimed through the vote
     * hook: each disturbance a crash of the voters just after they granted a candidate its vote, the winner cut off,
     * the voters back in the same term.
     */
    VOTES;

    /**
     * The nemesis this run's search strategy chose for a test that disturbs a cluster's nodes
     * ({@link SearchSettings#nemesis()}: the {@code combined} strategy, the default, chooses one per seed for a
     * {@code @SimulationTest(clusterNemesis = true)} method), or {@code fallback}, the test's own, when it chose
     * none: under another strategy, on runtime-uring, or in a run whose plan has no nemesis
     * ({@link Simulations#run}). A replay of the run ({@link Simulations#replay}, {@code -Dlockstep.replay})
     * gives the same answer: the choice is in its text. The one call a cluster test makes to let the search pick
     * its nemesis:
     *
     * <pre>{@code
     * NemesisStrategy nemesis = NemesisStrategy.forThisRun(ctx, NemesisStrategy.UNIFORM);
     * ctx.child("nemesis").spawn(nemesis.nemesis(run.seed(), pause, leader, election, contest, votes, events));
     * }</pre>
     *
     * <p>{@link #STRIKES}, {@link #PLACED} and {@link #VOTES} strike through the protocol's hooks and are refused
     * without them ({@link #nemesis(long, Duration, IntSupplier, IntSupplier, Supplier, ClusterNemesis.VoteHook,
     * Consumer)}); a test whose protocol gives only some hooks passes the choice through {@link #usableWith} with
     * them, one that gives none through {@link #withoutHooks()}. Any task of the run may call this, any number of
     * times; it draws nothing from the run's generator.
     *
     * <p>The run's replay line ({@code nemesis=NAME}, {@link SearchSettings#replayText}) records the strategy's
     * choice, which is what this returns; the nemesis that ran is that choice as the test adapted it, e.g.
     * {@code targeted} for a line's {@code placed} passed through {@link #withoutHooks()}. The adaptation depends on
     * the choice and the test's code alone, so the replay runs the same nemesis.
     *
     * @param ctx the context of a task of the run
     * @param fallback what the test runs when the strategy chose nothing
     * @return the run's choice, or {@code fallback}
     * @throws IllegalStateException in a {@code @SimulationTest} method without
     *     {@link SimulationTest#clusterNemesis()}, for which no strategy chooses a nemesis, saying so, on both
     *     runtimes (its runtime-uring run too); if {@code ctx}
     *     is a simulated task's context called from outside its simulation ({@link dev.lockstep.sim.SimRunner#control})
     */
    public static NemesisStrategy forThisRun(dev.lockstep.Context ctx, NemesisStrategy fallback) {
        Objects.requireNonNull(ctx, "ctx");
        Objects.requireNonNull(fallback, "fallback");
        if (ctx.digest().isEmpty()) {
            // A production runtime keeps no digest: not a simulated run, no search chose anything.
            String refusal = UringRefusal.current();
            if (refusal != null) {
                throw new IllegalStateException(refusal);
            }
            return fallback;
        }
        RunSettings settings = RunSettings.of(dev.lockstep.sim.SimRunner.control(ctx));
        if (settings != null && settings.refusal() != null) {
            throw new IllegalStateException(settings.refusal());
        }
        return settings == null || settings.nemesis() == null ? fallback : settings.nemesis();
    }

    /**
     * This strategy for a protocol that gives the nemesis no hooks (no leader, election, contest or vote hook):
     * {@link #usableWith} without any.
     *
     * @return the strategy to run
     */
    public NemesisStrategy withoutHooks() {
        return usableWith(null, null, null, null);
    }

    /**
     * This strategy for a protocol that gives the nemesis these hooks (each may be null, as for {@link #nemesis(long,
     * Duration, IntSupplier, IntSupplier, Supplier, ClusterNemesis.VoteHook, Consumer)}): itself if the hooks leave it
     * some of its own disturbances (see the class doc: {@link #STRIKES} and {@link #PLACED} with a leader or a contest
     * hook, {@link #VOTES} with the vote hook; {@link #UNIFORM}, {@link #TARGETED} and {@link #SWARM} always), else
     * {@link #TARGETED}, whose single-step disturbances do without hooks. The strategy it returns never refuses these
     * hooks. It draws nothing: the answer depends on this strategy and on which hooks are null alone, so a replay
     * that passes the same hooks runs the same nemesis.
     *
     * @param leader the leader hook, or null
     * @param election the election hook, or null
     * @param contest the contest hook, or null
     * @param votes the vote hook, or null
     * @return the strategy to run with these hooks
     */
    public NemesisStrategy usableWith(IntSupplier leader, IntSupplier election, Supplier<ClusterNemesis.Contest> contest,
            ClusterNemesis.VoteHook votes) {
        if (this == UNIFORM || this == SWARM) {
            return this;
        }
        return new NemesisHooks(leader, election, contest, votes).usable(own()).isEmpty() ? TARGETED : this;
    }

    /** The disturbances that make a {@link ClusterNemesis} strategy what it is; not for {@link #UNIFORM} or swarm. */
    private EnumSet<ClusterNemesis.Disturbance> own() {
        return switch (this) {
            case TARGETED -> EnumSet.copyOf(ClusterNemesis.SINGLE_STEP);
            case STRIKES -> EnumSet.copyOf(ClusterNemesis.STRIKES);
            case PLACED -> EnumSet.copyOf(ClusterNemesis.PLACED);
            case VOTES -> EnumSet.of(ClusterNemesis.Disturbance.GRANTED_VOTES);
            default -> throw new IllegalStateException(this + " makes no cluster nemesis of its own set");
        };
    }

    /**
     * The nemesis task for one run.
     *
     * @param seed the run's seed (only {@link #SWARM} uses it, to decide its disturbances)
     * @param meanPause the mean time between two disturbances and the mean time one lasts
     * @param leader the leader hook (see {@link ClusterNemesis}), or null; {@link #UNIFORM} ignores it
     * @param events receives one line per disturbance
     * @return a task to spawn in the run's controller; it runs until aborted
     * @throws IllegalArgumentException for a strategy left with none of its own disturbances by the missing hooks
     *     (see the class doc), naming it and the hooks: {@link #VOTES} without the vote hook, {@link #STRIKES} and
     *     {@link #PLACED} without the leader hook and the contest hook
     */
    public Task<Void> nemesis(long seed, Duration meanPause, IntSupplier leader, Consumer<String> events) {
        return nemesis(seed, meanPause, leader, null, events);
    }

    /**
     * The nemesis task for one run, with an election hook.
     *
     * @param seed the run's seed (only {@link #SWARM} uses it, to decide its disturbances)
     * @param meanPause the mean time between two disturbances and the mean time one lasts
     * @param leader the leader hook (see {@link ClusterNemesis}), or null; {@link #UNIFORM} ignores it
     * @param election the election hook (see {@link ClusterNemesis}), or null; {@link #UNIFORM} ignores it
     * @param events receives one line per disturbance
     * @return a task to spawn in the run's controller; it runs until aborted
     * @throws IllegalArgumentException for a strategy left with none of its own disturbances by the missing hooks
     *     (see the class doc), naming it and the hooks: {@link #VOTES} without the vote hook, {@link #STRIKES} and
     *     {@link #PLACED} without the leader hook and the contest hook
     */
    public Task<Void> nemesis(long seed, Duration meanPause, IntSupplier leader, IntSupplier election,
            Consumer<String> events) {
        return nemesis(seed, meanPause, leader, election, null, events);
    }

    /**
     * The nemesis task for one run, with an election hook and a contest hook.
     *
     * @param seed the run's seed (only {@link #SWARM} uses it, to decide its disturbances)
     * @param meanPause the mean time between two disturbances and the mean time one lasts
     * @param leader the leader hook (see {@link ClusterNemesis}), or null; {@link #UNIFORM} ignores it
     * @param election the election hook (see {@link ClusterNemesis}), or null; {@link #UNIFORM} ignores it
     * @param contest the contest hook (see {@link ClusterNemesis}), or null; only {@link #STRIKES} and
     *     {@link #PLACED} use it
     * @param events receives one line per disturbance
     * @return a task to spawn in the run's controller; it runs until aborted
     * @throws IllegalArgumentException for a strategy left with none of its own disturbances by the missing hooks
     *     (see the class doc), naming it and the hooks: {@link #VOTES} without the vote hook, {@link #STRIKES} and
     *     {@link #PLACED} without the leader hook and the contest hook
     */
    public Task<Void> nemesis(long seed, Duration meanPause, IntSupplier leader, IntSupplier election,
            Supplier<ClusterNemesis.Contest> contest, Consumer<String> events) {
        return nemesis(seed, meanPause, leader, election, contest, null, events);
    }

    /**
     * The nemesis task for one run, with every hook.
     *
     * @param seed the run's seed (only {@link #SWARM} uses it, to decide its disturbances)
     * @param meanPause the mean time between two disturbances and the mean time one lasts
     * @param leader the leader hook (see {@link ClusterNemesis}), or null; {@link #UNIFORM} ignores it
     * @param election the election hook (see {@link ClusterNemesis}), or null; {@link #UNIFORM} ignores it
     * @param contest the contest hook (see {@link ClusterNemesis}), or null; only {@link #STRIKES} and
     *     {@link #PLACED} use it
     * @param votes the vote hook (see {@link ClusterNemesis}), or null; only {@link #VOTES} uses it, and needs it
     * @param events receives one line per disturbance
     * @return a task to spawn in the run's controller; it runs until aborted
     * @throws IllegalArgumentException for a strategy left with none of its own disturbances by the missing hooks
     *     (see the class doc), naming it and the hooks: {@link #VOTES} without the vote hook, {@link #STRIKES} and
     *     {@link #PLACED} without the leader hook and the contest hook
     */
    public Task<Void> nemesis(long seed, Duration meanPause, IntSupplier leader, IntSupplier election,
            Supplier<ClusterNemesis.Contest> contest, ClusterNemesis.VoteHook votes, Consumer<String> events) {
        Objects.requireNonNull(events, "events");
        if (this == UNIFORM) {
            return new NodeNemesis(EnumSet.allOf(NodeNemesis.Action.class), meanPause, events)::run;
        }
        return clusterNemesis(seed, meanPause, new NemesisHooks(leader, election, contest, votes), events)::run;
    }

    /** The cluster nemesis of every strategy but {@link #UNIFORM}; see {@link #nemesis}. */
    ClusterNemesis clusterNemesis(long seed, Duration meanPause, NemesisHooks hooks, Consumer<String> events) {
        if (this == SWARM) {
            return ClusterNemesis.swarm(seed, meanPause, hooks.leader(), hooks.election(), events);
        }
        EnumSet<ClusterNemesis.Disturbance> own = own();
        EnumSet<ClusterNemesis.Disturbance> usable = hooks.usable(own);
        if (usable.isEmpty()) {
            throw new IllegalArgumentException("nemesis strategy " + cliName() + ": " + hooks.refusal(own));
        }
        if (this == STRIKES) {
            usable.addAll(hooks.usable(ClusterNemesis.SINGLE_STEP));   // as TARGETED, with the strikes
        }
        return new ClusterNemesis(usable, meanPause, hooks.leader(), hooks.election(), hooks.contest(),
                hooks.votes(), events);
    }

    /**
     * The command-line name.
     *
     * @return e.g. {@code targeted}
     */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses a command-line name.
     *
     * @param name e.g. {@code targeted}, case-insensitive
     * @return the strategy
     * @throws IllegalArgumentException naming the value and the known names
     */
    public static NemesisStrategy parse(String name) {
        for (NemesisStrategy strategy : values()) {
            if (strategy.cliName().equalsIgnoreCase(name)) {
                return strategy;
            }
        }
        StringBuilder known = new StringBuilder();
        for (NemesisStrategy strategy : values()) {
            known.append(known.isEmpty() ? "" : ", ").append(strategy.cliName());
        }
        throw new IllegalArgumentException("unknown nemesis strategy '" + name + "'; known: " + known);
    }
}
