package dev.lockstep.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.ClosedException;
import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import dev.lockstep.Operation;
import dev.lockstep.Signal;
import dev.lockstep.TimeoutException;
import dev.lockstep.sync.Channel;
import dev.lockstep.sync.Either;
import dev.lockstep.sync.Futures;
import dev.lockstep.sync.Join;
import dev.lockstep.sync.Lease;
import dev.lockstep.sync.Mutex;
import dev.lockstep.sync.OneShot;
import dev.lockstep.sync.Select;
import dev.lockstep.sync.Selected;
import dev.lockstep.sync.Semaphore;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The task primitives of {@code dev.lockstep.sync} on every runtime: producers and consumers on every worker
 * through one channel, a mutex held across awaits by fibers of different workers, a semaphore bounding
 * concurrency, a one-shot value, a join, a server racing {@code accept()} against its stop signal, a receive raced
 * against a sleeper, a lock wait bounded by {@code Clock.timeout}, an aborted waiter leaving the line, and the
 * {@code CompletableFuture} adapters.
 */
@Group(ReadmeGroup.SYNC)
class SyncConformanceTest {
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    private static <T> Handle<T> on(Context ctx, String label, int worker, dev.lockstep.Task<T> body) {
        return ctx.child(label).spawnOn(worker % ctx.workers(), body);
    }

    @Conformance
    void aChannelCarriesEveryValueOnceFromProducersOnEveryWorker(Runtimes rt) {
        int producers = 4;
        int each = 200;
        List<List<Integer>> perConsumer = rt.runner().start(ctx -> {
            Channel<Integer> channel = Channel.bounded(4);
            List<Handle<Void>> senders = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                int base = p * each;
                senders.add(on(ctx, "producer" + p, p, c -> {
                    for (int i = 0; i < each; i++) {
                        channel.send(base + i).await();
                        if (i % 50 == 0) {
                            c.sleep(Duration.ofMillis(1));
                        }
                    }
                    return null;
                }));
            }
            List<Handle<List<Integer>>> receivers = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                receivers.add(on(ctx, "consumer" + r, r + 1, c -> {
                    List<Integer> mine = new ArrayList<>();
                    while (true) {
                        try {
                            mine.add(channel.receive().await());
                        } catch (ClosedException drained) {
                            return mine;
                        }
                    }
                }));
            }
            Join.all(senders).await();
            channel.close();
            return Join.all(receivers).await();
        });
        List<Integer> all = new ArrayList<>();
        for (List<Integer> mine : perConsumer) {
            all.addAll(mine);
            // Values of one producer reach one consumer in the order they were sent.
            for (int p = 0; p < producers; p++) {
                int base = p * each;
                List<Integer> fromP = mine.stream().filter(v -> v >= base && v < base + each).toList();
                assertEquals(fromP.stream().sorted().toList(), fromP, "order of producer " + p);
            }
        }
        assertEquals(producers * each, all.size());
        assertEquals(producers * each, all.stream().distinct().count());
    }

    @Conformance
    void aMutexExcludesFibersOfEveryWorkerAcrossAwaits(Runtimes rt) {
        int fibers = 6;
        int rounds = 20;
        int[] overlaps = rt.runner().start(ctx -> {
            Mutex mutex = new Mutex();
            int[] state = new int[2]; // [inside, overlaps]; guarded by the mutex itself
            List<Handle<Void>> all = new ArrayList<>();
            for (int f = 0; f < fibers; f++) {
                all.add(on(ctx, "fiber" + f, f, c -> {
                    for (int i = 0; i < rounds; i++) {
                        try (Lease held = mutex.lock().await()) {
                            state[0]++;
                            if (state[0] != 1) {
                                state[1]++;
                            }
                            c.sleep(Duration.ofMillis(1)); // held across an await
                            state[0]--;
                        }
                    }
                    return null;
                }));
            }
            Join.all(all).await();
            assertFalse(mutex.isLocked());
            return state;
        });
        assertEquals(0, overlaps[0]);
        assertEquals(0, overlaps[1]);
    }

    @Conformance
    void aSemaphoreBoundsHowManyRunAtOnce(Runtimes rt) {
        int most = rt.runner().start(ctx -> {
            Semaphore slots = new Semaphore(2);
            int[] counts = new int[2]; // [running, most]
            Mutex guard = new Mutex();
            List<Handle<Void>> all = new ArrayList<>();
            for (int f = 0; f < 6; f++) {
                all.add(on(ctx, "job" + f, f, c -> {
                    try (Lease slot = slots.acquire().await()) {
                        try (Lease g = guard.lock().await()) {
                            counts[0]++;
                            counts[1] = Math.max(counts[1], counts[0]);
                        }
                        c.sleep(Duration.ofMillis(2));
                        try (Lease g = guard.lock().await()) {
                            counts[0]--;
                        }
                    }
                    return null;
                }));
            }
            Join.all(all).await();
            assertEquals(2, slots.available());
            return counts[1];
        });
        assertTrue(most >= 1 && most <= 2, "at most two at once, saw " + most);
    }

    @Conformance
    void aOneShotReachesWaitersOnEveryWorker(Runtimes rt) {
        List<String> got = rt.runner().start(ctx -> {
            OneShot<String> ready = new OneShot<>();
            List<Handle<String>> waiters = new ArrayList<>();
            for (int w = 0; w < 3; w++) {
                waiters.add(on(ctx, "waiter" + w, w, c -> ready.get().await()));
            }
            ctx.sleep(Duration.ofMillis(1));
            on(ctx, "setter", 1, c -> ready.complete("go")).await();
            return Join.all(waiters).await();
        });
        assertEquals(List.of("go", "go", "go"), got);
    }

    @Conformance
    void aServerRacesAcceptAgainstItsStopSignal(Runtimes rt) {
        int served = rt.runner().start(ctx -> {
            Listener listener = ctx.bind(ANY_PORT).await();
            InetSocketAddress address = listener.localAddress();
            Handle<Integer> server = ctx.child("server").spawn(s -> {
                int count = 0;
                try (Signal stop = s.stopped(); listener) {
                    while (true) {
                        Selected<Object> next = Select.<Object>first(listener.accept(), stop.asOperation()).await();
                        if (next.index() == 1) {
                            return count;
                        }
                        try (Connection connection = (Connection) next.value()) {
                            connection.sink().send(new byte[] {(byte) count}).await();
                        }
                        count++;
                    }
                }
            });
            for (int i = 0; i < 3; i++) {
                try (Connection client = on(ctx, "client" + i, i, c -> c.dial(address).await()).await()) {
                    assertEquals(i, client.stream().recv(1).await()[0]);
                }
            }
            // The stop wins the race while no dial is pending; stop waits for the server to close its signal.
            ctx.child("stopper").spawn(c -> {
                c.stop(0, Duration.ofSeconds(10));
                return null;
            });
            return server.await();
        });
        assertEquals(3, served);
    }

    /** The same race typed: {@code Select.either} gives the side that won, no witness, no cast. */
    @Conformance
    void aTypedTwoWayRaceOfAReceiveAndASleeper(Runtimes rt) {
        String result = rt.runner().start(ctx -> {
            Channel<String> channel = Channel.bounded(1);
            Either<String, Void> first = Select.either(channel.receive(), ctx.sleeper(Duration.ofMillis(5))).await();
            assertTrue(first instanceof Either.Second<String, Void>, "nothing was sent: the sleeper wins, was " + first);
            assertTrue(channel.trySend("later"), "the losing receive left the line");
            String received = switch (Select.either(channel.receive(), ctx.sleeper(Duration.ofSeconds(60))).await()) {
                case Either.First<String, Void>(String value) -> value;
                case Either.Second<String, Void> timedOut -> "timed out";
            };
            assertThrows(NullPointerException.class, () -> Select.either(null, ctx.sleeper(Duration.ZERO)));
            // Closing the race closes both: the receive leaves the line, so the value stays in the channel.
            Operation<Either<String, Void>> closed = Select.either(channel.receive(), ctx.sleeper(Duration.ofSeconds(60)));
            closed.close();
            assertThrows(ClosedException.class, closed::await);
            return received;
        });
        assertEquals("later", result);
    }

    @Conformance
    void aReceiveRacedAgainstASleeperLosesCleanlyAndTheChannelKeepsItsValue(Runtimes rt) {
        String result = rt.runner().start(ctx -> {
            Channel<String> channel = Channel.bounded(1);
            Selected<Object> first = Select.<Object>first(channel.receive(), ctx.sleeper(Duration.ofMillis(5)))
                    .await();
            assertEquals(1, first.index()); // nothing was sent: the sleeper wins
            assertTrue(channel.trySend("later")); // the losing receive left the line
            Selected<Object> second = Select.<Object>first(channel.receive(), ctx.sleeper(Duration.ofSeconds(60)))
                    .await();
            assertEquals(0, second.index());
            return (String) second.value();
        });
        assertEquals("later", result);
    }

    @Conformance
    void aLockWaitBoundedByATimeoutLeavesTheLine(Runtimes rt) {
        boolean freeAtEnd = rt.runner().start(ctx -> {
            Mutex mutex = new Mutex();
            Lease held = mutex.lock().await();
            assertThrows(TimeoutException.class,
                    () -> ctx.timeout(Duration.ofMillis(5), () -> mutex.lock().await()));
            Handle<String> waiter = on(ctx, "waiter", 1, c -> {
                try (Lease mine = mutex.lock().await()) {
                    return "got it";
                }
            });
            ctx.sleep(Duration.ofMillis(1));
            held.close(); // the timed-out wait is gone: the waiter is next
            assertEquals("got it", waiter.await());
            return !mutex.isLocked();
        });
        assertTrue(freeAtEnd);
    }

    @Conformance
    void anAbortedReceiverLeavesTheLine(Runtimes rt) {
        String result = rt.runner().start(ctx -> {
            Channel<String> channel = Channel.bounded(1);
            Handle<String> doomed = on(ctx, "doomed", 1, c -> channel.receive().await());
            ctx.sleep(Duration.ofMillis(1));
            doomed.abort();
            assertThrows(ClosedException.class, doomed::await);
            channel.send("for the next one").await();
            return channel.receive().await();
        });
        assertEquals("for the next one", result);
    }

    @Conformance
    void futuresAdaptOperationsBothWays(Runtimes rt) {
        String result = rt.runner().start(ctx -> {
            CompletableFuture<Void> slept = Futures.toFuture(ctx.sleeper(Duration.ofMillis(2)));
            CompletableFuture<String> then = slept.thenApply(nothing -> "after the sleep");
            Operation<String> back = Futures.fromFuture(then);
            String value = back.await();
            CompletableFuture<String> set = new CompletableFuture<>();
            Handle<String> waiter = on(ctx, "waiter", 1, c -> Futures.fromFuture(set).await());
            ctx.sleep(Duration.ofMillis(1));
            set.complete(" and a value set by a task");
            return value + waiter.await();
        });
        assertEquals("after the sleep and a value set by a task", result);
    }
}
