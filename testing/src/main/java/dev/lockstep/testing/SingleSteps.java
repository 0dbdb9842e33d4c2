package dev.lockstep.testing;

import dev.lockstep.Context;
import dev.lockstep.sim.SimCluster;
import dev.lockstep.sim.SimControl;
import dev.lockstep.sim.SimNode;
import dev.lockstep.testing.ClusterNemesis.Disturbance;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;

/**
 * The single-step disturbances of {@link ClusterNemesis} that take down or cut off their nodes at once and hold them
 * for the disturbance's while ({@link CrashSequences} has those that crash nodes in a sequence):
 * {@link Disturbance#CRASH}, {@link Disturbance#KILL}, {@link Disturbance#PAUSE}, {@link Disturbance#ISOLATE},
 * {@link Disturbance#SPLIT}, {@link Disturbance#POWER_LOSS}, {@link Disturbance#POWER_LOSS_ALL},
 * {@link Disturbance#LONG_ISOLATE}, {@link Disturbance#CRASH_AT_SYNC} and {@link Disturbance#CRASH_AFTER_ANSWER}; each
 * says what it does. Each leaves what it took down in {@code down} and what it cut in {@code split[0]}, for the
 * nemesis to bring back, and draws only from the generator it is given, in the order the nemesis always drew. Not
 * thread-safe: the nemesis's task calls it on the simulator's one thread.
 */
final class SingleSteps {
    private final Duration meanPause;
    private final Consumer<String> events;

    SingleSteps(Duration meanPause, Consumer<String> events) {
        this.meanPause = meanPause;
        this.events = events;
    }

    /** Does {@code disturbance}, one of the class doc's, to {@code target} (and the nodes it draws), for its while. */
    void disturb(Context ctx, SimControl control, SimCluster cluster, Disturbance disturbance,
            List<SimNode> running, SimNode target, Duration length, RandomGenerator random, List<SimNode> down,
            NetworkSplit[] split) {
        switch (disturbance) {
            case CRASH, KILL, PAUSE -> {
                down.add(target);
                if (disturbance == Disturbance.CRASH) {
                    target.crash();
                } else if (disturbance == Disturbance.KILL) {
                    target.kill();
                } else {
                    target.pause();
                }
                events.accept(disturbance.name().toLowerCase(Locale.ROOT) + " node " + target.id() + " for "
                        + length.toMillis() + " ms");
                ctx.sleep(length);
            }
            case ISOLATE, SPLIT -> {
                List<SimNode> nodes = cluster.nodes();
                if (disturbance == Disturbance.ISOLATE || nodes.size() < 3) {
                    split[0] = NetworkSplit.isolate(control, target, nodes);
                } else {
                    List<SimNode> minority = new ArrayList<>(List.of(target));
                    List<SimNode> rest = new ArrayList<>(nodes);
                    rest.remove(target);
                    int size = 1 + random.nextInt((nodes.size() - 1) / 2);
                    while (minority.size() < size) {
                        minority.add(rest.remove(random.nextInt(rest.size())));
                    }
                    split[0] = NetworkSplit.between(control, minority, rest);
                }
                events.accept((disturbance == Disturbance.ISOLATE ? "isolate " : "split ") + split[0] + " for "
                        + length.toMillis() + " ms");
                ctx.sleep(length);
            }
            case POWER_LOSS -> {
                List<SimNode> victims = CrashSequences.majorityWith(cluster, running, target, random);
                for (SimNode victim : victims) {
                    down.add(victim);
                    victim.crash();
                }
                events.accept("power loss of nodes " + NetworkSplit.ids(victims) + " for " + length.toMillis()
                        + " ms");
                ctx.sleep(length);
            }
            case POWER_LOSS_ALL -> {
                for (SimNode victim : running) {
                    down.add(victim);
                    victim.crash();
                }
                events.accept("power loss of every node " + NetworkSplit.ids(running) + " for " + length.toMillis()
                        + " ms");
                ctx.sleep(length);
            }
            case LONG_ISOLATE -> {
                Duration longer = meanPause.multipliedBy(3).plus(Duration.ofNanos(
                        random.nextLong(2 * meanPause.toNanos() + 1)));
                split[0] = NetworkSplit.isolate(control, target, cluster.nodes());
                events.accept("isolate " + split[0] + " for " + longer.toMillis() + " ms");
                ctx.sleep(longer);
            }
            case CRASH_AT_SYNC, CRASH_AFTER_ANSWER -> {
                SimNode.IoBoundary boundary = disturbance == Disturbance.CRASH_AFTER_ANSWER
                        ? SimNode.IoBoundary.ANSWERED : random.nextBoolean()
                        ? SimNode.IoBoundary.SYNC_IN_FLIGHT : SimNode.IoBoundary.SYNC_DONE;
                down.add(target);
                target.crashAt(boundary);
                ctx.sleep(length);
                if (target.state() == SimNode.State.DOWN) {
                    // A fail-stop took it down before the boundary came: no crash of the nemesis's to report.
                    events.accept(target.failure() != null ? "node " + target.id() + " fail-stopped before its "
                            + boundary : "crash node " + target.id() + " at " + boundary + "; down " + length.toMillis()
                            + " ms");
                    ctx.sleep(length);
                } else {
                    target.disarm();
                    events.accept("no " + boundary + " of node " + target.id() + " in " + length.toMillis()
                            + " ms");
                }
            }
            default -> throw new IllegalArgumentException(disturbance + " is not a single step");
        }
    }
}
