package dev.lockstep.demo;

import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import dev.lockstep.demo.kv.InjectedBug;
import dev.lockstep.demo.kv.KvServer;
import dev.lockstep.demo.kv.KvOptions;
import dev.lockstep.demo.kv.KvStore;
import dev.lockstep.sim.Checkpoint;
import dev.lockstep.sim.DecisionChain;
import dev.lockstep.sim.FaultPoints;
import dev.lockstep.sim.Outcome;
import dev.lockstep.sim.Priorities;
import dev.lockstep.sim.Recovered;
import dev.lockstep.sim.SimConfig;
import dev.lockstep.sim.SimControl;
import dev.lockstep.sim.SimRunner;
import dev.lockstep.sim.SimulationFailure;
import dev.lockstep.sim.StorageFaults;
import dev.lockstep.testing.Fault;
import dev.lockstep.testing.FaultConfig;
import dev.lockstep.testing.Nemesis;
import dev.lockstep.testing.NemesisStrategy;
import dev.lockstep.testing.SearchSettings;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

/**
 * One seed of the simulated demo: the key-value service and its load generator in runtime-sim, through
 * several lifetimes cut by crashes, with storage faults, partitions and resets as the {@link FaultConfig} says,
 * and the {@link Model}'s check of every read and of every key after every restart.
 *
 * <h2>A seed</h2>
 * Two simulated hosts: the server on worker 0 ({@code 127.0.0.1}), the clients on worker 1
 * ({@code 127.0.0.2}). Each <em>load lifetime</em> first checks every key against the model (after a restart,
 * with storage faults off: the check is the oracle, not the system under test), then runs the service, the
 * clients and the {@link Nemesis} for a seeded 0.2 to 2 simulated seconds. With {@link Fault#CRASH} the lifetime
 * ends in a crash in the middle of the load, and 1 to 4 lifetimes run; without it one lifetime runs and ends
 * quietly (load stopped, batches drained) before the power goes. A last lifetime checks every key once more.
 *
 * <p>Everything, including the harness's own choices, is drawn from the seed, so {@link Spec#line()} reruns a
 * seed exactly; {@link Result#digest()} is the audit digest at its end.
 */
public final class Scenario {
    /** The port the service listens on. */
    static final int PORT = 7000;
    /** Small segments, so that rolls (and the manifest) are exercised in every seed. */
    static final long SEGMENT_BYTES = 2048;

    /**
     * What to run: everything a seed's run depends on.
     *
     * @param seed the seed
     * @param faults the faults on
     * @param workload the load
     * @param bug the injected bug, or {@link InjectedBug#NONE}
     * @param nemesis the node nemesis of a replicated workload ({@link NemesisStrategy#UNIFORM}, the
     *                {@code NodeNemesis} of every action, unless a search strategy chose another); always
     *                {@code UNIFORM} for the key-value workloads, which have no nodes to disturb
     */
    public record Spec(long seed, FaultConfig faults, Workload workload, InjectedBug bug, NemesisStrategy nemesis,
                       SearchSettings search) {
        /**
         * Checks the fields.
         *
         * @throws IllegalArgumentException naming a nemesis other than {@code uniform} for a key-value workload
         */
        public Spec {
            Objects.requireNonNull(faults, "faults");
            Objects.requireNonNull(workload, "workload");
            Objects.requireNonNull(bug, "bug");
            Objects.requireNonNull(nemesis, "nemesis");
            Objects.requireNonNull(search, "search");
            if (!search.chain().segments().isEmpty() && !workload.replicated()) {
                // Its lifetimes are simulator runs of their own, from checkpoints: a chain counts one run's draws.
                throw new IllegalArgumentException("a decision chain (the guided strategy's) needs a replicated"
                        + " workload, whose seed is one simulator run; " + workload.cliName() + " runs lifetimes from"
                        + " checkpoints");
            }
            if (nemesis != NemesisStrategy.UNIFORM && !workload.replicated()) {
                throw new IllegalArgumentException("nemesis " + nemesis.cliName() + " disturbs a cluster's nodes:"
                        + " it needs workload=replicated or replicated-5, not " + workload.cliName());
            }
        }

        /** A seed with the uniform node nemesis. */
        public Spec(long seed, FaultConfig faults, Workload workload, InjectedBug bug) {
            this(seed, faults, workload, bug, NemesisStrategy.UNIFORM);
        }

        /** A seed with the simulator's default search settings. */
        public Spec(long seed, FaultConfig faults, Workload workload, InjectedBug bug, NemesisStrategy nemesis) {
            this(seed, faults, workload, bug, nemesis, SearchSettings.DEFAULT);
        }

        /**
         * The replay line: {@code ./lockstep replay} takes it back.
         *
         * @return e.g. {@code kv:seed=17:faults=crash+sync-errors:workload=mixed:bug=none}, then
         *     {@code :nemesis=NAME}, {@code :faultpoints=ENABLE/FIRE}, {@code :priorities=DEPTH/STEPS} and
         *     {@code :chain=FROM/SEED,...} where they are not the defaults
         */
        public String line() {
            return "kv:seed=" + seed + ":faults=" + faults + ":workload=" + workload.cliName() + ":bug="
                    + bug.cliName() + (nemesis == NemesisStrategy.UNIFORM ? "" : ":nemesis=" + nemesis.cliName())
                    // The simulator's texts join two numbers with ':', the separator of this line's fields.
                    + (search.faultPoints().equals(FaultPoints.DEFAULT) ? ""
                            : ":faultpoints=" + search.faultPoints().toString().replace(':', '/'))
                    + (search.priorities().on() ? ":priorities=" + search.priorities().toString().replace(':', '/')
                            : "")
                    + (search.chain().segments().isEmpty() ? ""
                            : ":chain=" + search.chain().toString().replace(':', '/'));
        }

        /**
         * Parses a replay line (a leading {@code replay:} or {@code ./lockstep replay} is ignored, and so is a
         * trailing {@code :digest=...}; {@link ReplayLine#parse} keeps it).
         *
         * @param line the line
         * @return the spec
         * @throws IllegalArgumentException naming what is wrong
         */
        public static Spec parse(String line) {
            return ReplayLine.parse(line).spec();
        }
    }

    /**
     * A replay line as {@code explore} prints it: the seed's {@link Spec} and the start of its audit digest.
     *
     * @param spec what to run
     * @param digest the first {@value #DIGEST_DIGITS} hex digits of the digest of the run that printed the line
     *               (or the whole digest), or null if the line carries none
     */
    public record ReplayLine(Spec spec, String digest) {
        /** The hex digits of the digest that a replay line carries: the start of the audit digest. */
        public static final int DIGEST_DIGITS = 16;
        /** The hex digits of a whole audit digest. */
        public static final int WHOLE_DIGEST_DIGITS = 64;

        /**
         * Checks the fields.
         *
         * @throws IllegalArgumentException naming a digest that is not {@value #DIGEST_DIGITS} or
         *                                  {@value #WHOLE_DIGEST_DIGITS} lower-case hex digits
         */
        public ReplayLine {
            Objects.requireNonNull(spec, "spec");
            if (digest != null && !isDigest(digest)) {
                // Compared with the replay's digest as a prefix: one hex digit matches one run in sixteen, and
                // would call any of them "an exact replay".
                throw new IllegalArgumentException("replay line digest '" + digest + "' is not the "
                        + DIGEST_DIGITS + " lower-case hex digits a failed seed prints");
            }
        }

        private static boolean isDigest(String text) {
            return isHex(text, DIGEST_DIGITS) || isHex(text, WHOLE_DIGEST_DIGITS);
        }

        /** Whether {@code text} is {@code digits} lower-case hex digits. */
        static boolean isHex(String text, int digits) {
            if (text.length() != digits) {
                return false;
            }
            for (int i = 0; i < digits; i++) {
                char c = text.charAt(i);
                if ((c < '0' || c > '9') && (c < 'a' || c > 'f')) {
                    return false;
                }
            }
            return true;
        }

        /**
         * Whether a run's digest is the one this line carries.
         *
         * @param runDigest the whole audit digest of a run
         * @return true if this line carries a digest and the run's starts with it
         */
        public boolean sameRun(String runDigest) {
            return digest != null && runDigest.startsWith(digest);
        }

        /**
         * The line as {@code explore} prints it.
         *
         * @return the spec's {@link Spec#line()}, then {@code :digest=} and the digest if there is one
         */
        public String line() {
            return spec.line() + (digest == null ? "" : ":digest=" + digest);
        }

        /**
         * Parses a replay line: {@code kv:} and then {@code key=value} fields joined by {@code :}, each key at most
         * once ({@code seed}, which is needed, {@code faults}, {@code workload}, {@code bug}, {@code nemesis},
         * {@code faultpoints}, {@code priorities}, {@code chain}, {@code digest}); a
         * leading {@code replay:} or {@code ./lockstep replay}, as a failure prints it, is ignored.
         *
         * @param line the line
         * @return the line's spec and digest
         * @throws IllegalArgumentException naming what is wrong: no {@code kv:}, an empty, unknown or repeated
         *                                  field, a field with no {@code =}, a space inside the line, a seed that
         *                                  is not decimal ASCII digits or does not fit 64 bits, a digest that is
         *                                  not {@value #DIGEST_DIGITS} lower-case hex digits, an unknown fault,
         *                                  workload or bug, or a bug of the other workload
         */
        public static ReplayLine parse(String line) {
            String text = line.strip();
            // As printed: "replay: ./lockstep replay kv:...", or any tail of it. Until none is left, so that the
            // command after "replay:" is taken off too.
            boolean stripped = true;
            while (stripped) {
                stripped = false;
                for (String prefix : new String[] {"./lockstep replay", "lockstep replay", "replay:", "replay"}) {
                    if (text.startsWith(prefix)) {
                        text = text.substring(prefix.length()).strip();
                        stripped = true;
                    }
                }
            }
            if (!text.startsWith("kv:")) {
                throw new IllegalArgumentException("a replay line starts with 'kv:', was '" + line + "'");
            }
            for (int i = 0; i < text.length(); i++) {
                if (Character.isWhitespace(text.charAt(i)) || Character.isSpaceChar(text.charAt(i))) {
                    throw new IllegalArgumentException("replay line '" + text + "' has a space in it, at "
                            + text.substring(i).strip() + "; a replay line is one word");
                }
            }
            java.util.Map<String, String> fields = new java.util.LinkedHashMap<>();
            // The limit -1 keeps empty fields, so that a trailing or doubled ':' is refused, not dropped.
            for (String part : text.substring(3).split(":", -1)) {
                int eq = part.indexOf('=');
                if (part.isEmpty()) {
                    throw new IllegalArgumentException("replay line '" + text + "' has an empty field");
                }
                if (eq < 0) {
                    throw new IllegalArgumentException("replay line field '" + part + "' has no '='");
                }
                String key = part.substring(0, eq);
                if (!List.of("seed", "faults", "workload", "bug", "nemesis", "faultpoints", "priorities", "chain",
                        "digest").contains(key)) {
                    throw new IllegalArgumentException("unknown replay line field '" + key + "'");
                }
                if (fields.put(key, part.substring(eq + 1)) != null) {
                    // Which one would win is a guess: the line was edited or pasted twice.
                    throw new IllegalArgumentException("replay line '" + text + "' has " + key + "= twice");
                }
            }
            String seedText = fields.get("seed");
            if (seedText == null) {
                throw new IllegalArgumentException("replay line has no seed: '" + line + "'");
            }
            long seed;
            try {
                seed = Decimal.parseLong(seedText);
            } catch (NumberFormatException notANumber) {
                throw new IllegalArgumentException("replay line seed '" + seedText + "' is not a number: "
                        + notANumber.getMessage());
            }
            FaultConfig faults = fields.containsKey("faults") ? FaultConfig.parse(fields.get("faults"))
                    : FaultConfig.NONE;
            Workload workload = fields.containsKey("workload") ? Workload.parse(fields.get("workload"))
                    : Workload.MIXED;
            InjectedBug bug = fields.containsKey("bug") ? InjectedBug.parse(fields.get("bug")) : InjectedBug.NONE;
            // As explore refuses them: the other workload's bug is never planted, so the run would pass untried.
            if (bug.replication() && !workload.replicated()) {
                throw new IllegalArgumentException("replay line bug=" + bug.cliName() + " is a Raft bug: it"
                        + " needs workload=replicated or replicated-5");
            }
            if (!bug.replication() && bug != InjectedBug.NONE && workload.replicated()) {
                throw new IllegalArgumentException("replay line bug=" + bug.cliName() + " is in the key-value store,"
                        + " which workload=replicated does not run");
            }
            NemesisStrategy nemesis = fields.containsKey("nemesis") ? NemesisStrategy.parse(fields.get("nemesis"))
                    : NemesisStrategy.UNIFORM;
            FaultPoints points = fields.containsKey("faultpoints")
                    ? FaultPoints.parse(slashed("faultpoints", fields.get("faultpoints"))) : FaultPoints.DEFAULT;
            Priorities priorities = fields.containsKey("priorities")
                    ? Priorities.parse(slashed("priorities", fields.get("priorities"))) : Priorities.OFF;
            DecisionChain chain = fields.containsKey("chain") ? chainOf(fields.get("chain")) : DecisionChain.NONE;
            return new ReplayLine(new Spec(seed, faults, workload, bug, nemesis, new SearchSettings(points, priorities,
                    chain)), fields.get("digest"));
        }

        /** A {@code chain=} field: {@code fromDraw/seed} pairs joined by commas, as the simulator's {@code :}. */
        private static DecisionChain chainOf(String value) {
            if (value.indexOf(':') >= 0) {
                throw new IllegalArgumentException("replay line chain='" + value + "' is fromDraw/seed pairs joined"
                        + " by ','");
            }
            return DecisionChain.parse(value.replace('/', ':'));
        }

        /** A field's {@code A/B} as the simulator's {@code A:B}; a value with a ':' of its own is refused. */
        private static String slashed(String key, String value) {
            if (value.indexOf(':') >= 0 || value.indexOf('/') < 0) {
                throw new IllegalArgumentException("replay line " + key + "='" + value + "' is two numbers joined"
                        + " by '/'");
            }
            return value.replace('/', ':');
        }
    }

    /**
     * What one seed did.
     *
     * @param spec what ran
     * @param failure null if the seed passed, else what went wrong
     * @param trace the last events before the end (empty unless traced)
     * @param notable the last notable events (faults, failures, restarts) before the end (empty unless traced)
     * @param simulatedNanos simulated time covered, over every lifetime
     * @param lifetimes runs of the simulator (one per crash, plus the final check)
     * @param crashes crashes
     * @param partitions partitions made by the nemesis
     * @param resets connection resets made by the nemesis
     * @param storageFailures storage failures the service hit (store poisoned, open failed)
     * @param acknowledgedWrites writes acknowledged to clients
     * @param digest the audit digest at the end of the last run
     * @param schedulerSteps the simulator's scheduler steps, over every lifetime ({@code SimStats.schedulerSteps}):
     *                       what the seed cost, about
     */
    public record Result(Spec spec, String failure, List<String> trace, List<String> notable, long simulatedNanos, int lifetimes,
                         int crashes, int partitions, int resets, long storageFailures, long acknowledgedWrites,
                         String digest, long schedulerSteps) {
        /**
         * Whether the seed passed.
         *
         * @return true if nothing failed
         */
        public boolean passed() {
            return failure == null;
        }

        /**
         * Every fault injected.
         *
         * @return crashes, partitions, resets and storage failures
         */
        public long faultsInjected() {
            return crashes + partitions + resets + storageFailures;
        }
    }

    private final Spec spec;
    private final Trace trace;
    private final Model model;
    private final KvOptions options;
    private final LoadClient.Meter meter = new LoadClient.Meter(false);
    private final List<String> failures = new ArrayList<>();
    private int crashes;
    private int partitions;
    private int resets;
    private long storageFailures;

    private Scenario(Spec spec, int traceLines) {
        this.spec = spec;
        this.trace = new Trace(traceLines);
        Workload workload = spec.workload();
        this.model = new Model(workload.clients, workload.keysPerClient, workload.valueBytes);
        this.options = KvOptions.defaults("kv").withSegmentBytes(SEGMENT_BYTES).withBug(spec.bug());
    }

    /**
     * Runs one seed.
     *
     * @param spec what to run
     * @param traceLines how many of the last events to keep (0 for none: faster)
     * @return what happened
     */
    public static Result run(Spec spec, int traceLines) {
        if (spec.workload().replicated()) {
            return RaftScenario.run(spec, traceLines);
        }
        return new Scenario(spec, traceLines).run();
    }

    /** The simulator configuration of a seed's first run. */
    static SimConfig config(Spec spec) {
        if (spec.workload().replicated()) {
            return RaftScenario.config(spec);
        }
        return spec.faults().applyTo(spec.search().applyTo(SimConfig.builder()).seed(spec.seed()).workers(2)
                .ringEntries(256)
                .timeLimit(Duration.ofHours(1))).build();
    }

    private Result run() {
        SplittableRandom plan = new SplittableRandom(spec.seed() * 0x9E3779B97F4A7C15L + 7);
        int loadLifetimes = spec.faults().has(Fault.CRASH) ? 1 + plan.nextInt(4) : 1;
        Checkpoint checkpoint = null;
        long simulated = 0;
        long steps = 0;
        int runs = 0;
        String digest = "";
        for (int life = 0; life <= loadLifetimes && failures.isEmpty(); life++) {
            int lifetime = life;
            boolean last = life == loadLifetimes;
            SimRunner runner = checkpoint == null ? SimRunner.of(config(spec)) : SimRunner.from(checkpoint);
            Recovered<Void> recovered;
            try {
                recovered = runner.startAndRecover(ctx -> lifetime(ctx, lifetime, last));
            } catch (SimulationFailure failure) {
                failures.add(failure.getMessage().lines().findFirst().orElse("simulation failed"));
                trace.notable("simulation failed: " + failure.getMessage().lines().findFirst().orElse(""));
                runs++;
                break;
            } catch (RuntimeException failure) {
                failures.add("the run failed: " + failure);
                runs++;
                break;
            } finally {
                try {
                    simulated += runner.stats().simulatedNanos();
                    steps += runner.stats().schedulerSteps();
                    digest = runner.digest();
                    SweepCpu.addSimulator(runner.simulatorCpuNanos());
                } catch (IllegalStateException notRun) {
                    // Nothing ran.
                }
            }
            runs++;
            checkpoint = recovered.checkpoint();
            Outcome<Void> outcome = recovered.outcome();
            if (outcome instanceof Outcome.Failed<Void> failed) {
                failures.add("lifetime " + lifetime + " failed: " + failed.failure());
                trace.notable("lifetime failed: " + failed.failure());
            } else if (outcome instanceof Outcome.Crashed<Void> crashed) {
                crashes++;
                Instant at = checkpoint.crashedAt();
                trace.clock(() -> at, null);
                trace.notable("CRASH #" + crashes + " in the middle of the load (" + crashed.reason() + "; crash policy "
                        + checkpoint.config().crashPolicy() + ")");
            } else if (!last) {
                Instant at = checkpoint.crashedAt();
                trace.clock(() -> at, null);
                trace.notable("power cut after the load stopped (crash policy " + checkpoint.config().crashPolicy()
                        + ")");
            }
        }
        failures.addAll(model.violations());
        String failure = failures.isEmpty() ? null : String.join("\n", failures.subList(0, Math.min(5,
                failures.size())));
        return new Result(spec, failure, trace.last(), trace.notable(), simulated, runs, crashes, partitions, resets,
                storageFailures, model.ackedPuts() + model.ackedDeletes(), digest, steps);
    }

    private Void lifetime(Context ctx, int lifetime, boolean last) {
        SimControl control = SimRunner.control(ctx);
        trace.clock(control::now, control.now());
        RandomGenerator random = control.random();
        if (lifetime > 0) {
            verify(ctx, control, "after restart #" + lifetime);
            if (!model.violations().isEmpty() || !failures.isEmpty() || last) {
                return null;
            }
        }
        FaultConfig faults = spec.faults();
        control.storageFaults(faults.storageFaults());
        control.crashPolicy(faults.crashPolicy(random));
        InetSocketAddress address = new InetSocketAddress(control.host(0), PORT);
        Listener listener = ctx.bind(address).await();
        KvServer server = new KvServer(options, line -> {
            if (line.startsWith("store poisoned") || line.startsWith("store open failed")) {
                storageFailures++;
            }
            trace.notable("server: " + line);
        });
        ctx.child("server").spawnOn(0, c -> server.serve(c, listener));
        List<Handle<Void>> load = new ArrayList<>();
        Workload workload = spec.workload();
        Trace requestTrace = trace.keeps() ? trace : null; // a line per request only when a replay prints them
        for (int i = 0; i < workload.clients; i++) {
            int client = i;
            load.add(ctx.child("client" + i).spawnOn(1, c -> new LoadClient(c, address, model.client(client),
                    workload.shape, random, meter, () -> nanos(c.now()), requestTrace).run()));
        }
        Nemesis nemesis = new Nemesis(faults, List.of(control.host(0), control.host(1)), Duration.ofMillis(300),
                trace::notable);
        Handle<Void> nemesisTask = nemesis.active() ? ctx.child("nemesis").spawnOn(0, nemesis::run) : null;
        Duration length = Duration.ofMillis(200 + random.nextInt(1800));
        try {
            ctx.sleep(length);
        } finally {
            partitions += nemesis.partitions();
            resets += nemesis.resets();
        }
        if (faults.has(Fault.CRASH)) {
            throw control.crash();
        }
        // No crash faults: stop the load, let the batches in flight finish, then the power goes.
        for (Handle<Void> client : load) {
            client.abort();
        }
        if (nemesisTask != null) {
            nemesisTask.abort();
        }
        ctx.sleep(Duration.ofMillis(100));
        return null;
    }

    private void verify(Context ctx, SimControl control, String where) {
        control.storageFaults(StorageFaults.NONE);
        KvStore store;
        try {
            store = KvStore.open(ctx, options);
        } catch (RuntimeException failed) {
            failures.add(where + ": recovery failed: " + failed);
            trace.notable("restart: recovery FAILED: " + failed);
            return;
        }
        trace.notable("restart: recovered " + store.recovery());
        try (store) {
            for (int c = 0; c < model.clients(); c++) {
                Model.Client client = model.client(c);
                for (int k = 0; k < client.keys(); k++) {
                    byte[] value;
                    try {
                        value = store.get(client.key(k));
                    } catch (RuntimeException failed) {
                        failures.add(where + ": reading key " + new String(client.key(k),
                                java.nio.charset.StandardCharsets.UTF_8) + " failed: " + failed);
                        return;
                    }
                    if (client.check(k, value, where) == Model.Verdict.VIOLATION) {
                        trace.notable("check: VIOLATION " + model.violations().getLast());
                    }
                    client.rebase(k, value);
                }
            }
        }
        trace.notable("check " + where + ": " + (model.violations().isEmpty() ? "every acknowledged write present"
                : model.violations().size() + " violation(s)"));
    }

    private static long nanos(Instant instant) {
        return instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
    }
}
