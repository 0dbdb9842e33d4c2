package dev.lockstep.engine.request;

import dev.lockstep.Reentrant;
import dev.lockstep.ClosedException;
import dev.lockstep.Poll;
import dev.lockstep.engine.ScriptedKernel;
import dev.lockstep.engine.ScriptedRequest;
import dev.lockstep.engine.Support;
import dev.lockstep.engine.ThreadedRunner;
import dev.lockstep.engine.worker.Worker;
import java.time.Duration;
import dev.lockstep.kernel.Errno;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import dev.lockstep.property.ForAll;
import dev.lockstep.property.Gen;
import dev.lockstep.property.Property;
import dev.lockstep.property.PropertyCheck;
import dev.lockstep.property.PropertyFailure;
import org.junit.jupiter.api.Test;

/**
 * Random interleavings of admission, polling (equivalent and new wakers), local and foreign closes, kernel
 * completions in any order (with resubmissions) and forwarding, run on one worker against a model of the slab.
 *
 * <p>Checked after every step and at the end: a result is delivered exactly once, to its own operation, and
 * only after the kernel completed it; a pending poll retains a waker exactly when the installed one is not
 * equivalent; every stored waker copy is woken or released exactly once and never inside the borrow; every
 * request is released exactly once; the slab is empty once every operation is closed or observed.
 */
class DriverProperties {

    enum Kind { ADMIT, ADMIT_RETAINED, SLEEP, POLL_SAME, POLL_NEW, REPOLL_OBSERVED, CLOSE,
        FOREIGN_CLOSE, FORWARD, COMPLETE, COMPLETE_EAGAIN, ADVANCE, SERVICE }

    record Step(Kind kind, int target) {
        @Override
        public String toString() {
            return kind + "(" + target + ")";
        }
    }

    /**
     * Steps, 1 to 60 (about 26 on average). {@code ADVANCE} comes first: what the shrinker lowers a step to is
     * {@code ADVANCE(0)}, a no-op, so a shrunk sequence shows only the steps that matter.
     */
    static Gen<List<Step>> steps() {
        Gen<Kind> kinds = Gen.frequency(Gen.weighted(2, Kind.ADVANCE), Gen.weighted(4, Kind.ADMIT),
                Gen.weighted(2, Kind.ADMIT_RETAINED), Gen.weighted(2, Kind.SLEEP), Gen.weighted(3, Kind.POLL_SAME), Gen.weighted(2, Kind.POLL_NEW),
                Gen.weighted(1, Kind.REPOLL_OBSERVED), Gen.weighted(2, Kind.CLOSE),
                Gen.weighted(2, Kind.FOREIGN_CLOSE), Gen.weighted(2, Kind.FORWARD), Gen.weighted(4, Kind.COMPLETE),
                Gen.weighted(1, Kind.COMPLETE_EAGAIN), Gen.weighted(2, Kind.SERVICE));
        Gen<Integer> targets = Gen.ints(0, 1 << 16);
        Gen<Step> step = choices -> new Step(kinds.generate(choices), targets.generate(choices));
        return step.list(1, 60);
    }

    static Gen<Integer> ringEntries() {
        return Gen.choose(1, 2, 4);
    }

    /** A bug planted in the kernel, to show the property finds it. */
    enum PlantedBug {
        NONE,
        /** Asked to complete one submission, the kernel completes the next one pending instead. */
        COMPLETES_THE_WRONG_SUBMISSION
    }

    @Property(tries = 200)
    void everyResultIsDeliveredOnceAndEverythingIsReleased(@ForAll("steps") List<Step> steps,
                                                           @ForAll("ringEntries") int ringEntries) {
        check(steps, ringEntries, PlantedBug.NONE);
    }

    @Test
    void aKernelThatCompletesTheWrongSubmissionIsFoundAndShrunkToTwoRequestsAndOneCompletion() {
        PropertyFailure failure = org.junit.jupiter.api.Assertions.assertThrows(PropertyFailure.class,
                () -> PropertyCheck.named("planted").seed(1).tries(200).forAll(steps(), ringEntries(),
                        (steps, ring) -> check(steps, ring, PlantedBug.COMPLETES_THE_WRONG_SUBMISSION)));
        @SuppressWarnings("unchecked")
        List<Step> shrunk = (List<Step>) failure.shrunk().get(0);
        // Two admissions and one completion are what it takes (the misrouted result is caught when an operation
        // is observed or completed again); the shrinker may keep a step the failure's path needs, no more.
        List<Step> relevant = shrunk.stream().filter(step -> step.kind() != Kind.ADVANCE || step.target() != 0)
                .toList();
        // Usually exactly two: a candidate runs on real threads (see the ring below), so a two-admission candidate
        // can pass on its one try and the shrinker keep a third (seen once in a full-suite run on a loaded machine).
        long admissions = relevant.stream().filter(step -> step.kind() == Kind.ADMIT
                || step.kind() == Kind.ADMIT_RETAINED).count();
        org.junit.jupiter.api.Assertions.assertTrue(admissions == 2 || admissions == 3, failure::getMessage);
        // Which pending entry the completion names depends on the path the shrinker took (a close from another
        // thread wakes, and is ordered against the completion through the owner's mailbox): any one completion.
        org.junit.jupiter.api.Assertions.assertEquals(1, relevant.stream().filter(step -> step.kind() == Kind.COMPLETE)
                .count(), failure::getMessage);
        org.junit.jupiter.api.Assertions.assertTrue(relevant.size() <= 3 + admissions, failure::getMessage);
        // Two requests in flight need a ring of two at least. The shrinker usually gets the ring down to exactly
        // two, but a candidate runs on real threads (the steps include closes from another thread, ordered
        // against completions through the owner's mailbox), so a ring-of-two candidate can pass on its one try
        // and the shrinker keep four (seen once in a fresh-clone CI run).
        int ring = (Integer) failure.shrunk().get(1);
        org.junit.jupiter.api.Assertions.assertTrue(ring == 2 || ring == 4, "two requests in flight need a ring of"
                + " two at least, was " + ring);
    }

    private static void check(List<Step> steps, int ringEntries, PlantedBug bug) {
        ScriptedKernel kernel = new ScriptedKernel();
        Model model = new Model(kernel, bug);
        new ThreadedRunner(kernel, 1, ringEntries, null, "property").start(ctx -> {
            model.worker = Worker.current();
            model.ctx = ctx;
            try {
                for (Step step : steps) {
                    model.apply(step);
                }
                model.finish();
            } catch (Throwable failure) {
                // A failed check leaves submissions pending, writes among them, which the closing worker waits
                // for: answer all of them so the runner can shut down and the failure can be reported (and
                // shrunk) instead of hanging.
                kernel.autoComplete(entry -> -Errno.ECANCELED);
                for (ScriptedKernel.Pending entry : kernel.pending()) {
                    kernel.complete(entry, -Errno.ECANCELED);
                }
                throw failure;
            }
            return null;
        });
        model.checkAfterShutdown();
    }

    /** User data round-trips every id, and the cancel bit never collides with a request's own user data. */
    @Property(tries = 500)
    void waiterIdsRoundTripThroughUserData(@ForAll("indices") int index, @ForAll("generations") int generation) {
        roundTrips(new WaiterId(index, generation), WaiterId::fromUserData);
    }

    @Test
    void aDecodingThatDropsHighIndexBitsIsFoundAndShrunkToTheFirstIndexItLoses() {
        // Planted: the decoder keeps 24 bits of the index. The smallest index it gets wrong is 2^24.
        LongFunction<WaiterId> truncating = userData -> {
            WaiterId id = WaiterId.fromUserData(userData);
            return new WaiterId(id.index() & 0xFF_FFFF, id.generation());
        };
        PropertyFailure failure = org.junit.jupiter.api.Assertions.assertThrows(PropertyFailure.class,
                () -> PropertyCheck.named("planted").seed(2).tries(500).forAll(indices(), generations(),
                        (index, generation) -> roundTrips(new WaiterId(index, generation), truncating)));
        org.junit.jupiter.api.Assertions.assertEquals(List.of(1 << 24, 0), failure.shrunk(), failure::getMessage);
    }

    private static void roundTrips(WaiterId id, LongFunction<WaiterId> decode) {
        long userData = id.userData();
        if (WaiterId.isCancel(userData) || !id.equals(decode.apply(userData))) {
            throw new AssertionError(id + " -> " + Long.toHexString(userData) + " -> " + decode.apply(userData));
        }
        long cancel = userData | WaiterId.CANCEL_BIT;
        if (!WaiterId.isCancel(cancel) || !id.equals(decode.apply(cancel)) || cancel == -1L) {
            throw new AssertionError("cancel of " + id + " -> " + Long.toHexString(cancel));
        }
    }

    static Gen<Integer> indices() {
        return Gen.ints(0, Integer.MAX_VALUE);
    }

    static Gen<Integer> generations() {
        return Gen.ints(0, WaiterId.MAX_GENERATION);
    }

    /** One operation as the model sees it. */
    private static final class ModelOp {
        final Registration<Object> op;
        /** The request behind a ring operation; null for a sleep. */
        final ScriptedRequest request;
        final String name;
        final WaiterId key;
        /** The deadline of a sleep, in the kernel's clock; {@link Long#MAX_VALUE} for a request. */
        final long deadlineNanos;
        /** The fixture whose copy is installed (locally or in the forwarded channel), or null. */
        Reentrant installed;
        boolean closed;
        boolean observed;
        boolean forwarded;
        /** The final result the kernel delivered, or null while none. */
        Integer completedWith;

        @SuppressWarnings("unchecked")
        ModelOp(Registration<?> op, ScriptedRequest request, String name, long deadlineNanos) {
            this.op = (Registration<Object>) op;
            this.request = request;
            this.name = name;
            this.key = op.key();
            this.deadlineNanos = deadlineNanos;
        }

        boolean open() {
            return !closed && !observed;
        }

        boolean isSleep() {
            return request == null;
        }

        @Override
        public String toString() {
            return name + (closed ? " closed" : "") + (observed ? " observed" : "")
                    + (forwarded ? " forwarded" : "") + (completedWith != null ? " =" + completedWith : "")
                    + (deadlineNanos != Long.MAX_VALUE ? " deadline " + deadlineNanos : "");
        }
    }

    /** The model and the operations it drives; runs on the worker's fiber. */
    private static final class Model {
        private final ScriptedKernel kernel;
        private final PlantedBug bug;
        private final List<ModelOp> ops = new ArrayList<>();
        private final List<Reentrant> fixtures = new ArrayList<>();
        private Worker worker;
        private dev.lockstep.Context ctx;
        private int nextValue = 1;

        Model(ScriptedKernel kernel, PlantedBug bug) {
            this.kernel = kernel;
            this.bug = bug;
        }

        private Reentrant fixture() {
            Reentrant fixture = new Reentrant(Support::criticalSection);
            fixtures.add(fixture);
            return fixture;
        }

        private ModelOp pick(List<ModelOp> candidates, int target) {
            return candidates.isEmpty() ? null : candidates.get(target % candidates.size());
        }

        private List<ModelOp> openOps() {
            return ops.stream().filter(ModelOp::open).toList();
        }

        void apply(Step step) {
            switch (step.kind()) {
                case ADMIT, ADMIT_RETAINED -> {
                    boolean retained = step.kind() == Kind.ADMIT_RETAINED;
                    ScriptedRequest request = new ScriptedRequest("op" + ops.size() + (retained ? "w" : "r"),
                            retained);
                    ops.add(new ModelOp(worker.register(request), request, request.name, Long.MAX_VALUE));
                }
                case SLEEP -> {
                    Duration duration = Duration.ofMillis(step.target() % 8);
                    long deadline = worker.nowNanos() + duration.toNanos();
                    ops.add(new ModelOp((Registration<?>) ctx.sleeper(duration), null, "sleep" + ops.size(),
                            deadline));
                }
                case ADVANCE -> kernel.advance(Duration.ofMillis(step.target() % 4).toNanos());
                case POLL_SAME, POLL_NEW -> {
                    ModelOp op = pick(openOps(), step.target());
                    if (op != null) {
                        Reentrant fixture = step.kind() == Kind.POLL_SAME && op.installed != null ? op.installed
                                : fixture();
                        poll(op, fixture, false);
                    }
                }
                case REPOLL_OBSERVED -> {
                    ModelOp op = pick(ops.stream().filter(o -> o.observed).toList(), step.target());
                    if (op != null) {
                        Poll<Object> again = op.op.poll(fixture().waker());
                        check(again.isReady(), op + ": an observed operation is done");
                        try {
                            again.get();
                            throw new AssertionError(op + ": a result was delivered twice");
                        } catch (ClosedException expected) {
                            // Observed once only.
                        }
                    }
                }
                case CLOSE -> {
                    ModelOp op = pick(ops.stream().filter(o -> !o.closed).toList(), step.target());
                    if (op != null) {
                        op.op.close();
                        op.closed = true;
                    }
                }
                case FOREIGN_CLOSE -> {
                    ModelOp op = pick(ops.stream().filter(o -> !o.closed).toList(), step.target());
                    if (op != null) {
                        Support.onPlainThread(op.op::close);
                        op.closed = true;
                    }
                }
                case FORWARD -> {
                    ModelOp op = pick(openOps(), step.target());
                    if (op != null) {
                        Reentrant fixture = op.forwarded && op.installed != null && step.target() % 2 == 0
                                ? op.installed : fixture();
                        poll(op, fixture, true);
                    }
                }
                case COMPLETE, COMPLETE_EAGAIN -> {
                    List<ScriptedKernel.Pending> pending = kernel.pending();
                    if (!pending.isEmpty()) {
                        int index = step.target() % pending.size();
                        complete(pending.get(index), step.kind() == Kind.COMPLETE_EAGAIN,
                                bug == PlantedBug.COMPLETES_THE_WRONG_SUBMISSION
                                        ? pending.get((index + 1) % pending.size()) : pending.get(index));
                    }
                }
                case SERVICE -> Support.turns(1 + step.target() % 3);
            }
            for (Reentrant fixture : fixtures) {
                fixture.assertClean();
            }
        }

        private void complete(ScriptedKernel.Pending entry, boolean eagain) {
            complete(entry, eagain, entry);
        }

        /** The model completes {@code entry}; the kernel completes {@code completed}: the same but for a planted bug. */
        private void complete(ScriptedKernel.Pending entry, boolean eagain, ScriptedKernel.Pending completed) {
            ModelOp owner = null;
            for (ModelOp op : ops) {
                if (!op.isSleep() && op.key.equals(entry.id()) && op.request.releases.get() == 0) {
                    check(owner == null, "two live operations share " + entry.id());
                    owner = op;
                }
            }
            check(owner != null, "a submission of no live operation: " + entry);
            if (eagain) {
                kernel.complete(completed, -Errno.EAGAIN);
                return;
            }
            int value = nextValue++;
            check(owner.completedWith == null, owner + " completed twice by the kernel");
            owner.completedWith = value;
            kernel.complete(completed, value);
        }

        /** Polls on the fiber, or with {@code foreign} on a plain thread, and checks the outcome. */
        private void poll(ModelOp op, Reentrant fixture, boolean foreign) {
            boolean sameInstalled = op.installed == fixture;
            if (foreign && !op.forwarded) {
                // The first foreign poll makes a new channel: nothing is installed in it yet.
                sameInstalled = false;
            }
            int retainsBefore = fixture.retainCalls();
            Poll<Object> poll = foreign ? Support.onPlainThread(() -> op.op.poll(fixture.waker()))
                    : op.op.poll(fixture.waker());
            if (foreign) {
                op.forwarded = true;
            }
            if (poll.isReady()) {
                checkResult(op, poll);
                op.observed = true;
                op.installed = null;
                return;
            }
            int retains = fixture.retainCalls() - retainsBefore;
            if (sameInstalled) {
                check(retains == 0, op + ": an equivalent waker was retained again");
            } else {
                check(retains == 1, op + ": a new waker was retained " + retains + " times");
            }
            op.installed = fixture;
        }

        private void checkResult(ModelOp op, Poll<Object> poll) {
            long now = kernel.nowNanos.get();
            Object value = poll.get();
            if (op.isSleep()) {
                check(value == null, op + ": a sleep completed with " + value);
                check(now >= op.deadlineNanos, op + ": a sleep fired at " + now + ", before its deadline");
                return;
            }
            check(op.completedWith != null, op + ": a result before the kernel completed the request");
            check(op.completedWith.equals(value), op + ": received " + value + ", not its own result");
        }

        /** Drives every open operation to its result, then lets closed work retire. */
        void finish() {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            // Every sleep and deadline passes.
            kernel.advance(Duration.ofHours(1).toNanos());
            for (ModelOp op : ops) {
                while (op.open()) {
                    check(System.nanoTime() < deadline, op + " never completed; pending " + kernel.pending());
                    Reentrant fixture = op.installed != null ? op.installed : fixture();
                    poll(op, fixture, false);
                    if (!op.observed) {
                        completeEverything();
                        Thread.yield();
                    }
                }
            }
            while (worker.admitted() > 0 || !kernel.pending().isEmpty()) {
                check(System.nanoTime() < deadline, "the slab never emptied: " + worker.admitted() + " admitted, "
                        + kernel.pending() + " pending; " + ops);
                completeEverything();
                Thread.yield();
            }
            Support.turns(2);
            check(worker.admitted() == 0, "slab not empty: " + ops);
            for (ModelOp op : ops) {
                check(op.isSleep() || op.request.releases.get() == 1,
                        op + " released " + (op.isSleep() ? 0 : op.request.releases.get())
                                + " times once everything retired");
            }
            for (Reentrant fixture : fixtures) {
                fixture.assertBalanced();
            }
        }

        private void completeEverything() {
            for (ScriptedKernel.Pending entry : kernel.pending()) {
                complete(entry, false);
            }
        }

        void checkAfterShutdown() {
            for (ModelOp op : ops) {
                check(op.isSleep() || op.request.releases.get() == 1, op + " released more or less than once");
            }
            for (Reentrant fixture : fixtures) {
                fixture.assertBalanced();
            }
        }

        private static void check(boolean condition, String message) {
            if (!condition) {
                throw new AssertionError(message);
            }
        }
    }
}
