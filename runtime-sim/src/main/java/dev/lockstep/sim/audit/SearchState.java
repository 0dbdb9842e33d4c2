package dev.lockstep.sim.audit;

import dev.lockstep.sim.Coverage;
import dev.lockstep.sim.FaultPoints;
import dev.lockstep.sim.SimRunner;
import dev.lockstep.sim.SimSearchHooks;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One run's fault points, {@code sometimes} assertions and search signals: what {@link SimSearchHooks} answers
 * with and {@link SimRunner#coverage()} reports. See {@link FaultPoints} and {@link Coverage}.
 *
 * <p>Confined to the simulator's thread: its calls come from the run's fibers and its auditor, which all run there
 * one at a time. Maps are only looked up and added to while the run goes; the report sorts them, so no iteration
 * order reaches the run.
 */
public final class SearchState {
    /** Event kinds that disturb a run; their combination in a run is one signal. */
    private static final Set<String> DISTURBANCES = Set.of("sim.crash", "fs.crash", "fs.powerOff",
            "fs.processDied", "net.partition", "net.resetAll", "net.reset", "node.crash", "node.kill",
            "node.pause", "node.drift", "node.step");

    private final Generator generator;
    private final Auditor auditor;
    private final FaultPoints settings;
    private final Map<String, Point> points = new HashMap<>();
    private final Map<String, long[]> sometimes = new HashMap<>();
    /** Each signal with the draw count when it was first reached. */
    private final Map<String, Long> signals = new HashMap<>();
    private final TreeSet<String> disturbances = new TreeSet<>();
    /** Every event kind recorded by name so far. */
    private final java.util.HashSet<String> kindsSeen = new java.util.HashSet<>();
    /** The last event by name of each node, by node id: for lifecycle transitions. */
    private final Map<Integer, String> lastNodeEvent = new HashMap<>();
    private long dropped;

    /** One fault point's state in this run. */
    private static final class Point {
        final boolean enabled;
        long reached;
        long fired;

        Point(boolean enabled) {
            this.enabled = enabled;
        }
    }

    public SearchState(Generator generator, Auditor auditor, FaultPoints settings) {
        this.generator = generator;
        this.auditor = auditor;
        this.settings = settings;
    }

    /** See {@link dev.lockstep.Search#faultPoint}: draws only here, when a point is reached. */
    public boolean faultPoint(String name) {
        Point point = points.get(name);
        if (point == null) {
            if (points.size() >= Coverage.MAX_ENTRIES) {
                dropped++;
                return false; // past the bound a new point never fires, so what the run remembers stays bounded
            }
            point = new Point(!settings.off() && generator.chance(Site.FAULT_POINT_ENABLED,
                    settings.enableProbability()));
            points.put(name, point);
        }
        point.reached++;
        boolean fired = point.enabled && generator.chance(Site.FAULT_POINT_FIRED, settings.fireProbability());
        if (fired) {
            point.fired++;
            signal("faultPoint:" + name);
        }
        auditor.record("search.faultPoint", Auditor.utf8(name), Auditor.u32(fired ? 1 : 0));
        return fired;
    }

    /** See {@link dev.lockstep.Search#sometimes}. */
    public void sometimes(boolean condition, String label) {
        long[] counts = sometimes.get(label);
        if (counts == null) {
            if (sometimes.size() >= Coverage.MAX_ENTRIES) {
                dropped++;
                return;
            }
            counts = new long[2];
            sometimes.put(label, counts);
        }
        counts[0]++;
        if (condition) {
            counts[1]++;
            signal("sometimes:" + label);
        }
    }

    /** See {@link dev.lockstep.Search#reached}. */
    public void reached(String label, long value) {
        signal("reached:" + label + "=" + value);
    }

    /** An event the auditor recorded by name: its kind, a node's transition, the run's disturbances. */
    public void onEvent(String kind, byte[][] fields) {
        if (!kindsSeen.add(kind)) {
            if (!kind.startsWith("node.")) {
                return; // a kind seen before says nothing new, and this runs for every event recorded by name
            }
        } else {
            signal("kind:" + kind);
        }
        if (DISTURBANCES.contains(kind) && disturbances.add(kind)) {
            signal("disturbances:" + String.join("+", disturbances));
        }
        if (kind.startsWith("node.") && fields.length > 0 && fields[0].length > 0) {
            int node = (int) unsigned(fields[0]);
            String previous = lastNodeEvent.put(node, kind);
            signal("node:" + (previous == null ? "none" : previous) + ">" + kind);
        }
    }

    private static long unsigned(byte[] bigEndian) {
        long value = 0;
        for (byte b : bigEndian) {
            value = (value << 8) | (b & 0xff);
        }
        return value;
    }

    private void signal(String signal) {
        if (signals.containsKey(signal)) {
            return;
        }
        if (signals.size() >= Coverage.MAX_ENTRIES) {
            dropped++;
            return;
        }
        signals.put(signal, generator.draws());
    }

    public Coverage coverage() {
        TreeMap<String, Coverage.FaultPointCount> pointCounts = new TreeMap<>();
        points.forEach((name, point) -> pointCounts.put(name,
                new Coverage.FaultPointCount(point.enabled, point.reached, point.fired)));
        TreeMap<String, Coverage.SometimesCount> labels = new TreeMap<>();
        sometimes.forEach((label, counts) -> labels.put(label, new Coverage.SometimesCount(counts[0], counts[1])));
        return new Coverage(pointCounts, labels, new TreeMap<>(signals), dropped);
    }
}
