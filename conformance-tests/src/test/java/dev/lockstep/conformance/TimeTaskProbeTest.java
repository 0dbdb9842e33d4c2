package dev.lockstep.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.ClosedException;
import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.CountingWaker;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import dev.lockstep.Operation;
import dev.lockstep.Poll;
import dev.lockstep.Signal;
import dev.lockstep.TimeoutException;
import dev.lockstep.Waker;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Edge cases of the time and task parts of the API (Clock, Spawner, Handle, Operation's timeouts, stop), probed
 * side by side on every runtime: each probe's outcome is recorded as "ok" (with a short value) or the exception's
 * simple name plus whether its message names the bad value, and the whole table must be the one the javadoc
 * promises, the same on the simulator and on runtime-uring.
 */
@Group(ReadmeGroup.TIME_TASK_PROBES)
class TimeTaskProbeTest {

    private static final Duration FOREVER = ChronoUnit.FOREVER.getDuration();
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    /** A call's outcome: ok[value], or the exception's simple name (and its cause's), "+named" when it names value. */
    static String outcome(String value, Callable<?> call) {
        try {
            Object result = call.call();
            return "ok" + (result == null ? "" : "[" + result + "]");
        } catch (Throwable failure) {
            String message = String.valueOf(failure.getMessage());
            return failure.getClass().getSimpleName()
                    + (failure.getCause() == null ? "" : "(" + failure.getCause().getClass().getSimpleName() + ")")
                    + (value == null ? "" : message.contains(value) ? "+named" : " UNNAMED(" + message + ")");
        }
    }

    static void record(Map<String, String> table, String probe, String value, Callable<?> call) {
        table.put(probe, outcome(value, call));
    }

    private static Object sleepForever(Context ctx) {
        ctx.sleep(FOREVER);
        return "woke";
    }

    // ------------------------------------------------------------------------------------------------- clock

    @Conformance
    void probeClockArguments(Runtimes rt) {
        AtomicReference<Context> escaped = new AtomicReference<>();
        Map<String, String> actual = rt.runner().start(ctx -> {
            escaped.set(ctx.child("escaped"));
            Map<String, String> t = new LinkedHashMap<>();
            record(t, "sleep ZERO", null, () -> { ctx.sleep(Duration.ZERO); return null; });
            record(t, "sleep 0 ns", null, () -> { ctx.sleep(Duration.ofNanos(0)); return null; });
            record(t, "sleep -1 ns", "PT-0.000000001S", () -> { ctx.sleep(Duration.ofNanos(-1)); return null; });
            record(t, "sleep -1 s", "PT-1S", () -> { ctx.sleep(Duration.ofSeconds(-1)); return null; });
            record(t, "sleeper -1 ns", "PT-0.000000001S", () -> ctx.sleeper(Duration.ofNanos(-1)));
            record(t, "sleeper ZERO", null, () -> { try (Operation<Void> op = ctx.sleeper(Duration.ZERO)) {
                return op.await(); } });
            record(t, "timeout -1 ms", "PT-0.001S", () -> ctx.timeout(Duration.ofMillis(-1), () -> "x"));
            record(t, "timeout MIN duration", "PT-", () -> ctx.timeout(Duration.ofSeconds(Long.MIN_VALUE), () -> "x"));
            record(t, "sleep null", null, () -> { ctx.sleep(null); return null; });
            record(t, "sleepUntil null", null, () -> { ctx.sleepUntil(null); return null; });
            record(t, "timeout null duration", null, () -> ctx.timeout(null, () -> "x"));
            record(t, "sleepUntil 1 s ago", null, () -> { ctx.sleepUntil(ctx.now().minusSeconds(1)); return null; });
            record(t, "sleepUntil now", null, () -> { ctx.sleepUntil(ctx.now()); return null; });
            record(t, "sleepUntil EPOCH", null, () -> { ctx.sleepUntil(Instant.EPOCH); return null; });
            record(t, "sleepUntil MIN", null, () -> { ctx.sleepUntil(Instant.MIN); return null; });
            record(t, "timeout 5ms sleepUntil MAX", null, () -> ctx.timeout(Duration.ofMillis(5), () -> {
                ctx.sleepUntil(Instant.MAX); return "woke"; }));
            record(t, "timeout 5ms sleep Long.MAX nanos", null, () -> ctx.timeout(Duration.ofMillis(5), () -> {
                ctx.sleep(Duration.ofNanos(Long.MAX_VALUE)); return "woke"; }));
            record(t, "timeout 5ms sleep FOREVER", null, () -> ctx.timeout(Duration.ofMillis(5), () -> {
                ctx.sleep(FOREVER); return "woke"; }));
            record(t, "sleeper FOREVER polled", null, () -> { try (Operation<Void> op = ctx.sleeper(FOREVER)) {
                return op.poll(Waker.noop()).isReady(); } });
            record(t, "timeout FOREVER ready body", null, () -> ctx.timeout(FOREVER, () -> "x"));
            record(t, "timeout FOREVER 1ms sleep", null, () -> ctx.timeout(FOREVER, () -> {
                ctx.sleep(Duration.ofMillis(1)); return "slept"; }));
            record(t, "timeout Long.MAX nanos 1ms sleep", null, () -> ctx.timeout(Duration.ofNanos(Long.MAX_VALUE), () -> {
                ctx.sleep(Duration.ofMillis(1)); return "slept"; }));
            record(t, "timeout ZERO sleep 1ns", null, () -> ctx.timeout(Duration.ZERO, () -> {
                ctx.sleep(Duration.ofNanos(1)); return "slept"; }));
            record(t, "timeout body checked", null, () -> ctx.timeout(Duration.ofSeconds(1), () -> {
                throw new IOException("boom"); }));
            record(t, "timeout body Error", null, () -> ctx.timeout(Duration.ofSeconds(1), () -> {
                throw new AssertionError("boom"); }));
            record(t, "timeout body own TimeoutException", null, () -> ctx.timeout(Duration.ofSeconds(1), () -> {
                throw new TimeoutException("mine"); }));
            record(t, "timeout null body", null, () -> ctx.timeout(Duration.ofSeconds(1), null));
            record(t, "outer 5ms fires through inner 1h", null, () -> ctx.timeout(Duration.ofMillis(5),
                    () -> ctx.timeout(Duration.ofHours(1), () -> sleepForever(ctx))));
            record(t, "inner caught, outer goes on", null, () -> ctx.timeout(Duration.ofSeconds(10), () -> {
                String inner = outcome(null, () -> ctx.timeout(Duration.ofMillis(2), () -> sleepForever(ctx)));
                ctx.sleep(Duration.ofMillis(5));
                return inner + " then slept";
            }));
            record(t, "sleep after timed-out timeout", null, () -> {
                outcome(null, () -> ctx.timeout(Duration.ofMillis(1), () -> sleepForever(ctx)));
                ctx.sleep(Duration.ofMillis(20)); // the expired scope must not cut later waits short
                return "slept";
            });
            return t;
        });
        Context ctx = escaped.get();
        Map<String, String> outside = new LinkedHashMap<>();
        record(outside, "now from plain thread", null, ctx::now);
        record(outside, "sleep from plain thread", null, () -> { ctx.sleep(Duration.ZERO); return null; });
        record(outside, "sleeper -1 from plain thread", "PT-0.000000001S", () -> ctx.sleeper(Duration.ofNanos(-1)));
        record(outside, "timeout from plain thread", null, () -> ctx.timeout(Duration.ZERO, () -> "x"));
        actual.putAll(outside);

        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("sleep ZERO", "ok");
        expected.put("sleep 0 ns", "ok");
        expected.put("sleep -1 ns", "IllegalArgumentException+named");
        expected.put("sleep -1 s", "IllegalArgumentException+named");
        expected.put("sleeper -1 ns", "IllegalArgumentException+named");
        expected.put("sleeper ZERO", "ok");
        expected.put("timeout -1 ms", "IllegalArgumentException+named");
        expected.put("timeout MIN duration", "IllegalArgumentException+named");
        expected.put("sleep null", "NullPointerException");
        expected.put("sleepUntil null", "NullPointerException");
        expected.put("timeout null duration", "NullPointerException");
        expected.put("sleepUntil 1 s ago", "ok");
        expected.put("sleepUntil now", "ok");
        expected.put("sleepUntil EPOCH", "ok");
        expected.put("sleepUntil MIN", "ok");
        expected.put("timeout 5ms sleepUntil MAX", "TimeoutException");
        expected.put("timeout 5ms sleep Long.MAX nanos", "TimeoutException");
        expected.put("timeout 5ms sleep FOREVER", "TimeoutException");
        expected.put("sleeper FOREVER polled", "ok[false]");
        expected.put("timeout FOREVER ready body", "ok[x]");
        expected.put("timeout FOREVER 1ms sleep", "ok[slept]");
        expected.put("timeout Long.MAX nanos 1ms sleep", "ok[slept]");
        expected.put("timeout ZERO sleep 1ns", "TimeoutException");
        expected.put("timeout body checked", "ExitedException(IOException)");
        expected.put("timeout body Error", "AssertionError");
        expected.put("timeout body own TimeoutException", "TimeoutException");
        expected.put("timeout null body", "NullPointerException");
        expected.put("outer 5ms fires through inner 1h", "TimeoutException");
        expected.put("inner caught, outer goes on", "ok[TimeoutException then slept]");
        expected.put("sleep after timed-out timeout", "ok[slept]");
        expected.put("now from plain thread", "IllegalStateException");
        expected.put("sleep from plain thread", "IllegalStateException");
        expected.put("sleeper -1 from plain thread", "IllegalArgumentException+named");
        expected.put("timeout from plain thread", "IllegalStateException");
        ProbeTables.assertTable(rt, expected, actual);
    }

    /** now() never goes backwards on a worker, a sleep advances it by at least its duration, and it is wall time. */
    @Conformance
    void probeClockMonotonicAndWall(Runtimes rt) {
        Instant realBefore = Instant.now();
        List<String> problems = rt.runner().start(ctx -> {
            List<String> found = new ArrayList<>();
            List<Handle<List<String>>> perWorker = new ArrayList<>();
            for (int w = 0; w < ctx.workers(); w++) {
                int worker = w;
                perWorker.add(ctx.child("w" + w).spawnOn(w, c -> {
                    List<String> bad = new ArrayList<>();
                    Instant last = c.now();
                    for (int i = 0; i < 2000; i++) {
                        if (i % 100 == 0) {
                            c.sleep(i % 200 == 0 ? Duration.ZERO : Duration.ofNanos(1));
                        }
                        Instant now = c.now();
                        if (now.isBefore(last)) {
                            bad.add("worker " + worker + ": now went back from " + last + " to " + now);
                        }
                        last = now;
                    }
                    Instant before = c.now();
                    c.sleep(Duration.ofMillis(10));
                    Instant after = c.now();
                    if (Duration.between(before, after).compareTo(Duration.ofMillis(10)) < 0) {
                        bad.add("worker " + worker + ": a 10 ms sleep advanced now by " + Duration.between(before, after));
                    }
                    Instant deadline = c.now().plusMillis(7);
                    c.sleepUntil(deadline);
                    if (c.now().isBefore(deadline)) {
                        bad.add("worker " + worker + ": sleepUntil returned before its deadline");
                    }
                    return bad;
                }));
            }
            for (Handle<List<String>> handle : perWorker) {
                found.addAll(handle.await());
            }
            if (!rt.isSim()) {
                Instant now = ctx.now();
                if (now.isBefore(realBefore.minusSeconds(5)) || now.isAfter(Instant.now().plusSeconds(5))) {
                    found.add("runtime-uring now " + now + " is not wall time (" + Instant.now() + ")");
                }
            }
            return found;
        });
        assertEquals(List.of(), problems);
    }

    // ------------------------------------------------------------------------------------------ net timeouts

    @Conformance
    void probeNetworkTimeouts(Runtimes rt) {
        Map<String, String> actual = rt.runner().start(ctx -> {
            Map<String, String> t = new LinkedHashMap<>();
            try (Listener listener = ctx.bind(ANY_PORT).await()) {
                record(t, "accept under 20ms timeout", null, () -> ctx.timeout(Duration.ofMillis(20),
                        () -> listener.accept().await()));
                try (Connection dialed = ctx.dial(listener.localAddress()).await();
                     Connection accepted = ctx.timeout(Duration.ofSeconds(10), () -> listener.accept().await())) {
                    record(t, "accept after a timed-out accept", null, () -> accepted != null);
                    record(t, "recv under 20ms timeout", null, () -> ctx.timeout(Duration.ofMillis(20),
                            () -> accepted.stream().recv(4).await().length));
                    record(t, "recv after timed-out recv", null, () -> accepted.stream().recv(1).await().length);
                    record(t, "send on other side after timed-out recv", null, () -> {
                        accepted.sink().send(new byte[] {1, 2}).await();
                        return dialed.stream().recv(2).await().length;
                    });
                    record(t, "recv ready under ZERO timeout", null, () -> {
                        accepted.sink().send(new byte[] {3}).await();
                        ctx.sleep(Duration.ofMillis(20));
                        try (Operation<byte[]> recv = dialed.stream().recv(1)) {
                            ctx.sleep(Duration.ofMillis(5));
                            return ctx.timeout(Duration.ZERO, recv::await)[0];
                        }
                    });
                }
            }
            return t;
        });
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("accept under 20ms timeout", "TimeoutException");
        expected.put("accept after a timed-out accept", "ok[true]");
        expected.put("recv under 20ms timeout", "TimeoutException");
        expected.put("recv after timed-out recv", "ClosedException");
        expected.put("send on other side after timed-out recv", "ok[2]");
        expected.put("recv ready under ZERO timeout", "ok[3]");
        ProbeTables.assertTable(rt, expected, actual);
    }

    /**
     * A timeout that falls due just as the operation completes: a sleeper and an accept racing a deadline at the
     * same instant. Either outcome is allowed; nothing hangs, nothing leaks (the simulator's leak check), and every
     * dialed connection is either served or sees its peer go.
     */
    @Conformance
    void probeTimeoutRacingCompletion(Runtimes rt) {
        Map<String, String> actual = rt.runner().start(ctx -> {
            Map<String, String> t = new LinkedHashMap<>();
            int sleeperOk = 0;
            int sleeperTimedOut = 0;
            for (int i = 0; i < 30; i++) {
                Duration d = Duration.ofNanos(200_000L * (i % 5));
                try {
                    ctx.timeout(d, () -> { ctx.sleep(d); return null; });
                    sleeperOk++;
                } catch (TimeoutException expected) {
                    sleeperTimedOut++;
                }
            }
            t.put("sleeper races its own timeout", (sleeperOk + sleeperTimedOut) == 30 ? "30 settled" : "lost");
            try (Listener listener = ctx.bind(ANY_PORT).await()) {
                Handle<Integer> dialer = ctx.child("dialer").spawnOn(ctx.workers() - 1, c -> {
                    int settled = 0;
                    for (int i = 0; i < 20; i++) {
                        c.sleep(Duration.ofMillis(1));
                        try (Connection connection = c.dial(listener.localAddress()).await()) {
                            connection.sink().send(new byte[] {(byte) i}).await();
                            try {
                                c.timeout(Duration.ofSeconds(5), () -> connection.stream().recv(1).await());
                            } catch (dev.lockstep.RecvFailedException | ClosedException peerWent) {
                                // the acceptor's timeout won and the runtime closed the connection
                            }
                            settled++;
                        }
                    }
                    return settled;
                });
                int accepted = 0;
                while (!dialer.isDone()) {
                    try {
                        try (Connection connection = ctx.timeout(Duration.ofMillis(1), () -> listener.accept().await())) {
                            byte[] got = ctx.timeout(Duration.ofSeconds(5), () -> connection.stream().recv(1).await());
                            connection.sink().send(got).await();
                            accepted++;
                        }
                    } catch (TimeoutException timedOut) {
                        // raced: try again
                    }
                }
                t.put("dialer settled every connection", String.valueOf(dialer.await()));
                t.put("some accepted", String.valueOf(accepted > 0));
            }
            return t;
        });
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("sleeper races its own timeout", "30 settled");
        expected.put("dialer settled every connection", "20");
        expected.put("some accepted", "true");
        ProbeTables.assertTable(rt, expected, actual);
    }

    // ------------------------------------------------------------------------------------------------- tasks

    @Conformance
    void probeSpawnArgumentsAndLabels(Runtimes rt) {
        String huge = "a".repeat(100_000);
        Map<String, String> actual = rt.runner().start(ctx -> {
            Map<String, String> t = new LinkedHashMap<>();
            int workers = ctx.workers();
            Context c = ctx.child("c");
            record(t, "spawnOn -1", "-1", () -> c.spawnOn(-1, x -> "ran"));
            record(t, "spawnOn workers", String.valueOf(workers), () -> c.spawnOn(workers, x -> "ran"));
            record(t, "spawnOn MIN_VALUE", String.valueOf(Integer.MIN_VALUE), () -> c.spawnOn(Integer.MIN_VALUE, x -> "ran"));
            record(t, "spawnOn 0 null task", null, () -> c.spawnOn(0, null));
            record(t, "spawn after refused spawnOns", null, () -> c.spawn(x -> "ran").await());
            record(t, "spawn twice", "c", () -> c.spawn(x -> "again"));
            record(t, "spawnOn -1 on a consumed context", "-1", () -> c.spawnOn(-1, x -> "ran"));
            record(t, "child null", "null", () -> ctx.child(null));
            record(t, "child empty", "''", () -> ctx.child(""));
            record(t, "child '1a'", "1a", () -> ctx.child("1a"));
            record(t, "child 'a.b'", "a.b", () -> ctx.child("a.b"));
            record(t, "child 'a b'", "a b", () -> ctx.child("a b"));
            record(t, "child 'runtimeX'", "runtimeX", () -> ctx.child("runtimeX"));
            record(t, "child 'é'", "é", () -> ctx.child("é"));
            record(t, "child 'Runtime'", null, () -> ctx.child("Runtime").label());
            record(t, "child huge label", null, () -> ctx.child(huge).label().length());
            record(t, "spawn huge label", null, () -> ctx.child(huge).child("x").spawn(x -> x.label().length()).await());
            record(t, "nested label", null, () -> ctx.child("p").child("q").spawn(x -> x.label() + "|"
                    + x.child("r").label()).await());
            record(t, "root label", null, () -> "'" + ctx.label() + "'");
            record(t, "task returns null", null, () -> ctx.child("n").spawn(x -> null).await());
            record(t, "task returns null, polled", null, () -> {
                Handle<Object> h = ctx.child("np").spawn(x -> null);
                h.await();
                return h.poll(null).isReady() + "/" + h.poll(null).get();
            });
            return t;
        });
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("spawnOn -1", "IllegalArgumentException+named");
        expected.put("spawnOn workers", "IllegalArgumentException+named");
        expected.put("spawnOn MIN_VALUE", "IllegalArgumentException+named");
        expected.put("spawnOn 0 null task", "NullPointerException");
        expected.put("spawn after refused spawnOns", "ok[ran]");
        expected.put("spawn twice", "IllegalStateException+named");
        expected.put("spawnOn -1 on a consumed context", "IllegalArgumentException+named");
        expected.put("child null", "IllegalArgumentException+named");
        expected.put("child empty", "IllegalArgumentException+named");
        expected.put("child '1a'", "IllegalArgumentException+named");
        expected.put("child 'a.b'", "IllegalArgumentException+named");
        expected.put("child 'a b'", "IllegalArgumentException+named");
        expected.put("child 'runtimeX'", "IllegalArgumentException+named");
        expected.put("child 'é'", "IllegalArgumentException+named");
        expected.put("child 'Runtime'", "ok[Runtime]");
        expected.put("child huge label", "ok[100000]");
        expected.put("spawn huge label", "ok[100002]");
        expected.put("nested label", "ok[p.q|p.q.r]");
        expected.put("root label", "ok['']");
        expected.put("task returns null", "ok");
        expected.put("task returns null, polled", "ok[true/null]");
        ProbeTables.assertTable(rt, expected, actual);
    }

    @Conformance
    void probeHandlesAndAbort(Runtimes rt) {
        Map<String, String> actual = rt.runner().start(ctx -> {
            Map<String, String> t = new LinkedHashMap<>();
            // a child that throws a checked exception, an Error, its own ClosedException
            Handle<Object> checked = ctx.child("checked").spawn(x -> { throw new IOException("bad io"); });
            record(t, "checked: await", "checked", checked::await);
            record(t, "checked: await again", "checked", checked::await);
            record(t, "checked: same exception twice", null, () -> {
                RuntimeException a = null;
                RuntimeException b = null;
                try { checked.await(); } catch (RuntimeException e) { a = e; }
                try { checked.await(); } catch (RuntimeException e) { b = e; }
                return a.getCause() == b.getCause();
            });
            Handle<Object> error = ctx.child("error").spawn(x -> { throw new AssertionError("bad"); });
            record(t, "Error: await", "error", error::await);
            Handle<Object> ownClosed = ctx.child("ownclosed").spawn(x -> { throw new ClosedException("mine"); });
            record(t, "own ClosedException: await", null, ownClosed::await);
            Handle<String> value = ctx.child("value").spawn(x -> "v");
            record(t, "value: await twice", null, () -> value.await() + value.await());
            record(t, "abort finished: await", null, () -> { value.abort(); value.abort(); return value.await(); });

            // abort while sleeping
            AtomicBoolean sleptFinally = new AtomicBoolean();
            dev.lockstep.sync.OneShot<Boolean> sleeping = new dev.lockstep.sync.OneShot<>();
            Handle<Object> sleeper = ctx.child("sleeper").spawnOn(ctx.workers() - 1, x -> {
                try {
                    sleeping.complete(true);
                    return sleepForever(x);
                } finally {
                    sleptFinally.set(true);
                }
            });
            sleeping.get().await(); // it runs on another worker: awaited, not slept for
            ctx.sleep(Duration.ofMillis(2));
            record(t, "abort sleeping: isDone before", null, sleeper::isDone);
            sleeper.abort();
            record(t, "abort sleeping: await", null, sleeper::await);
            record(t, "abort sleeping: finally ran", null, sleptFinally::get);
            record(t, "abort sleeping: poll", null, () -> sleeper.poll(null).get());

            // abort of a task that catches the abort and tries to go on
            AtomicInteger closedSeen = new AtomicInteger();
            dev.lockstep.sync.OneShot<Boolean> stubbornStarted = new dev.lockstep.sync.OneShot<>();
            Handle<String> stubborn = ctx.child("stubborn").spawn(x -> {
                stubbornStarted.complete(true);
                for (int i = 0; i < 3; i++) {
                    try {
                        x.sleep(Duration.ofHours(1));
                    } catch (ClosedException aborted) {
                        closedSeen.incrementAndGet();
                    }
                }
                return "ignored the abort";
            });
            stubbornStarted.get().await(); // its body runs (an abort before it would skip the body altogether)
            stubborn.abort();
            record(t, "stubborn: await", null, stubborn::await);
            record(t, "stubborn: every later wait closed", null, closedSeen::get);

            // abort while awaiting another handle; the grandchild is below and goes too
            AtomicReference<Handle<Object>> grand = new AtomicReference<>();
            dev.lockstep.sync.OneShot<Boolean> grandSpawned = new dev.lockstep.sync.OneShot<>();
            Handle<Object> awaiting = ctx.child("awaiting").spawn(x -> {
                Handle<Object> g = x.child("g").spawnOn(0, y -> sleepForever(y));
                grand.set(g);
                grandSpawned.complete(true);
                return g.await();
            });
            grandSpawned.get().await();
            awaiting.abort();
            record(t, "abort awaiting: await", null, awaiting::await);
            record(t, "abort awaiting: grandchild", null, () -> grand.get().await());

            // abort of a parent whose children sleep on every worker
            List<AtomicBoolean> finals = new ArrayList<>();
            List<Handle<Object>> kids = new ArrayList<>();
            // Each child says it began: an abort before a body begins skips it, finally blocks included.
            List<dev.lockstep.sync.OneShot<Boolean>> kidsBegan = new ArrayList<>();
            for (int w = 0; w < ctx.workers(); w++) {
                finals.add(new AtomicBoolean());
                kidsBegan.add(new dev.lockstep.sync.OneShot<>());
            }
            Handle<Object> parent = ctx.child("parent").spawnOn(0, x -> {
                for (int w = 0; w < x.workers(); w++) {
                    AtomicBoolean done = finals.get(w);
                    dev.lockstep.sync.OneShot<Boolean> began = kidsBegan.get(w);
                    synchronized (kids) {
                        kids.add(x.child("k" + w).spawnOn(w, y -> {
                            began.complete(true);
                            try {
                                return sleepForever(y);
                            } finally {
                                done.set(true);
                            }
                        }));
                    }
                }
                return sleepForever(x);
            });
            for (dev.lockstep.sync.OneShot<Boolean> began : kidsBegan) {
                began.get().await();
            }
            parent.abort();
            record(t, "abort parent: await", null, parent::await);
            record(t, "abort parent: children", null, () -> {
                StringBuilder s = new StringBuilder();
                List<Handle<Object>> copy;
                synchronized (kids) {
                    copy = new ArrayList<>(kids);
                }
                for (Handle<Object> kid : copy) {
                    s.append(outcome(null, kid::await)).append(',');
                }
                return copy.size() + ":" + s;
            });
            record(t, "abort parent: children finally ran", null, () -> finals.stream().allMatch(AtomicBoolean::get));

            // Handle.poll with a waker: woken once when the task finishes
            CountingWaker handleWaker = new CountingWaker();
            Handle<String> later = ctx.child("later").spawn(x -> { x.sleep(Duration.ofMillis(3)); return "l"; });
            record(t, "handle poll pending", null, () -> later.poll(handleWaker).isReady());
            record(t, "handle poll null waker pending", null, () -> later.poll(null).isReady());
            later.await();
            record(t, "handle waker after finish", null, handleWaker::toString);

            // Operation.poll with a waker, then close: the closing thread's own waker is released, not woken
            CountingWaker opWaker = new CountingWaker();
            Operation<Void> op = ctx.sleeper(Duration.ofHours(1));
            record(t, "op poll pending", null, () -> op.poll(opWaker).isReady());
            op.close();
            ctx.sleep(Duration.ofMillis(5)); // the release may be deferred to the worker's next turn
            record(t, "op waker after close", null, opWaker::toString);
            record(t, "op poll after close", null, () -> op.poll(Waker.noop()).get());
            record(t, "op await after close", null, op::await);
            op.close();
            // a waker polled on another worker's fiber, closed by this one: woken
            CountingWaker remoteWaker = new CountingWaker();
            Operation<Void> shared = ctx.sleeper(Duration.ofHours(1));
            ctx.child("poller").spawnOn(ctx.workers() - 1, x -> shared.poll(remoteWaker)).await();
            shared.close();
            ctx.sleep(Duration.ofMillis(5));
            record(t, "other party's waker after close", null, remoteWaker::toString);
            return t;
        });
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("checked: await", "ExitedException(IOException)+named");
        expected.put("checked: await again", "ExitedException(IOException)+named");
        expected.put("checked: same exception twice", "ok[true]");
        expected.put("Error: await", "ExitedException(AssertionError)+named");
        expected.put("own ClosedException: await", "ExitedException(ClosedException)");
        expected.put("value: await twice", "ok[vv]");
        expected.put("abort finished: await", "ok[v]");
        expected.put("abort sleeping: isDone before", "ok[false]");
        expected.put("abort sleeping: await", "ClosedException");
        expected.put("abort sleeping: finally ran", "ok[true]");
        expected.put("abort sleeping: poll", "ClosedException");
        expected.put("stubborn: await", "ClosedException");
        expected.put("stubborn: every later wait closed", "ok[3]");
        expected.put("abort awaiting: await", "ClosedException");
        expected.put("abort awaiting: grandchild", "ClosedException");
        expected.put("abort parent: await", "ClosedException");
        StringBuilder kids = new StringBuilder();
        for (int w = 0; w < rt.workers(); w++) {
            kids.append("ClosedException,");
        }
        expected.put("abort parent: children", "ok[" + rt.workers() + ":" + kids + "]");
        expected.put("abort parent: children finally ran", "ok[true]");
        expected.put("handle poll pending", "ok[false]");
        expected.put("handle poll null waker pending", "ok[false]");
        expected.put("handle waker after finish", "ok[retain=1 wake=1 release=0]");
        expected.put("op poll pending", "ok[false]");
        expected.put("op waker after close", "ok[retain=1 wake=0 release=1]");
        expected.put("op poll after close", "ClosedException");
        expected.put("op await after close", "ClosedException");
        expected.put("other party's waker after close", "ok[retain=1 wake=1 release=0]");
        ProbeTables.assertTable(rt, expected, actual);
    }

    /** The root returns while children sleep on every worker, one stubborn: start returns, every child is aborted. */
    @Conformance
    void probeRootReturnsWhileChildrenRun(Runtimes rt) {
        List<AtomicBoolean> finals = new ArrayList<>();
        List<Handle<Object>> handles = new ArrayList<>();
        AtomicInteger stubbornClosed = new AtomicInteger();
        AtomicReference<Handle<String>> finished = new AtomicReference<>();
        Object result = rt.runner().start(ctx -> {
            // Each child says it began: the root's end aborts them, and an abort before a body begins skips it.
            List<dev.lockstep.sync.OneShot<Boolean>> started = new ArrayList<>();
            for (int w = 0; w < ctx.workers(); w++) {
                AtomicBoolean done = new AtomicBoolean();
                finals.add(done);
                dev.lockstep.sync.OneShot<Boolean> began = new dev.lockstep.sync.OneShot<>();
                started.add(began);
                handles.add(ctx.child("k" + w).spawnOn(w, y -> {
                    began.complete(true);
                    try {
                        return sleepForever(y);
                    } finally {
                        done.set(true);
                    }
                }));
            }
            dev.lockstep.sync.OneShot<Boolean> stubbornBegan = new dev.lockstep.sync.OneShot<>();
            started.add(stubbornBegan);
            handles.add(ctx.child("stubborn").spawn(y -> {
                stubbornBegan.complete(true);
                for (int i = 0; i < 3; i++) {
                    try {
                        y.sleep(Duration.ofHours(1));
                    } catch (ClosedException aborted) {
                        stubbornClosed.incrementAndGet();
                    }
                }
                return "went on";
            }));
            Handle<String> quick = ctx.child("quick").spawn(y -> "q");
            quick.await();
            finished.set(quick);
            for (dev.lockstep.sync.OneShot<Boolean> began : started) {
                began.get().await();
            }
            return null;
        });
        Map<String, String> actual = new LinkedHashMap<>();
        actual.put("start returned", String.valueOf(result));
        actual.put("finally blocks ran", String.valueOf(finals.stream().allMatch(AtomicBoolean::get)));
        actual.put("stubborn later waits closed", String.valueOf(stubbornClosed.get()));
        StringBuilder s = new StringBuilder();
        for (Handle<Object> h : handles) {
            s.append(h.isDone()).append('/').append(outcome(null, h::await)).append(',');
        }
        actual.put("escaped handles awaited from the test thread", s.toString());
        actual.put("finished handle awaited from the test thread", outcome(null, () -> finished.get().await()));
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("start returned", "null");
        expected.put("finally blocks ran", "true");
        expected.put("stubborn later waits closed", "3");
        expected.put("escaped handles awaited from the test thread",
                "true/ClosedException,".repeat(rt.workers() + 1));
        expected.put("finished handle awaited from the test thread", "ok[q]");
        ProbeTables.assertTable(rt, expected, actual);
    }

    @Conformance
    void probeRootFailures(Runtimes rt) {
        Map<String, String> actual = new LinkedHashMap<>();
        AssertionError error = new AssertionError("root error");
        actual.put("root throws Error", outcome(null, () -> rt.runner().start(ctx -> { throw error; })));
        actual.put("root Error is the same instance", outcome(null, () -> {
            try {
                rt.runner().start(ctx -> { throw error; });
                return "returned";
            } catch (AssertionError thrown) {
                return thrown == error;
            }
        }));
        actual.put("root throws checked", outcome(null, () -> rt.runner().start(ctx -> { throw new IOException("x"); })));
        actual.put("root returns null", outcome(null, () -> rt.runner().start(ctx -> null)));
        actual.put("child Error, root goes on", outcome(null, () -> rt.runner().start(ctx -> {
            Handle<Object> h = ctx.child("e").spawnOn(ctx.workers() - 1, x -> { throw new StackOverflowError(); });
            return outcome(null, h::await);
        })));
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("root throws Error", "AssertionError");
        expected.put("root Error is the same instance", "ok[true]");
        expected.put("root throws checked", "ExitedException(IOException)");
        expected.put("root returns null", "ok");
        expected.put("child Error, root goes on", "ok[ExitedException(StackOverflowError)]");
        ProbeTables.assertTable(rt, expected, actual);
    }

    // -------------------------------------------------------------------------------------------------- stop

    @Conformance
    void probeStop(Runtimes rt) {
        Map<String, String> actual = rt.runner().start(ctx -> {
            Map<String, String> t = new LinkedHashMap<>();
            record(t, "stop with negative timeout", "PT-0.001S", () -> { ctx.stop(3, Duration.ofMillis(-1)); return null; });
            record(t, "signal after refused stop", null, () -> {
                try (Signal signal = ctx.stopped()) {
                    return String.valueOf(signal.poll());
                }
            });
            record(t, "stop with null code timeout ok", null, () -> "skipped");
            AtomicInteger holderSaw = new AtomicInteger(-1);
            dev.lockstep.sync.OneShot<Boolean> holding = new dev.lockstep.sync.OneShot<>();
            Handle<Object> ignorer = ctx.child("ignorer").spawnOn(ctx.workers() - 1, x -> {
                Signal signal = x.stopped();
                holding.complete(true);
                try {
                    holderSaw.set(signal.await());
                    return sleepForever(x); // ignores the stop: never closes its signal
                } finally {
                    signal.close();
                }
            });
            // The holder holds its signal before stop is called: awaited, not slept for (on another worker it
            // may start later than any fixed sleep).
            holding.get().await();
            record(t, "stop(7, 30ms) with a holder that ignores it", "7",
                    () -> { ctx.stop(7, Duration.ofMillis(30)); return null; });
            record(t, "holder saw", null, holderSaw::get);
            record(t, "stop(9, ZERO) later", null, () -> { ctx.stop(9, Duration.ZERO); return null; });
            record(t, "new signal's code", null, () -> { try (Signal s = ctx.stopped()) { return s.poll(); } });
            record(t, "stop(1, null) under a 20ms timeout", null, () -> ctx.timeout(Duration.ofMillis(20), () -> {
                ctx.stop(1, null); return "returned"; }));
            ignorer.abort();
            record(t, "ignorer aborted", null, ignorer::await);
            record(t, "stop(1, ZERO) once the holder went", null, () -> { ctx.stop(1, Duration.ZERO); return "ok"; });
            return t;
        });
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("stop with negative timeout", "IllegalArgumentException+named");
        expected.put("signal after refused stop", "ok[null]");
        expected.put("stop with null code timeout ok", "ok[skipped]");
        expected.put("stop(7, 30ms) with a holder that ignores it", "TimeoutException(TimeoutException)+named");
        expected.put("holder saw", "ok[7]");
        expected.put("stop(9, ZERO) later", "TimeoutException(TimeoutException)");
        expected.put("new signal's code", "ok[7]");
        expected.put("stop(1, null) under a 20ms timeout", "TimeoutException");
        expected.put("ignorer aborted", "ClosedException");
        expected.put("stop(1, ZERO) once the holder went", "ok[ok]");
        ProbeTables.assertTable(rt, expected, actual);
    }
    // ------------------------------------------------------------------------------------ bodies and escapes

    /** Timeout bodies that swallow the timeout and wait again; a task awaiting its own handle. */
    @Conformance
    void probeTimeoutBodies(Runtimes rt) {
        Map<String, String> actual = rt.runner().start(ctx -> {
            Map<String, String> t = new LinkedHashMap<>();
            record(t, "body swallows the timeout and waits again", null, () -> {
                Instant start = ctx.now();
                String inner = outcome(null, () -> ctx.timeout(Duration.ofSeconds(3), () -> ctx.timeout(
                        Duration.ofMillis(5), () -> {
                            try {
                                sleepForever(ctx);
                            } catch (TimeoutException swallowed) {
                                // and goes on waiting
                            }
                            ctx.sleep(Duration.ofHours(1));
                            return "slept an hour";
                        })));
                return inner + (Duration.between(start, ctx.now()).compareTo(Duration.ofSeconds(2)) < 0
                        ? " promptly" : " only by the outer");
            });
            record(t, "body swallows the timeout and returns", null, () -> ctx.timeout(Duration.ofMillis(5), () -> {
                try {
                    sleepForever(ctx);
                } catch (TimeoutException swallowed) {
                    return "swallowed";
                }
                return "woke";
            }));
            AtomicReference<Handle<String>> self = new AtomicReference<>();
            Handle<String> selfAwaiting = ctx.child("self").spawn(x -> {
                while (self.get() == null) {
                    x.sleep(Duration.ofMillis(1));
                }
                return outcome(null, () -> x.timeout(Duration.ofMillis(20), () -> self.get().await()));
            });
            self.set(selfAwaiting);
            record(t, "task awaits its own handle under 20ms", null, selfAwaiting::await);
            return t;
        });
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("body swallows the timeout and waits again", "ok[TimeoutException promptly]");
        expected.put("body swallows the timeout and returns", "ok[swallowed]");
        expected.put("task awaits its own handle under 20ms", "ok[TimeoutException]");
        ProbeTables.assertTable(rt, expected, actual);
    }

    /** What escapes the root, used from the test thread once start returned; each call bounded so none can hang. */
    @Conformance(leavesOpen = "an operation, a signal and contexts escape the root on purpose")
    void probeEscapesAfterStart(Runtimes rt) throws Exception {
        AtomicReference<Context> escaped = new AtomicReference<>();
        AtomicReference<Operation<Void>> escapedOp = new AtomicReference<>();
        AtomicReference<Signal> escapedSignal = new AtomicReference<>();
        AtomicReference<Handle<Object>> escapedHandle = new AtomicReference<>();
        rt.runner().start(ctx -> {
            escaped.set(ctx.child("later"));
            escapedOp.set(ctx.sleeper(Duration.ofHours(1)));
            Handle<Object> holder = ctx.child("holder").spawn(x -> {
                escapedSignal.set(x.stopped()); // never closed
                return sleepForever(x);
            });
            escapedHandle.set(holder);
            while (escapedSignal.get() == null) {
                ctx.sleep(Duration.ofMillis(1));
            }
            return null;
        });
        Map<String, String> actual = new LinkedHashMap<>();
        actual.put("escaped op poll", bounded(() -> escapedOp.get().poll(Waker.noop()).get()));
        actual.put("escaped op await", bounded(() -> escapedOp.get().await()));
        actual.put("escaped handle await", bounded(() -> escapedHandle.get().await()));
        actual.put("escaped signal poll", bounded(() -> escapedSignal.get().poll()));
        actual.put("escaped signal await", bounded(() -> escapedSignal.get().await()));
        actual.put("escaped signal as operation", bounded(() -> {
            try (Operation<Integer> op = escapedSignal.get().asOperation()) {
                return op.await();
            }
        }));
        actual.put("spawn from escaped context", bounded(() -> escaped.get().child("x").spawn(x -> "ran").await()));
        actual.put("spawnOn 99 from escaped context", bounded(() -> escaped.get().child("y").spawnOn(99, x -> "ran")));
        actual.put("stop(1, ZERO) from escaped context", bounded(() -> { escaped.get().stop(1, Duration.ZERO); return "returned"; }));
        actual.put("stop(1, null) from escaped context", bounded(() -> { escaped.get().stop(1, null); return "returned"; }));
        actual.put("escaped signal poll after", bounded(() -> escapedSignal.get().poll()));
        System.out.println(rt.config().displayName() + " escapes " + actual);
        for (Map.Entry<String, String> row : actual.entrySet()) {
            assertTrue(!row.getValue().equals("HUNG"), rt.config().displayName() + " " + row.getKey() + " hung: " + actual);
        }
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("escaped op poll", "ClosedException");
        expected.put("escaped op await", "ClosedException");
        expected.put("escaped handle await", "ClosedException");
        expected.put("escaped signal poll", "ok");
        expected.put("escaped signal await", "ClosedException");
        expected.put("escaped signal as operation", "ClosedException");
        expected.put("spawn from escaped context", "ClosedException");
        expected.put("spawnOn 99 from escaped context", "IllegalArgumentException");
        expected.put("stop(1, ZERO) from escaped context", "ClosedException");
        expected.put("stop(1, null) from escaped context", "ClosedException");
        expected.put("escaped signal poll after", "ok");
        ProbeTables.assertTable(rt, expected, actual);
    }

    /** Runs {@code call} on a plain thread, waiting at most 5 s: its outcome, or HUNG. */
    private static String bounded(Callable<?> call) throws InterruptedException {
        AtomicReference<String> result = new AtomicReference<>();
        Thread thread = Thread.ofPlatform().daemon().start(() -> result.set(outcome("99", call)));
        thread.join(5_000);
        return result.get() == null ? "HUNG" : result.get().replace("+named", "").replaceAll(" UNNAMED\\(.*", "");
    }

    /** runtime-uring allows plain threads during a run (the simulator refuses them, see SimRunner). */
    @Conformance
    void probePlainThreadDuringRun(Runtimes rt) {
        Map<String, String> actual = rt.runner().start(ctx -> {
            Map<String, String> t = new LinkedHashMap<>();
            Handle<String> child = ctx.child("slow").spawnOn(ctx.workers() - 1, x -> {
                x.sleep(Duration.ofMillis(30));
                return "done";
            });
            Handle<Object> sleeper = ctx.child("sleeper").spawn(x -> sleepForever(x));
            Operation<Void> timer = ctx.sleeper(Duration.ofMillis(20));
            dev.lockstep.sync.OneShot<Map<String, String>> report = new dev.lockstep.sync.OneShot<>();
            if (rt.isSim()) {
                Map<String, String> refused = new LinkedHashMap<>();
                refused.put("plain thread awaits a handle", "IllegalStateException");
                report.complete(refused);
            } else {
                Thread.ofPlatform().daemon().start(() -> {
                    Map<String, String> seen = new LinkedHashMap<>();
                    seen.put("plain thread awaits a handle", outcome(null, child::await));
                    seen.put("plain thread awaits it again", outcome(null, child::await));
                    seen.put("plain thread awaits an operation", outcome(null, timer::await));
                    seen.put("plain thread aborts a task", outcome(null, () -> { sleeper.abort(); return sleeper.await(); }));
                    report.complete(seen);
                });
            }
            try (Operation<Map<String, String>> got = report.get()) {
                t.putAll(ctx.timeout(Duration.ofSeconds(20), got::await));
            }
            timer.close();
            sleeper.abort();
            return t;
        });
        Map<String, String> expected = new LinkedHashMap<>();
        if (rt.isSim()) {
            expected.put("plain thread awaits a handle", "IllegalStateException");
        } else {
            expected.put("plain thread awaits a handle", "ok[done]");
            expected.put("plain thread awaits it again", "ok[done]");
            expected.put("plain thread awaits an operation", "ok");
            expected.put("plain thread aborts a task", "ClosedException");
        }
        ProbeTables.assertTable(rt, expected, actual);
    }
}
