package dev.lockstep.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.lockstep.ClosedException;
import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.Operation;
import dev.lockstep.Poll;
import dev.lockstep.Turns;
import dev.lockstep.Waker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;
import dev.lockstep.property.ForAll;
import dev.lockstep.property.Gen;
import dev.lockstep.property.Property;
import dev.lockstep.property.PropertyCheck;
import dev.lockstep.property.PropertyFailure;
import org.junit.jupiter.api.Test;

/**
 * Random forwarding sequences: one-byte receives owned by different workers are polled and closed from their
 * owner, from a fiber of another worker and from plain threads, in a random order, with service turns between.
 * No data arrives during the sequence, so the model is exact: a poll is pending until the operation was closed,
 * then closed; afterwards every open operation receives its byte wherever it is awaited, and every closed one
 * reports closure. Each runtime must give the model's transcript and end with every worker's driver empty and
 * every socket released. White-box: the receives are raw requests on a {@link SocketPair}, which a poisoned public
 * stream could not share, and the drain reads each worker's admitted requests. runtime-sim's
 * {@code SimForwardingTest} and runtime-uring's {@code UringForwardingTest} run them.
 */
public abstract class ForwardingCases {
    private static final int RING = 64;

    /**
     * The configuration a try runs under.
     *
     * @param seed the try's seed (the simulator's; runtime-uring ignores it)
     * @param workers the number of workers
     * @return the configuration
     */
    protected abstract WhiteBoxRuntime runtime(int seed, int workers);

    enum Action { POLL_OWNER, POLL_OTHER_WORKER, POLL_FOREIGN_THREAD, CLOSE_OWNER, CLOSE_OTHER_WORKER,
        CLOSE_FOREIGN_THREAD, RESCHEDULE }

    /** One step: {@code action} on operation {@code op} (modulo the number of operations). */
    record Step(int op, Action action) {
    }

    static Gen<List<Step>> steps() {
        Gen<Integer> ops = Gen.ints(0, 7);
        Gen<Action> actions = Gen.enums(Action.class);
        Gen<Step> step = choices -> new Step(ops.generate(choices), actions.generate(choices));
        return step.list(0, 16);
    }

    static Gen<Integer> operations() {
        return Gen.ints(1, 4);
    }

    static Gen<Integer> seeds() {
        return Gen.ints(1, 1_000_000);
    }

    static Gen<Integer> workers() {
        return Gen.ints(1, 2);
    }

    /** The model: the transcript the sequence must give. */
    static List<String> model(int operations, List<Step> steps) {
        boolean[] closed = new boolean[operations];
        List<String> transcript = new ArrayList<>();
        for (Step step : steps) {
            int op = step.op() % operations;
            switch (step.action()) {
                case POLL_OWNER, POLL_OTHER_WORKER, POLL_FOREIGN_THREAD ->
                        transcript.add(step.action() + " " + op + " -> " + (closed[op] ? "closed" : "pending"));
                case CLOSE_OWNER, CLOSE_OTHER_WORKER, CLOSE_FOREIGN_THREAD -> {
                    closed[op] = true;
                    transcript.add(step.action() + " " + op + " -> ok");
                }
                case RESCHEDULE -> transcript.add("RESCHEDULE");
            }
        }
        for (int op = 0; op < operations; op++) {
            transcript.add("await " + op + " -> " + (closed[op] ? "closed" : "x"));
        }
        transcript.add("admitted at the end: 0");
        transcript.add("sockets held at the end: 0");
        return transcript;
    }

    private static String describe(Poll<byte[]> poll) {
        if (!poll.isReady()) {
            return "pending";
        }
        try {
            return new String(poll.get(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (ClosedException closed) {
            return "closed";
        }
    }

    /** Runs {@code body} on a fiber of {@code worker} and waits for it. */
    private static <T> T on(Context ctx, int worker, String label, dev.lockstep.Task<T> body) {
        Handle<T> handle = ctx.child(label).spawnOn(worker, body);
        return handle.await();
    }


    /**
     * Runs the sequence; with {@code foreignCloseLost}, a planted bug: a close from a plain thread is dropped (as
     * a runtime that lost the {@code Cancel} message would), though the caller sees it return.
     */
    static List<String> run(WhiteBoxRuntime probe, int operations, List<Step> steps, boolean foreignCloseLost) {
        List<SocketPair> pairs = new ArrayList<>();
        // The socket pairs outlive start on purpose: what the runtime still holds of them afterwards is part of the
        // transcript. So the simulator's leak check is off here; runtime-uring needs no storage.
        List<String> transcript = probe.runner(RING, null, false).start(ctx -> {
            int workers = ctx.workers();
            AtomicReferenceArray<SocketPair> pairOf = new AtomicReferenceArray<>(operations);
            AtomicReferenceArray<Operation<byte[]>> ops = new AtomicReferenceArray<>(operations);
            for (int i = 0; i < operations; i++) {
                int index = i;
                on(ctx, i % workers, "register" + i, c -> {
                    SocketPair pair = probe.socketPair(c);
                    pairOf.set(index, pair);
                    ops.set(index, pair.recv());
                    return null;
                });
                pairs.add(pairOf.get(i));
            }
            List<String> lines = new ArrayList<>();
            int label = 0;
            for (Step step : steps) {
                int op = step.op() % operations;
                int owner = op % workers;
                int other = workers > 1 ? (owner + 1) % workers : -1;
                Operation<byte[]> operation = ops.get(op);
                String result = switch (step.action()) {
                    case POLL_OWNER -> on(ctx, owner, "poll" + label++, c -> describe(operation.poll(Waker.noop())));
                    case POLL_OTHER_WORKER -> other < 0
                            ? Turns.onForeignThreadBlockingWorker(() -> describe(operation.poll(Waker.noop())))
                            : on(ctx, other, "poll" + label++, c -> describe(operation.poll(Waker.noop())));
                    case POLL_FOREIGN_THREAD ->
                            Turns.onForeignThreadBlockingWorker(() -> describe(operation.poll(Waker.noop())));
                    case CLOSE_OWNER -> on(ctx, owner, "close" + label++, c -> {
                        operation.close();
                        return "ok";
                    });
                    case CLOSE_OTHER_WORKER -> other < 0 ? Turns.onForeignThreadBlockingWorker(() -> {
                        operation.close();
                        return "ok";
                    }) : on(ctx, other, "close" + label++, c -> {
                        operation.close();
                        return "ok";
                    });
                    case CLOSE_FOREIGN_THREAD -> Turns.onForeignThreadBlockingWorker(() -> {
                        if (!foreignCloseLost) {
                            operation.close();
                        }
                        return "ok";
                    });
                    case RESCHEDULE -> {
                        Turns.reschedule();
                        yield null;
                    }
                };
                lines.add(result == null ? "RESCHEDULE" : step.action() + " " + op + " -> " + result);
            }
            for (int i = 0; i < operations; i++) {
                pairOf.get(i).writePeer(new byte[] {'x'});
            }
            for (int i = 0; i < operations; i++) {
                String outcome;
                try {
                    outcome = new String(ops.get(i).await(), java.nio.charset.StandardCharsets.UTF_8);
                } catch (ClosedException closed) {
                    outcome = "closed";
                }
                lines.add("await " + i + " -> " + outcome);
            }
            int admitted = 0;
            for (int w = 0; w < workers; w++) {
                admitted += on(ctx, w, "drain" + w, c -> {
                    Turns.drained(c, probe::admitted);
                    return probe.admitted();
                });
            }
            lines.add("admitted at the end: " + admitted);
            return lines;
        });
        int held = 0;
        for (SocketPair pair : pairs) {
            held += pair.fd().held();
            pair.close();
        }
        transcript.add("sockets held at the end: " + held);
        return transcript;
    }

    @Property(tries = 50)
    void forwardingSequencesGiveTheModelsOutcomes(@ForAll("steps") List<Step> steps,
                                                               @ForAll("operations") int operations,
                                                               @ForAll("seeds") int seed,
                                                               @ForAll("workers") int workers) {
        check(steps, operations, runtime(seed, workers), false);
    }

    @Test
    void aLostForeignCloseIsFoundAndShrunkToThatOneClose() {
        // One worker: shrinking runs the body a few hundred times.
        PropertyFailure failure = assertThrows(PropertyFailure.class, () -> PropertyCheck.named("planted").seed(5)
                .tries(50).forAll(steps(), operations(), seeds(), (steps, operations, seed) -> check(steps,
                        operations, runtime(seed, 1), true)));
        assertEquals(List.of(List.of(new Step(0, Action.CLOSE_FOREIGN_THREAD)), 1, 1), failure.shrunk(),
                failure::getMessage);
    }

    private static void check(List<Step> steps, int operations, WhiteBoxRuntime runtime, boolean foreignCloseLost) {
        List<String> expected = model(operations, steps);
        List<String> transcript = run(runtime, operations, steps, foreignCloseLost);
        assertEquals(String.join("\n", expected), String.join("\n", transcript), runtime.toString());
    }
}
