package dev.lockstep.engine;

import dev.lockstep.ClosedException;
import dev.lockstep.Poll;
import dev.lockstep.TimeoutException;
import java.time.Duration;
import dev.lockstep.kernel.Errno;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;

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

    enum Kind { ADMIT, ADMIT_RETAINED, ADMIT_DEADLINE, SLEEP, POLL_SAME, POLL_NEW, REPOLL_OBSERVED, CLOSE,
        FOREIGN_CLOSE, FORWARD, COMPLETE, COMPLETE_EAGAIN, ADVANCE, SERVICE }

    record Step(Kind kind, int target) {
        @Override
        public String toString() {
            return kind + "(" + target + ")";
        }
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<Kind> kinds = Arbitraries.frequency(
                net.jqwik.api.Tuple.of(4, Kind.ADMIT), net.jqwik.api.Tuple.of(2, Kind.ADMIT_RETAINED),
                net.jqwik.api.Tuple.of(2, Kind.ADMIT_DEADLINE), net.jqwik.api.Tuple.of(2, Kind.SLEEP),
                net.jqwik.api.Tuple.of(2, Kind.ADVANCE),
                net.jqwik.api.Tuple.of(3, Kind.POLL_SAME), net.jqwik.api.Tuple.of(2, Kind.POLL_NEW),
                net.jqwik.api.Tuple.of(1, Kind.REPOLL_OBSERVED), net.jqwik.api.Tuple.of(2, Kind.CLOSE),
                net.jqwik.api.Tuple.of(2, Kind.FOREIGN_CLOSE), net.jqwik.api.Tuple.of(2, Kind.FORWARD),
                net.jqwik.api.Tuple.of(4, Kind.COMPLETE), net.jqwik.api.Tuple.of(1, Kind.COMPLETE_EAGAIN),
                net.jqwik.api.Tuple.of(2, Kind.SERVICE));
        Arbitrary<Integer> targets = Arbitraries.integers().between(0, 1 << 16);
        return Combinators.combine(kinds, targets).as(Step::new).list().ofMinSize(10).ofMaxSize(60);
    }

    @Provide
    Arbitrary<Integer> ringEntries() {
        return Arbitraries.of(1, 2, 4);
    }

    @Property(tries = 200, shrinking = ShrinkingMode.BOUNDED)
    void everyResultIsDeliveredOnceAndEverythingIsReleased(@ForAll("steps") List<Step> steps,
                                                           @ForAll("ringEntries") int ringEntries) {
        ScriptedKernel kernel = new ScriptedKernel();
        Model model = new Model(kernel);
        new ThreadedRunner(kernel, 1, ringEntries, null, "property").start(ctx -> {
            model.worker = Worker.current();
            model.ctx = ctx;
            for (Step step : steps) {
                model.apply(step);
            }
            model.finish();
            return null;
        });
        model.checkAfterShutdown();
    }

    /** User data round-trips every id, and the cancel bit never collides with a request's own user data. */
    @Property(tries = 500)
    void waiterIdsRoundTripThroughUserData(@ForAll("indices") int index, @ForAll("generations") int generation) {
        WaiterId id = new WaiterId(index, generation);
        long userData = id.userData();
        if (WaiterId.isCancel(userData) || !id.equals(WaiterId.fromUserData(userData))) {
            throw new AssertionError(id + " -> " + Long.toHexString(userData));
        }
        long cancel = userData | WaiterId.CANCEL_BIT;
        if (!WaiterId.isCancel(cancel) || !id.equals(WaiterId.fromUserData(cancel)) || cancel == -1L) {
            throw new AssertionError("cancel of " + id + " -> " + Long.toHexString(cancel));
        }
    }

    @Provide
    Arbitrary<Integer> indices() {
        return Arbitraries.integers().between(0, Integer.MAX_VALUE);
    }

    @Provide
    Arbitrary<Integer> generations() {
        return Arbitraries.integers().between(0, WaiterId.MAX_GENERATION);
    }

    /** One operation as the model sees it. */
    private static final class ModelOp {
        final Registration<Object> op;
        /** The request behind a ring operation; null for a sleep. */
        final ScriptedRequest request;
        final String name;
        final WaiterId key;
        /** The deadline of a sleep or of a request, in the kernel's clock; {@link Long#MAX_VALUE} for none. */
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
        private final List<ModelOp> ops = new ArrayList<>();
        private final List<Reentrant> fixtures = new ArrayList<>();
        private Worker worker;
        private dev.lockstep.Context ctx;
        private int nextValue = 1;

        Model(ScriptedKernel kernel) {
            this.kernel = kernel;
        }

        private Reentrant fixture() {
            Reentrant fixture = new Reentrant();
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
                case ADMIT_DEADLINE -> {
                    // Zero: a deadline already past at admission.
                    long deadline = worker.nowNanos() + Duration.ofMillis(step.target() % 8).toNanos();
                    ScriptedRequest request = new ScriptedRequest("op" + ops.size() + "d", false);
                    request.withDeadline(deadline);
                    ops.add(new ModelOp(worker.register(request), request, request.name, deadline));
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
                        ScriptedKernel.Pending entry = pending.get(step.target() % pending.size());
                        complete(entry, step.kind() == Kind.COMPLETE_EAGAIN);
                    }
                }
                case SERVICE -> Support.turns(1 + step.target() % 3);
            }
            for (Reentrant fixture : fixtures) {
                fixture.assertClean();
            }
        }

        private void complete(ScriptedKernel.Pending entry, boolean eagain) {
            ModelOp owner = null;
            for (ModelOp op : ops) {
                if (!op.isSleep() && op.key.equals(entry.id()) && op.request.releases.get() == 0) {
                    check(owner == null, "two live operations share " + entry.id());
                    owner = op;
                }
            }
            check(owner != null, "a submission of no live operation: " + entry);
            if (eagain) {
                kernel.complete(entry, -Errno.EAGAIN);
                return;
            }
            int value = nextValue++;
            check(owner.completedWith == null, owner + " completed twice by the kernel");
            owner.completedWith = value;
            kernel.complete(entry, value);
        }

        /** Polls on the fiber, or with {@code foreign} on a plain thread, and checks the outcome. */
        private void poll(ModelOp op, Reentrant fixture, boolean foreign) {
            boolean sameInstalled = op.installed == fixture;
            if (foreign && !op.forwarded) {
                // The first foreign poll makes a new channel: nothing is installed in it yet.
                sameInstalled = false;
            }
            int retainsBefore = fixture.retainCalls.get();
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
            int retains = fixture.retainCalls.get() - retainsBefore;
            if (sameInstalled) {
                check(retains == 0, op + ": an equivalent waker was retained again");
            } else {
                check(retains == 1, op + ": a new waker was retained " + retains + " times");
            }
            op.installed = fixture;
        }

        private void checkResult(ModelOp op, Poll<Object> poll) {
            long now = kernel.nowNanos.get();
            Object value;
            try {
                value = poll.get();
            } catch (TimeoutException timedOut) {
                check(op.deadlineNanos != Long.MAX_VALUE && !op.isSleep(), op + ": a timeout without a deadline");
                check(now >= op.deadlineNanos, op + ": timed out at " + now + ", before its deadline");
                return;
            }
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
