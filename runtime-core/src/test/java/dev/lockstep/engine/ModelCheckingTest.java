package dev.lockstep.engine;

import static dev.lockstep.ModelChecks.check;
import static dev.lockstep.ModelChecks.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Reentrant;
import dev.lockstep.ClosedException;
import dev.lockstep.Connection;
import dev.lockstep.Listener;
import dev.lockstep.Operation;
import dev.lockstep.Poll;
import dev.lockstep.Waker;
import dev.lockstep.engine.io.ConnectionSides;
import dev.lockstep.engine.io.DurabilityPermit;
import dev.lockstep.engine.io.SharedFd;
import dev.lockstep.engine.request.Registration;
import dev.lockstep.engine.request.Request;
import dev.lockstep.engine.request.ResultChannel;
import dev.lockstep.engine.request.WaiterId;
import dev.lockstep.engine.task.StopState;
import dev.lockstep.engine.task.Supervision;
import dev.lockstep.engine.task.TaskHandle;
import dev.lockstep.engine.task.WaitList;
import dev.lockstep.engine.worker.Mailbox;
import dev.lockstep.engine.worker.Worker;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The engine's small cross-thread pieces under Lincheck's model checker: each test runs two or three threads
 * over one fresh object, and Lincheck explores their interleavings (switching threads at every shared access)
 * looking for one that breaks what the test asserts afterwards. A failure prints the interleaving. No scenario
 * parks (polls and closes only), so every interleaving terminates.
 *
 * <p>What each piece promises is written at its class; the assertions here are those promises.
 *
 * <p>Timeout: Lincheck instruments every class a scenario meets, on first contact, and detects a hung
 * interleaving itself (30 s). On a loaded 2-core machine that instrumentation alone took the first scenario
 * past the 60 s default (71 s, then 50 s for the whole class on the next run), so the class allows 300 s: a
 * bound on a hang, not on speed.
 */
@Timeout(300)
public class ModelCheckingTest {
    /**
     * Interleavings explored per test. These scenarios have two or three threads and a handful of shared
     * accesses each. At these counts each scenario found the race it was checked against, with that race put
     * back: the two-flag connection sides (double release, a shutdown after the close), a take that does not
     * re-check for a close after {@code retain()} (the lost wake-up that {@link ResultChannel#poll}'s re-check prevents), a take that
     * does not mark its value taken, and a receiver close that releases another thread's waker.
     */
    private static final int INVOCATIONS = 40;
    /**
     * Scenarios over whole workers (a service turn, a driver each) cost more per run, and their races sit deeper:
     * the durability permit taken by a get and a set instead of one compare-and-set was found from 300
     * interleavings on (not at 20, 100 or 200), and a take that does not re-check for a close after {@code
     * retain()} by the foreign-awaiter scenario from 100 on (the dedicated scenario above finds it at 40).
     */
    private static final int WORKER_INVOCATIONS = 400;

    private static boolean isClosed(Poll<?> poll) {
        try {
            poll.get();
            return false;
        } catch (ClosedException closed) {
            return true;
        }
    }

    /**
     * The sink closes twice (the task's close and the run's end) while the stream closes and a request holds a
     * reference: the fd is not closed under the request, the socket is shut down once, and the last reference
     * closes it once.
     */
    @Test
    void connectionSidesReleaseTheFdExactlyOnce() {
        check(INVOCATIONS, () -> {
            CountingSystemCalls system = new CountingSystemCalls();
            SharedFd fd = new SharedFd(40, system, "connection");
            ConnectionSides sides = new ConnectionSides(fd, null, system);
            SharedFd request = fd.acquire();
            run(sides::closeSink, () -> sides.closeSide(ConnectionSides.STREAM), sides::closeSink);
            assertEquals(0, system.closes.get(), "the fd closed while a request held it");
            assertEquals(1, system.shutdowns.get(), "the sink shut the socket down once");
            request.release();
            assertEquals(1, system.closes.get(), "the last reference closed the fd once");
        });
    }

    /**
     * The same closes with no request in flight, so the fd closes during the scenario: no shutdown ever reaches
     * the number after that close (the kernel may have handed it to another file by then).
     */
    @Test
    void theSinksShutdownNeverReachesAClosedFd() {
        check(INVOCATIONS, () -> {
            CountingSystemCalls system = new CountingSystemCalls();
            SharedFd fd = new SharedFd(42, system, "connection");
            ConnectionSides sides = new ConnectionSides(fd, null, system);
            run(sides::closeSink, () -> sides.closeSide(ConnectionSides.STREAM), sides::closeSink);
            assertEquals(0, system.shutdownsAfterClose.get(), "a shutdown reached the fd number after its close");
            assertEquals(1, system.closes.get(), "the fd closed once");
            assertFalse(fd.isOpen());
        });
    }

    /** A reference taken while the owner lets go either keeps the fd open or is refused; one close either way. */
    @Test
    void sharedFdClosesOnceAndNeverUnderAReference() {
        check(INVOCATIONS, () -> {
            CountingSystemCalls system = new CountingSystemCalls();
            SharedFd fd = new SharedFd(41, system, "blob");
            boolean[] heldOpen = {true};
            run(fd::release, () -> {
                if (fd.tryAcquire()) {
                    heldOpen[0] = system.closes.get() == 0;
                    fd.release();
                }
            });
            assertTrue(heldOpen[0], "the fd closed while a reference was held");
            assertEquals(1, system.closes.get());
            assertFalse(fd.isOpen());
            assertThrows(ClosedException.class, fd::acquire);
        });
    }

    /**
     * A value sent while the receiver takes it: no lost wake-up (a pending take's waker is woken), the value is
     * handed out once, and every retained waker copy is consumed exactly once.
     */
    @Test
    void oneShotDeliversOnceAndLosesNoWakeUp() {
        check(INVOCATIONS, () -> {
            ResultChannel<Integer> channel = new ResultChannel<>("closed");
            Reentrant callbacks = new Reentrant(Support::criticalSection);
            AtomicReference<Poll<Integer>> first = new AtomicReference<>();
            run(() -> channel.send(Poll.ready(7)), () -> first.set(channel.take(callbacks.waker())));
            int delivered = first.get().isReady() ? 1 : 0;
            if (delivered == 0) {
                assertEquals(1, callbacks.wakes(), "the pending take's waker was woken by the send");
            }
            Poll<Integer> again = channel.take(callbacks.waker());
            if (!isClosed(again)) {
                delivered++;
            }
            assertEquals(1, delivered, "the value was handed out exactly once");
            channel.closeReceiver();
            callbacks.assertBalanced();
        });
    }

    /**
     * A task handle finished twice at once (the task's own end and an abort of it, as a worker thread may) while a
     * third thread polls it with a waker: it has one outcome, which every later read returns; a poll that found it
     * pending had its waker woken, once; whatever the poll stored is consumed exactly once (woken, or released when
     * the poll found the outcome after listing it). What the simulator's loop relies on when it reads
     * {@code isDone} without a lock, and {@link dev.lockstep.Waker}'s contract.
     */
    @Test
    void aTaskFinishedTwiceHasOneOutcomeAndWakesItsPoller() {
        // 400: a finish that reads the outcome and then sets it (no compare-and-set) shows only when the second
        // finisher stops between its read and its write while the poll runs in between; found from 400, not at 40.
        check(10 * INVOCATIONS, () -> {
            TaskHandle<Integer> handle = new TaskHandle<>(null, null, "task");
            Reentrant callbacks = new Reentrant(Support::criticalSection);
            AtomicReference<Poll<Integer>> polled = new AtomicReference<>();
            run(() -> handle.succeed(7), () -> handle.closed("was aborted"),
                    () -> polled.set(handle.poll(callbacks.waker())));
            assertTrue(handle.isDone(), "finished: done");
            Poll<Integer> outcome = handle.outcome();
            if (!isClosed(outcome)) {
                assertEquals(7, outcome.get());
            }
            assertSame(outcome, handle.poll(callbacks.waker()), "every later read gives the one outcome");
            if (polled.get().isReady()) {
                assertSame(outcome, polled.get(), "the poll saw the one outcome");
            } else {
                assertEquals(1, callbacks.wakes(), "the pending poll's waker was woken once");
            }
            callbacks.assertBalanced();
        });
    }

    /**
     * Two parties poll a handle while its task finishes: a handle makes its waiters' lists at the first poll, so
     * both polls may make them at once. Each poll sees the outcome, or its waker is woken once by the finish: a
     * second set of lists replacing the first (a plain write where a compare-and-exchange belongs) would leave one
     * waker listed where the finish never looks.
     */
    @Test
    void twoPollersRacingTheFinishEachSeeTheOutcomeOrAreWoken() {
        check(10 * INVOCATIONS, () -> {
            TaskHandle<Integer> handle = new TaskHandle<>(null, null, "task");
            Reentrant first = new Reentrant(Support::criticalSection);
            Reentrant second = new Reentrant(Support::criticalSection);
            AtomicReference<Poll<Integer>> firstPolled = new AtomicReference<>();
            AtomicReference<Poll<Integer>> secondPolled = new AtomicReference<>();
            run(() -> handle.succeed(7), () -> firstPolled.set(handle.poll(first.waker())),
                    () -> secondPolled.set(handle.poll(second.waker())));
            assertEquals(7, handle.outcome().get());
            // A poll that saw the outcome at its re-check may still have been woken, once, by the finish that took
            // its copy first; a pending poll must have been woken once.
            assertTrue(firstPolled.get().isReady() ? first.wakes() <= 1 : first.wakes() == 1,
                    "the first poll's waker was woken " + first.wakes() + " times");
            assertTrue(secondPolled.get().isReady() ? second.wakes() <= 1 : second.wakes() == 1,
                    "the second poll's waker was woken " + second.wakes() + " times");
            first.assertBalanced();
            second.assertBalanced();
        });
    }

    /**
     * The receiver's close racing a take whose waker is being installed (the install lets the monitor go while
     * {@code retain()} runs): the take reads the close, or its installed waker is woken by the close. Either way
     * the awaiter does not park for good, and the retained copy is consumed once.
     */
    @Test
    void aCloseRacingAWakerInstallIsNeverLost() {
        check(INVOCATIONS, () -> {
            ResultChannel<Integer> channel = new ResultChannel<>("closed");
            Reentrant callbacks = new Reentrant(Support::criticalSection);
            AtomicReference<Poll<Integer>> taken = new AtomicReference<>();
            run(() -> taken.set(channel.take(callbacks.waker())), channel::closeReceiver);
            if (taken.get().isReady()) {
                assertTrue(isClosed(taken.get()), "a closed channel hands out no value");
            } else {
                assertEquals(1, callbacks.wakes(), "the take is pending, and the close never woke its waker");
            }
            assertTrue(isClosed(channel.take(callbacks.waker())), "after the close every take reads closed");
            callbacks.assertBalanced();
        });
    }

    /** A listener that only counts its closes: a value that holds a resource. */
    private static final class CountingListener implements Listener {
        final AtomicInteger closes = new AtomicInteger();

        @Override
        public Operation<Connection> accept() {
            throw new UnsupportedOperationException("not part of this test");
        }

        @Override
        public InetSocketAddress localAddress() {
            throw new UnsupportedOperationException("not part of this test");
        }

        @Override
        public void close() {
            closes.incrementAndGet();
        }
    }

    /**
     * Two takes and the receiver's close racing for one sent resource: it goes to exactly one of them — one
     * take gets it (and owns it), or the close disposes of it — never to two takes, never to nobody.
     */
    @Test
    void oneShotHandsAResourceToExactlyOneParty() {
        check(INVOCATIONS, () -> {
            ResultChannel<Listener> channel = new ResultChannel<>("closed");
            CountingListener listener = new CountingListener();
            channel.send(Poll.ready(listener));
            AtomicInteger taken = new AtomicInteger();
            Runnable taker = () -> {
                Poll<Listener> poll = channel.take(Waker.noop());
                if (poll.isReady() && !isClosed(poll)) {
                    taken.incrementAndGet();
                }
            };
            run(taker, taker, channel::closeReceiver);
            assertTrue(taken.get() <= 1, "handed to " + taken.get() + " takes");
            assertEquals(1, taken.get() + listener.closes.get(),
                    "taken " + taken.get() + " times and closed " + listener.closes.get() + " times");
        });
    }

    /**
     * Sends racing the owner's close: a message accepted before the close is drained by the owner, a send
     * after it is refused, and every accepted message woke the owner. The owner closes and then drains once, as
     * a retiring worker does ({@code Worker}'s retire and shutdown): a message accepted after that drain would
     * never be answered (a forwarded poll's channel left open, its awaiter parked for good), so the owner's own
     * drain must have taken every accepted message.
     */
    @Test
    void mailboxDrainsEveryAcceptedMessageAndRefusesTheRest() {
        check(INVOCATIONS, () -> {
            AtomicInteger wakes = new AtomicInteger();
            Mailbox mailbox = new Mailbox(wakes::incrementAndGet);
            AtomicInteger accepted = new AtomicInteger();
            AtomicInteger drainedByOwner = new AtomicInteger();
            Runnable sender = () -> {
                if (mailbox.send(new Mailbox.Cancel(new WaiterId(0, 0)))) {
                    accepted.incrementAndGet();
                }
            };
            run(sender, sender, () -> {
                mailbox.close();
                while (mailbox.poll() != null) {
                    drainedByOwner.incrementAndGet();
                }
            });
            assertEquals(accepted.get(), drainedByOwner.get(),
                    "every accepted message was drained by the owner's last drain, nothing else");
            assertTrue(mailbox.isEmpty(), "a message was left in the closed mailbox");
            assertEquals(accepted.get(), wakes.get(), "every accepted message woke the owner");
            assertFalse(mailbox.send(new Mailbox.Cancel(new WaiterId(0, 0))), "a closed mailbox refuses");
        });
    }

    /**
     * Two workers whose syncs wait for the permit (each registers as a waiter, then tries the permit) while the
     * holder releases it: either a worker's try takes the permit, or the release nudges the worker. No lost
     * wake-up, and the permit is never held twice.
     */
    @Test
    void durabilityPermitLosesNoWakeUp() {
        check(WORKER_INVOCATIONS, () -> {
            DurabilityPermit permit = new DurabilityPermit();
            CountingRing firstRing = new CountingRing();
            CountingRing secondRing = new CountingRing();
            Worker first = new Worker(0, null, firstRing);
            Worker second = new Worker(1, null, secondRing);
            assertTrue(permit.tryAcquire(), "the holder took the free permit");
            boolean[] took = new boolean[2];
            run(permit::release, () -> {
                permit.addWaiter(first);
                took[0] = permit.tryAcquire();
            }, () -> {
                permit.addWaiter(second);
                took[1] = permit.tryAcquire();
            });
            assertFalse(took[0] && took[1], "the permit was held twice");
            if (!took[0] && !took[1]) {
                // Both tries saw it held, so both registrations came before the release, which saw them.
                assertTrue(firstRing.wakes.get() > 0 && secondRing.wakes.get() > 0,
                        "a worker waits for a released permit without a nudge");
            } else {
                // One worker holds it now; the other is nudged at the latest when that worker releases it.
                permit.release();
                CountingRing other = took[0] ? secondRing : firstRing;
                assertTrue(other.wakes.get() > 0, "the worker still waiting was never nudged");
            }
        });
    }

    /** An immediate request that counts its releases (it must be released exactly once). */
    private static final class CountedRequest extends Request {
        final AtomicInteger releases = new AtomicInteger();

        @Override
        public Kind kind() {
            return Kind.IMMEDIATE;
        }

        @Override
        public void runImmediate() {
            succeed(5);
        }

        @Override
        public void release(dev.lockstep.kernel.Ring ring) {
            releases.incrementAndGet();
        }

        @Override
        public String describe() {
            return "counted request";
        }
    }

    private static Registration<Integer> registerOn(Worker worker, Request request) {
        Worker previous = Worker.enter(worker);
        try {
            return worker.register(request);
        } finally {
            Worker.enter(previous);
        }
    }

    private static int admitted(Worker worker) {
        Worker previous = Worker.enter(worker);
        try {
            return worker.admitted();
        } finally {
            Worker.enter(previous);
        }
    }

    /**
     * A registration ending (its listed copy removed) while the condition comes true (every listed copy woken): the
     * copy is consumed exactly once, by the wake or by the remove's release, and remove says which; a neighbour's
     * copy is woken. What {@link WaitList} promises its users (a task handle closed as the task finishes, a stop
     * poll closed as the runtime stops): a copy taken off the list under the lock is the taker's alone.
     */
    @Test
    void aRemoveRacingAWakeOfTheListConsumesTheCopyOnce() {
        check(INVOCATIONS, () -> {
            WaitList list = new WaitList();
            Reentrant leaving = new Reentrant(Support::criticalSection);
            Reentrant staying = new Reentrant(Support::criticalSection);
            Waker leavingCopy = list.add(leaving.waker());
            list.add(staying.waker());
            java.util.concurrent.atomic.AtomicBoolean removed = new java.util.concurrent.atomic.AtomicBoolean();
            run(() -> removed.set(list.remove(leavingCopy)), list::wakeAll);
            assertEquals(removed.get() ? 1 : 0, leaving.releases(), "released only by the remove that took it");
            assertEquals(removed.get() ? 0 : 1, leaving.wakes(), "woken only if the remove did not take it");
            assertEquals(1, staying.wakes());
            assertFalse(list.isListed(leavingCopy));
            leaving.assertBalanced();
            staying.assertBalanced();
        });
    }

    /**
     * Two parties polling one operation with equivalent wakers at once (a task handle's direct polls): one copy is
     * listed and both are told it, the other retained copy is released, and a wake of the list wakes once.
     */
    @Test
    void twoEquivalentPollersAtOnceListOneCopy() {
        check(INVOCATIONS, () -> {
            WaitList list = new WaitList();
            Reentrant poller = new Reentrant(Support::criticalSection);
            AtomicReference<Waker> first = new AtomicReference<>();
            AtomicReference<Waker> second = new AtomicReference<>();
            run(() -> first.set(list.addUnlessEquivalent(poller.waker())),
                    () -> second.set(list.addUnlessEquivalent(poller.waker())));
            assertSame(first.get(), second.get(), "both pollers hold the one listed copy");
            assertTrue(list.isListed(first.get()));
            assertEquals(1, poller.outstanding(), "one stored copy, the other released");
            list.wakeAll();
            assertEquals(1, poller.wakes());
            poller.assertBalanced();
        });
    }

    /**
     * The runtime's stop racing a poll of the stop as an operation: the poll reads the code, or its waker is woken
     * once, and the first code stays. What a root task that selects on stop relies on ({@link StopState}: the
     * condition is checked, the waker listed, the condition checked again; the stop records its code and then wakes
     * the list).
     */
    @Test
    void aStopRacingAPollOfItIsNeverLost() {
        check(INVOCATIONS, () -> {
            StopState stop = new StopState();
            dev.lockstep.Operation<Integer> stopped = stop.signal().asOperation();
            Reentrant callbacks = new Reentrant(Support::criticalSection);
            AtomicReference<Poll<Integer>> polled = new AtomicReference<>();
            run(() -> stop.stop(3), () -> polled.set(stopped.poll(callbacks.waker())));
            if (polled.get().isReady()) {
                assertEquals(3, polled.get().get());
            } else {
                assertEquals(1, callbacks.wakes(), "the pending poll of the stop was woken once");
            }
            stop.stop(4); // after the check above: a second stop wakes the list again, which would hide a lost wake
            assertEquals(3, stop.code(), "the first code stays");
            stopped.close();
            callbacks.assertBalanced();
        });
    }

    /**
     * One signal closed by two threads at once is released once: the runtime drains, and no other signal's hold is
     * lost.
     */
    @Test
    void aSignalClosedTwiceAtOnceReleasesOnce() {
        check(INVOCATIONS, () -> {
            StopState stop = new StopState();
            dev.lockstep.Signal signal = stop.signal();
            dev.lockstep.Signal other = stop.signal();
            run(signal::close, signal::close);
            assertFalse(stop.drained(), "the other signal still holds the runtime");
            other.close();
            assertTrue(stop.drained(), "every signal released, once");
        });
    }

    /**
     * A spawn counting its fiber on a worker while the worker's thread decides whether to end, as {@code
     * TaskFibers.start} and {@code ThreadedRunner}'s loop make them ({@link Worker#countFiber}, {@link
     * Worker#closeIfNoFibers}): never both a counted fiber and an ended thread (the fiber would be queued to nobody
     * and never run); a spawn that backs off leaves nothing counted, and nudges the worker in case it stayed for
     * it. With the spawn's look at {@code closing} before its count, or the thread's look at the count before it
     * marks itself closing, the scenario fails.
     */
    @Test
    void aFiberCountedWhileItsWorkerEndsIsRunOrRefusedNeverLost() {
        check(INVOCATIONS, () -> {
            CountingRing ring = new CountingRing();
            Worker worker = new Worker(0, null, ring);
            boolean[] counted = new boolean[1];
            boolean[] ended = new boolean[1];
            run(() -> counted[0] = worker.countFiber(),
                    () -> ended[0] = worker.liveFibers() == 0 && worker.closeIfNoFibers());
            assertFalse(counted[0] && ended[0], "a fiber counted on a worker whose thread ended would never run");
            assertEquals(counted[0] ? 1 : 0, worker.liveFibers(), "a spawn that backed off left its count");
            if (!counted[0]) {
                assertTrue(ring.wakes.get() >= 1, "a spawn that backed off did not nudge the worker");
            }
        });
    }

    /**
     * A spawn racing an abort of its supervisor, as {@code TaskFibers.start} makes it: a child node, the task set
     * on it, then a look at whether it is aborted. Whichever the order, the task never runs unaborted under an
     * aborted node: either the spawn's look sees the abort (and the engine closes the handle without starting it),
     * or the abort found the task on the node and closed it. What {@link Supervision} answers for: a child made
     * under an aborted parent is aborted, an abort marks every node below it, and the task is set under the tree's
     * lock.
     */
    @Test
    void aSpawnRacingItsSupervisorsAbortNeverRunsUnaborted() {
        check(INVOCATIONS, () -> {
            Supervision supervision = new Supervision();
            Supervision.Node parent = supervision.child(supervision.root());
            TaskHandle<Integer> handle = new TaskHandle<>(null, null, "child");
            AtomicReference<Supervision.Node> spawned = new AtomicReference<>();
            boolean[] sawAbort = new boolean[1];
            run(() -> {
                Supervision.Node node = supervision.child(parent);
                node.setTask(handle);
                sawAbort[0] = node.isAborted();
                spawned.set(node);
            }, () -> supervision.abort(parent));
            assertTrue(spawned.get().isAborted(), "the child of an aborted node is aborted");
            assertTrue(sawAbort[0] || handle.isDone(),
                    "the spawn saw no abort and the abort did not reach its task: it would run unaborted");
        });
    }

    /**
     * Registration close versus forward, across threads: a plain thread awaits an operation of a worker (its
     * poll publishes a channel and forwards it) while another plain thread closes it — the volatile
     * write-then-read pairs argued at {@link Registration}. The awaiter's poll reads the close, or its waker is
     * woken: it never stays parked on a closed operation, and it learns so at once, before the owner's next turn.
     * (The owner's turn would wake it too: it answers the forward of a closed request by closing the channel. So
     * the check is made before that turn, where it finds the poll's re-check of the close, or the close's write
     * before its read, taken out.) Then the owner's turns handle the forward and the Cancel in whichever order
     * they were sent, and the request retires and is released once. (The owner's side
     * of a forward is confined to the worker; what it shares with other threads is the channel, whose send,
     * take and close race in the ResultChannel scenarios above.)
     */
    @Test
    void anOperationClosedFromAnotherThreadWakesItsForeignAwaiter() {
        check(WORKER_INVOCATIONS, () -> {
            Worker worker = new Worker(0, null, new CountingRing());
            CountedRequest request = new CountedRequest();
            Registration<Integer> op = registerOn(worker, request);
            Reentrant callbacks = new Reentrant(Support::criticalSection);
            AtomicReference<Poll<Integer>> polled = new AtomicReference<>();
            run(() -> polled.set(op.poll(callbacks.waker())), op::close);
            // At once, before the owner's turns: the two sides' write-then-read pairs alone must tell the awaiter.
            if (!polled.get().isReady()) {
                assertEquals(1, callbacks.wakes(), "the awaiter's poll is pending and the close did not wake it");
            }
            worker.service(false, 0);
            worker.service(false, 0);
            if (!polled.get().isReady()) {
                assertEquals(1, callbacks.wakes(), "the awaiter's poll is pending and nothing woke it");
            }
            assertEquals(0, admitted(worker), "the request retired");
            assertEquals(1, request.releases.get(), "the request was released once");
            callbacks.assertBalanced();
        });
    }
}
