package dev.lockstep.testing;

import dev.lockstep.Context;
import dev.lockstep.sim.SimCluster;
import dev.lockstep.sim.SimControl;
import dev.lockstep.sim.SimNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;

/**
 * The node half of fault injection, for a run with a {@link SimCluster}: at seeded moments it picks a running node
 * and crashes it, kills it, pauses it, or moves its clock; a node it took down it restarts, and a node it paused it
 * resumes, a seeded while later. One node at a time is disturbed, so the others keep a majority. Run it in its own
 * task of the controller: {@code ctx.child("nodes").spawn(c -> nemesis.run(c))}; it runs until aborted, and when it
 * is, it restarts or resumes the node it left down or paused.
 *
 * <p>Every choice comes from {@link SimControl#random()}, so the schedule is part of the seed. Not thread-safe: a
 * simulation runs on one thread.
 *
 * <p>A majority left whole is what a consensus protocol survives by design: to hit a majority, a leader or a sync in
 * flight, use {@link ClusterNemesis}.
 */
public final class NodeNemesis {
    /** What the nemesis may do to a node. */
    public enum Action {
        /** {@link SimNode#crash()}, then {@link SimNode#restart()}. */
        CRASH,
        /** {@link SimNode#kill()}, then {@link SimNode#restart()}. */
        KILL,
        /** {@link SimNode#pause()}, then {@link SimNode#resume()}. */
        PAUSE,
        /** A clock step of up to a mean pause either way, or a drift of up to 1000 ppm either way. */
        CLOCK
    }

    private final Set<Action> actions;
    private final Duration meanPause;
    private final Consumer<String> events;
    private final int[] counts = new int[Action.values().length];

    /**
     * @param actions what it may do, at least one
     * @param meanPause the mean time between two disturbances, and the mean time a node stays down or paused
     * @param events receives one line per disturbance, for traces; may be a no-op
     * @throws IllegalArgumentException if {@code actions} is empty or {@code meanPause} is not positive
     */
    public NodeNemesis(Set<Action> actions, Duration meanPause, Consumer<String> events) {
        if (actions.isEmpty()) {
            throw new IllegalArgumentException("a node nemesis needs at least one action");
        }
        if (meanPause.isNegative() || meanPause.isZero()) {
            throw new IllegalArgumentException("meanPause must be positive, was " + meanPause);
        }
        this.actions = EnumSet.copyOf(actions);
        this.meanPause = meanPause;
        this.events = Objects.requireNonNull(events, "events");
    }

    /**
     * How often it did {@code action} so far.
     *
     * @param action the action
     * @return the count
     */
    public int count(Action action) {
        return counts[action.ordinal()];
    }

    /**
     * Disturbs the cluster's nodes until aborted.
     *
     * @param ctx the nemesis task's context, in the controller of a simulation with a cluster
     * @return never returns normally
     */
    public Void run(Context ctx) {
        SimControl control = dev.lockstep.sim.SimRunner.control(ctx);
        SimCluster cluster = control.cluster();
        RandomGenerator random = control.random();
        List<Action> choices = new ArrayList<>(actions);
        SimNode disturbed = null;
        try {
            while (true) {
                ctx.sleep(pause(random));
                List<SimNode> running = new ArrayList<>();
                for (SimNode node : cluster.nodes()) {
                    if (node.state() == SimNode.State.RUNNING) {
                        running.add(node);
                    }
                }
                if (running.isEmpty()) {
                    continue;
                }
                SimNode node = running.get(random.nextInt(running.size()));
                Action action = choices.get(random.nextInt(choices.size()));
                counts[action.ordinal()]++;
                switch (action) {
                    case CRASH, KILL, PAUSE -> {
                        disturbed = node;
                        if (action == Action.CRASH) {
                            node.crash();
                        } else if (action == Action.KILL) {
                            node.kill();
                        } else {
                            node.pause();
                        }
                        Duration length = pause(random);
                        events.accept("nemesis: " + action.name().toLowerCase(java.util.Locale.ROOT) + " node "
                                + node.id() + " for " + length.toMillis() + " ms");
                        ctx.sleep(length);
                        bringBack(node);
                        disturbed = null;
                    }
                    case CLOCK -> {
                        if (random.nextBoolean()) {
                            long millis = random.nextLong(-meanPause.toMillis(), meanPause.toMillis() + 1);
                            node.stepClock(Duration.ofMillis(millis));
                            events.accept("nemesis: node " + node.id() + "'s clock stepped " + millis + " ms");
                        } else {
                            long ppm = random.nextLong(-1000, 1001);
                            node.driftClock(ppm);
                            events.accept("nemesis: node " + node.id() + "'s clock drifts " + ppm + " ppm");
                        }
                    }
                }
            }
        } finally {
            if (disturbed != null) {
                try {
                    bringBack(disturbed);
                } catch (RuntimeException simulationOver) {
                    // The run is ending: nothing left to bring back.
                }
            }
        }
    }

    private void bringBack(SimNode node) {
        switch (node.state()) {
            case DOWN -> node.restart();
            case PAUSED -> node.resume();
            default -> {
            }
        }
        events.accept("nemesis: node " + node.id() + " back (lifetime " + node.lifetime() + ")");
    }

    private Duration pause(RandomGenerator random) {
        return Duration.ofNanos(1 + random.nextLong(2 * meanPause.toNanos()));
    }
}
