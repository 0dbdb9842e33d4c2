package dev.lockstep.sim;

import dev.lockstep.engine.task.Fiber;
import dev.lockstep.sim.os.SimRing;
import java.util.ArrayList;
import java.util.List;

/**
 * What a {@link Simulation} still holds or waits on: at its end, the resources it holds beyond those it started
 * with (the leak report, and every leak for {@link SimRunner#leaks()}); in a stall, the fibers still alive and the
 * requests in flight that may never complete. Each names the source line that created the resource or where the
 * fiber waits. Simulator thread only.
 */
final class RunLeaks {
    /** How many leaked resources a failure message names; {@link SimRunner#leaks()} has them all. */
    private static final int LEAKS_LISTED = 8;
    private final Simulation run;
    /** What the kernel held before the run began: a leak is whatever the run holds at its end beyond this. */
    private final List<String> heldAtStart;
    /** What the run held at its end beyond {@link #heldAtStart}; empty until it ended. */
    private List<String> leaks = List.of();

    /** Takes what the run's kernel holds now as what the run started with. */
    RunLeaks(Simulation run) {
        this.run = run;
        this.heldAtStart = run.kernel.heldResources();
    }

    /** What the run held at its end beyond what it started with; empty until it ended. */
    List<String> all() {
        return List.copyOf(leaks);
    }

    /**
     * The resources the run holds at its end and did not start with (fds, rings, ring buffers, live fibers), each
     * named with the source line that created it; null if none. However the run ended — the root finished, the
     * machine crashed, the run failed — its tasks have had their chance to close what they opened. Frees the
     * native memory the leaked resources held.
     */
    String report() {
        List<String> held = new ArrayList<>(run.kernel.heldResources());
        leaks = held;
        held.removeAll(heldAtStart);
        run.kernel.freeLeakedMemory();
        SimCluster cluster = run.clusterIfMade();
        if (cluster != null) {
            held.addAll(cluster.leftOver());
        }
        for (Fiber live : run.engine().fibers()) {
            Thread fiber = live.thread();
            if (fiber != null && fiber.getState() != Thread.State.TERMINATED) {
                held.add("fiber '" + fiber.getName() + "', still running"
                        + LeakWatch.where(fiber.getStackTrace()));
            }
        }
        if (held.isEmpty()) {
            return null;
        }
        // The first few name the culprit; a store that forgot to close thirty segments needs no thirty lines.
        String listed = String.join("; ", held.subList(0, Math.min(held.size(), LEAKS_LISTED)));
        if (held.size() > LEAKS_LISTED) {
            listed += "; and " + (held.size() - LEAKS_LISTED) + " more (SimRunner.leaks() lists every one)";
        }
        return "resource leak: the run ended holding " + held.size() + " resource" + (held.size() == 1 ? "" : "s")
                + " it did not start with: " + listed;
    }

    /** Requests in flight that wait for something that may never come (a receive, an accept), by ring. */
    String describeRings() {
        StringBuilder rings = new StringBuilder();
        for (SimRing ring : run.kernel.rings()) {
            List<String> inFlight = ring.describeInFlight();
            if (!inFlight.isEmpty()) {
                rings.append(rings.isEmpty() ? "; in flight: " : "; ").append("ring ").append(ring.id()).append(' ')
                        .append(inFlight);
            }
        }
        return rings.toString();
    }

    /** Every fiber still alive and where it waits, sorted by name. */
    String describeWaitingFibers() {
        List<String> waiting = new ArrayList<>();
        List<Fiber> fibers = new ArrayList<>(run.engine().fibers());
        SimCluster cluster = run.clusterIfMade();
        if (cluster != null) {
            fibers.addAll(cluster.fibers());
        }
        for (Fiber live : fibers) {
            Thread fiber = live.thread();
            if (fiber != null && fiber.getState() != Thread.State.TERMINATED) {
                String at = LeakWatch.where(fiber.getStackTrace());
                waiting.add(fiber.getName().replaceFirst("^lockstep-(\\d+)-", "worker $1 '") + "'"
                        + (at.isEmpty() ? "" : at.substring(1)));
            }
        }
        waiting.sort(null);
        return String.join("; ", waiting);
    }
}
