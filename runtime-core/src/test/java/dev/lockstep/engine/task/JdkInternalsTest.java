package dev.lockstep.engine.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.UnsupportedJdkException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Constructor;
import java.lang.reflect.InaccessibleObjectException;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * The JDK hook's self-test: on this JDK every member resolves and reads right; on a JDK that lost one (simulated
 * by a {@link JdkInternals.Finder} that lacks it) the start-up check names the member and the JDK's version and
 * blames no flag; on a JVM that does not open {@code java.lang} it names the flag.
 */
class JdkInternalsTest {

    @Test
    void onThisJdkEveryMemberResolves() {
        JdkInternals.Members members = JdkInternals.Members.resolve(JdkInternals.Finder.JDK);
        members.checkFibers();
        members.checkFiberStates();
        assertEquals(List.of(), members.optionalProblemMessages());
        assertTrue(JdkInternals.threadLocalsReadable());
    }

    @Test
    void aFiberReadsAsDoneBeforeAndAfterItsRunAndAsWaitingWhileParked() throws Exception {
        CountDownLatch parked = new CountDownLatch(1);
        Thread fiber = Thread.ofVirtual().unstarted(() -> {
            parked.countDown();
            LockSupport.park(this);
        });
        assertEquals(JdkInternals.FiberState.DONE, JdkInternals.fiberState(fiber), "not started");
        fiber.start();
        parked.await();
        // The latch opened just before the park: wait until the fiber is in it (a state change, not a time).
        while (LockSupport.getBlocker(fiber) != this || fiber.getState() != Thread.State.WAITING) {
            Thread.onSpinWait();
        }
        assertEquals(JdkInternals.FiberState.WAITING, JdkInternals.fiberState(fiber));
        assertTrue(!JdkInternals.hasParkTimer(fiber), "an untimed park arms no timer");
        LockSupport.unpark(fiber);
        fiber.join();
        assertEquals(JdkInternals.FiberState.DONE, JdkInternals.fiberState(fiber));
    }

    @Test
    void anUnparkedFiberNotYetRunAgainReadsAsWoken() {
        HoldingScheduler scheduler = new HoldingScheduler();
        Thread fiber = JdkInternals.virtualThreadBuilder(scheduler).unstarted(() -> LockSupport.park(this));
        fiber.start();
        scheduler.runNext(); // runs until the park
        assertEquals(JdkInternals.FiberState.WAITING, JdkInternals.fiberState(fiber));
        assertEquals(0, scheduler.held(), "a parked fiber has no continuation queued");
        LockSupport.unpark(fiber);
        assertEquals(1, scheduler.held(), "the unpark queued the fiber's continuation");
        assertEquals(JdkInternals.FiberState.WOKEN, JdkInternals.fiberState(fiber), "unparked, not yet run again");
        scheduler.runNext(); // returns from the park and ends
        assertEquals(JdkInternals.FiberState.DONE, JdkInternals.fiberState(fiber));
    }

    @Test
    void aFiberThatYieldedReadsAsYieldedNotWoken() {
        HoldingScheduler scheduler = new HoldingScheduler();
        Thread fiber = JdkInternals.virtualThreadBuilder(scheduler).unstarted(Thread::yield);
        fiber.start();
        scheduler.runNext(); // runs until the yield
        assertEquals(1, scheduler.held(), "the yield queued the fiber's continuation");
        assertEquals(JdkInternals.FiberState.YIELDED, JdkInternals.fiberState(fiber), "yielded, not yet run again");
        scheduler.runNext(); // returns from the yield and ends
        assertEquals(JdkInternals.FiberState.DONE, JdkInternals.fiberState(fiber));
    }

    /**
     * A fiber scheduler that only queues continuations; the test runs them one at a time on its own thread, so a
     * fiber stands still between two of its runs, where {@link JdkInternals#fiberState} reads it. Every call comes
     * from the test's thread (as the fiber's carrier or as the one unparking it): no other thread touches the queue.
     */
    private static final class HoldingScheduler implements Executor {
        private final ArrayDeque<Runnable> continuations = new ArrayDeque<>();

        @Override
        public void execute(Runnable continuation) {
            continuations.add(continuation);
        }

        int held() {
            return continuations.size();
        }

        void runNext() {
            Runnable next = continuations.poll();
            assertTrue(next != null, "no continuation queued");
            next.run();
        }
    }

    @Test
    void theCarrierOfAPlatformThreadIsItself() {
        assertSame(Thread.currentThread(), JdkInternals.currentCarrierThread());
    }

    @Test
    void aMissingSchedulerHookIsNamedWithTheJdkVersionAndNoFlag() {
        JdkInternals.Members members = JdkInternals.Members.resolve(new Lacking("VirtualThreadBuilder(",
                new NoSuchMethodException("java.lang.ThreadBuilders$VirtualThreadBuilder.<init>(Executor)")));
        UnsupportedJdkException failure = assertThrows(UnsupportedJdkException.class, members::checkFibers);
        assertEquals("java.lang.ThreadBuilders$VirtualThreadBuilder(java.util.concurrent.Executor)",
                failure.member());
        assertEquals(Runtime.version().toString(), failure.jdkVersion());
        assertNamesMemberAndVersionNotFlag(failure, failure.member());
        assertThrows(UnsupportedJdkException.class, members::checkFiberStates, "the simulator needs fibers too");
    }

    @Test
    void aMissingStateWordIsNamedForTheSimulatorOnly() {
        JdkInternals.Members members = JdkInternals.Members.resolve(new Lacking("java.lang.VirtualThread.state",
                new NoSuchFieldException("state")));
        members.checkFibers(); // io_uring's engine does not read it
        UnsupportedJdkException failure = assertThrows(UnsupportedJdkException.class, members::checkFiberStates);
        assertEquals("java.lang.VirtualThread.state", failure.member());
        assertNamesMemberAndVersionNotFlag(failure, "java.lang.VirtualThread.state");
        assertTrue(failure.getMessage().contains("simulator"), failure.getMessage());
    }

    @Test
    void aRenamedStateConstantIsNamed() {
        JdkInternals.Members members = JdkInternals.Members.resolve(new Lacking("java.lang.VirtualThread.UNPARKED",
                new NoSuchFieldException("UNPARKED")));
        UnsupportedJdkException failure = assertThrows(UnsupportedJdkException.class, members::checkFiberStates);
        assertNamesMemberAndVersionNotFlag(failure, "java.lang.VirtualThread.UNPARKED");
    }

    @Test
    void aClosedPackageIsBlamedOnTheFlag() {
        JdkInternals.Members members = JdkInternals.Members.resolve(new Lacking("VirtualThreadBuilder(",
                new InaccessibleObjectException("module java.base does not \"opens java.lang\" to unnamed module")));
        IllegalStateException failure = assertThrows(IllegalStateException.class, members::checkFibers);
        assertTrue(!(failure instanceof UnsupportedJdkException), failure.toString());
        assertTrue(failure.getMessage().contains(JdkInternals.REQUIRED_FLAG), failure.getMessage());
        assertTrue(failure.getMessage().contains("java.lang.ThreadBuilders$VirtualThreadBuilder"), failure.getMessage());
    }

    @Test
    void aMissingCarrierLookupIsNamedForEveryRuntime() {
        JdkInternals.Members members = JdkInternals.Members.resolve(new Lacking(
                "java.lang.Thread.currentCarrierThread()", new NoSuchMethodException("currentCarrierThread")));
        UnsupportedJdkException failure = assertThrows(UnsupportedJdkException.class, members::checkFibers);
        assertNamesMemberAndVersionNotFlag(failure, "java.lang.Thread.currentCarrierThread()");
    }

    @Test
    void aMissingOptionalMemberIsReportedAndNothingFails() {
        JdkInternals.Members members = JdkInternals.Members.resolve(new Lacking(
                "java.lang.ThreadLocal$ThreadLocalMap.table", new NoSuchFieldException("table")));
        members.checkFibers();
        members.checkFiberStates();
        List<String> problems = members.optionalProblemMessages();
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.getFirst().contains("java.lang.ThreadLocal$ThreadLocalMap.table")
                && problems.getFirst().contains(Runtime.version().toString()), problems.getFirst());
    }

    private static void assertNamesMemberAndVersionNotFlag(IllegalStateException failure, String member) {
        String message = failure.getMessage();
        assertTrue(message.contains(member), message);
        assertTrue(message.contains("Java " + Runtime.version()), message);
        assertTrue(!message.contains("--add-opens"), "a missing member is no missing flag: " + message);
    }

    /**
     * The JDK's members, but the one whose name (as {@link JdkInternals} names members) contains {@code member}
     * fails with {@code failure}, as on a JDK that removed or closed it.
     */
    private record Lacking(String member, Throwable failure) implements JdkInternals.Finder {
        private static final JdkInternals.Finder JDK = JdkInternals.Finder.JDK;

        private void check(String name) throws ReflectiveOperationException {
            if (name.contains(member)) {
                if (failure instanceof ReflectiveOperationException reflective) {
                    throw reflective;
                }
                throw (RuntimeException) failure;
            }
        }

        @Override
        public Class<?> type(String name) throws ReflectiveOperationException {
            return JDK.type(name);
        }

        @Override
        public Constructor<?> constructor(Class<?> type, Class<?>... parameters) throws ReflectiveOperationException {
            check(type.getName() + "(" + (parameters.length == 0 ? "" : parameters[0].getName()) + ")");
            return JDK.constructor(type, parameters);
        }

        @Override
        public VarHandle field(Class<?> type, String name, Class<?> fieldType) throws ReflectiveOperationException {
            check(type.getName() + "." + name);
            return JDK.field(type, name, fieldType);
        }

        @Override
        public MethodHandle staticMethod(Class<?> type, String name, MethodType methodType)
                throws ReflectiveOperationException {
            check(type.getName() + "." + name + "()");
            return JDK.staticMethod(type, name, methodType);
        }

        @Override
        public int staticInt(Class<?> type, String name) throws ReflectiveOperationException {
            check(type.getName() + "." + name);
            return JDK.staticInt(type, name);
        }
    }
}
