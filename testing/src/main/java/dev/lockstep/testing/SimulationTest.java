package dev.lockstep.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.TestTemplate;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test method in the simulator under many seeds: one test invocation per seed, named {@code seed N}, and
 * optionally once more on runtime-uring.
 *
 * <p>The method runs <em>inside</em> the runtime, on a fiber, as the root task. It may take any of these
 * parameters: {@link dev.lockstep.Context} (the root task's context), {@link dev.lockstep.sim.SimControl}
 * (partitions, faults, crashes; simulator only), {@link java.util.random.RandomGenerator} (seeded randomness:
 * the simulator's generator, or a generator seeded with the seed on runtime-uring) and {@link SimulationInfo}
 * (the seed, the lifetime, the runtime). A failure fails that seed's invocation with a
 * {@link SimulationTestFailure} that names the seed, the faults and the replay line
 * ({@link Simulations#replay}, crashes included); {@link Seed} pins a method to the failing seed. The seeds run
 * on every processor by default, each with an instance of the test class of its own: see {@link #threads()}.
 *
 * <pre>{@code
 * @SimulationTest(seeds = 100, faults = "sync-errors+crash", crashes = 2)
 * void acknowledgedWritesSurvive(Context ctx, SimulationInfo run) { ... }
 * }</pre>
 *
 * <p>The seeds and the first seed are the annotation's unless the run sets {@code lockstep.seeds} and
 * {@code lockstep.firstSeed} (system properties or JUnit configuration parameters); {@code lockstep.strategy}
 * picks how runs are chosen ({@link SearchStrategy}: {@code combined}, the default, which chooses each seed's
 * fault-point probabilities, priorities and, for a method with {@link #clusterNemesis()}, nemesis; {@code random},
 * {@code pct}, {@code faultpoints} or {@code guided}, whose runs go one at a time and are shown as
 * {@code guided run N}), and
 * {@code lockstep.stopAtFirstFailure=true} skips the seeds after the first failure:
 * {@code mvn test -Dtest=MyTest#method -Dlockstep.seeds=100000 -Dlockstep.strategy=guided
 * -Dlockstep.stopAtFirstFailure=true}. {@code lockstep.shard=K/N} runs one shard of the sweep,
 * {@code lockstep.report=DIR} writes a report of it with each failure's replay text, and
 * {@code lockstep.replay=TEXT} reruns exactly the run a failure printed: see {@code SweepSettings} in the source,
 * and the README.
 */
@Documented
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@TestTemplate
@ExtendWith(SimulationExtension.class)
public @interface SimulationTest {
    /**
     * How many seeds; {@code -Dlockstep.seeds=N} overrides it for a run.
     *
     * @return at least 1
     */
    int seeds() default 100;

    /**
     * The first seed; seeds are consecutive from it. {@code -Dlockstep.firstSeed=N} overrides it for a run.
     *
     * @return the first seed
     */
    long firstSeed() default 1;

    /**
     * Simulated workers (each its own host, {@code 127.0.0.(i+1)}).
     *
     * @return at least 1
     */
    int workers() default 1;

    /**
     * The faults: a {@link FaultConfig#parse profile} ({@code none}, {@code all}, kinds joined by {@code +}), or
     * {@code swarm} for a random subset per seed.
     *
     * @return the profile
     */
    String faults() default "none";

    /**
     * Crashes per seed: the method runs {@code crashes + 1} times per seed, each run but the last cut by a crash
     * at a seeded time within {@link #crashWithinMillis()}; see {@link Simulations}.
     *
     * @return zero or more
     */
    int crashes() default 0;

    /**
     * How far into a lifetime its crash may come, in simulated milliseconds.
     *
     * @return positive
     */
    long crashWithinMillis() default 1000;

    /**
     * The simulated process's open-file limit, as {@code ulimit -n} sets it: past it, an open, a lock, a dial or an
     * accept fails with its typed error naming {@code EMFILE} (a blob's open a
     * {@link dev.lockstep.StorageIoException}, a dial or an accept a {@link dev.lockstep.ConnectionFailedException}),
     * as on Linux; an accept at the limit leaves its
     * connection queued. For a method that must keep working when the process runs out of descriptors (a server
     * flooded with connections). It counts the descriptors the method's run opens, from 3 (0 to 2 are taken);
     * the simulated rings take none, where on Linux each worker's ring and its eventfd take two, and a JVM holds
     * a few dozen of its own. Simulator only: the runtime-uring run ({@link #uring()}) runs under the process's
     * own limit. The replay line a failure prints carries it.
     *
     * @return above 3 and at most {@value dev.lockstep.sim.SimConfig#MAX_OPEN_FILE_LIMIT}, the default, which no
     *     run meets
     */
    int openFileLimit() default dev.lockstep.sim.SimConfig.MAX_OPEN_FILE_LIMIT;

    /**
     * Also run the method once on runtime-uring, with a fresh temporary storage directory (a method that takes
     * {@link dev.lockstep.sim.SimControl} cannot).
     *
     * @return whether to
     */
    boolean uring() default false;

    /**
     * The method disturbs the nodes of a {@link dev.lockstep.sim.SimCluster} with the nemesis it asks
     * {@link NemesisStrategy#forThisRun} for, so a search strategy that chooses nemeses ({@code combined}, the
     * default) chooses one per seed, written in the seed's replay text ({@code nemesis=NAME}). Without it the
     * strategy chooses none and {@code forThisRun} answers with the method's own.
     *
     * @return whether to
     */
    boolean clusterNemesis() default false;

    /**
     * Run every seed twice and fail if the two runs' audit digests differ: the method leaks nondeterminism (a
     * {@code HashMap} of identity-hashed keys, wall-clock time, an unseeded random). The second run gets a new
     * instance of the test class (its constructor and {@code @BeforeEach} methods run again), so what the test keeps
     * in fields across a seed's lifetimes starts as it did the first time.
     *
     * @return whether to
     */
    boolean checkDeterminism() default false;

    /**
     * Fail a seed whose run ends — cleanly, by a crash or by a failure — holding file descriptors, ring buffers or
     * fibers it did not start with: a blob the method forgot to close, an accept that beat its cancel, a task still
     * running. The failure names each resource and the source line that created it ({@link
     * dev.lockstep.sim.SimConfig#failOnLeaks()}). On by default; turn it off only for a method that abandons
     * resources on purpose (runtime-uring closes what a run left when {@code start} returns, so such a method is
     * not wrong there, only untidy). The replay line a failure prints carries the setting.
     *
     * @return whether to
     */
    boolean checkLeaks() default true;

    /**
     * How many of the sweep's runs go at once, each on a thread of its own with an instance of the test class of
     * its own. {@code 0}, the default: the JUnit configuration parameter {@value SimulationExtension#THREADS} if it
     * is set, else one per processor ({@link Runtime#availableProcessors()}). {@code 1}: one run at a time on
     * JUnit's thread, on JUnit's instance, as before sweeps ran on several threads. A {@link Seed pinned} seed
     * always runs that way, to be debugged.
     *
     * <p>On several threads, JUnit still shows one invocation per seed in seed order, each passing or failing with
     * its seed's {@link SimulationTestFailure}, and each seed's verdict and audit digest are those of the seed run
     * alone: a seed's run depends on its seed only. The runs go ahead of JUnit on threads the sweep starts and
     * stops ({@code lockstep-sweep-<method>-<n>}, daemons, ended when the method's invocations are done), at most
     * {@code 4 * threads} seeds ahead of the invocation JUnit is at; each invocation waits for its seed (and its
     * timeout bounds that wait, and aborts the run if it expires). Each run gets a new instance made as JUnit makes
     * one: the parameterless constructor, the {@code @BeforeEach} methods, the method, the {@code @AfterEach}
     * methods, all on the run's thread; JUnit's own instance of the invocation is left unused, and its
     * {@code @BeforeEach} and {@code @AfterEach} methods are not called on it. With {@link #checkDeterminism()} a
     * seed's two runs may go side by side. The {@link #uring()} run goes last, on JUnit's thread and instance, with
     * no simulation of the sweep beside it.
     *
     * <p>JUnit's own concurrent execution is not what this uses: it needs
     * {@code junit.jupiter.execution.parallel.enabled} set for the whole test run, which only the user can do, and
     * changes how every other test runs. If you have turned it on and run test methods at once, each method's sweep
     * still starts its own threads; set the configuration parameter to {@code 1} if that is too many.
     *
     * <p>What is shared between runs is the user's to keep safe: what the method keeps in instance fields is the
     * run's own, but a static field (or an object a static final field holds) is shared by the runs going at once.
     * Classes whose runs would share state JUnit makes, or that need JUnit to make their instances, run one seed at
     * a time on JUnit's thread, with a report entry saying why: a {@code PER_CLASS} lifecycle (one instance for
     * every seed), an inner ({@code @Nested}) class (its enclosing instance), a static field that is not final, a
     * constructor or {@code @BeforeEach}/{@code @AfterEach} method with parameters, extensions on the class or
     * the method ({@code @ExtendWith}, {@code @RegisterExtension}, {@code @TempDir} fields). Asking for
     * {@code threads > 1} on such a class is refused with an
     * {@link org.junit.jupiter.api.extension.ExtensionConfigurationException} that names the problem.
     *
     * @return 0 for the default, 1 for one run at a time, more for that many at once; a negative number is refused
     *     with an {@link IllegalArgumentException} naming it
     */
    int threads() default 0;
}
