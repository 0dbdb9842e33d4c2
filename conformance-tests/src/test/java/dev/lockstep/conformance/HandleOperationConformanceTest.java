package dev.lockstep.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.lockstep.ClosedException;
import dev.lockstep.ExitedException;
import dev.lockstep.Handle;
import dev.lockstep.TimeoutException;
import dev.lockstep.sync.Either;
import dev.lockstep.sync.OneShot;
import dev.lockstep.sync.Select;
import dev.lockstep.sync.Selected;
import java.time.Duration;

/**
 * A task's {@link Handle} as an operation, on every runtime: raced against a timer, against another task, awaited
 * under a timeout. Stopping the wait never stops the task: the race a timer wins, or a timeout, leaves the task
 * running, and its outcome stays readable by anyone.
 */
@Group(ReadmeGroup.HANDLE)
class HandleOperationConformanceTest {
    private static final Duration NEVER = Duration.ofDays(1);

    /** A task that finishes wins its race against a timer, with its value. */
    @Conformance
    void testAFinishedTaskWinsItsRaceAgainstATimer(Runtimes rt) {
        String value = rt.runner().start(ctx -> {
            Handle<String> task = ctx.child("quick").spawn(c -> "done");
            Either<String, Void> won = Select.either(task, ctx.sleeper(NEVER)).await();
            return ((Either.First<String, Void>) won).value();
        });
        assertEquals("done", value);
    }

    /**
     * A timer that wins the race closes the handle, its loser, and the task goes on: released afterwards, it
     * finishes with its value, which the handle then gives.
     */
    @Conformance
    void testATimerThatWinsLeavesTheTaskRunning(Runtimes rt) {
        String value = rt.runner().start(ctx -> {
            OneShot<String> gate = new OneShot<>();
            Handle<String> task = ctx.child("gated").spawn(c -> gate.get().await() + "!");
            Either<String, Void> won = Select.either(task, ctx.sleeper(Duration.ofMillis(1))).await();
            assertInstanceOf(Either.Second.class, won);
            assertFalse(task.isDone(), "the task still waits for its gate");
            gate.complete("released");
            return task.await();
        });
        assertEquals("released!", value);
    }

    /** A timeout of a wait on a handle ends the wait, not the task; closing the handle does not either. */
    @Conformance
    void testATimeoutOfTheWaitLeavesTheTaskRunning(Runtimes rt) {
        String value = rt.runner().start(ctx -> {
            OneShot<String> gate = new OneShot<>();
            Handle<String> task = ctx.child("gated").spawn(c -> gate.get().await() + "!");
            assertThrows(TimeoutException.class, () -> ctx.timeout(Duration.ofMillis(1), task::await));
            task.close();
            task.close();
            assertFalse(task.isDone(), "the task still waits for its gate");
            gate.complete("late");
            return task.await();
        });
        assertEquals("late!", value);
    }

    /**
     * Two tasks raced: the one that finishes wins; the loser, closed by the race, goes on; the winner's value is
     * read, not consumed, so the handle gives it again.
     */
    @Conformance
    void testTwoTasksRacedTheFinishedOneWinsAndTheOtherGoesOn(Runtimes rt) {
        rt.runner().start(ctx -> {
            OneShot<Integer> gate = new OneShot<>();
            Handle<Integer> slow = ctx.child("slow").spawn(c -> gate.get().await());
            Handle<Integer> quick = ctx.child("quick").spawn(c -> 2);
            Selected<Integer> won = Select.first(slow, quick).await();
            assertEquals(1, won.index());
            assertEquals(2, won.value());
            assertEquals(2, quick.await(), "the winner's value is still there");
            assertFalse(slow.isDone(), "the losing task still waits for its gate");
            gate.complete(1);
            assertEquals(1, slow.await());
            return null;
        });
    }

    /** A task that throws fails the race with what its handle's await throws: its exception as the cause. */
    @Conformance
    void testATaskThatThrowsFailsTheRace(Runtimes rt) {
        rt.runner().start(ctx -> {
            Handle<String> task = ctx.child("failing").spawn(c -> {
                throw new IllegalStateException("planted failure");
            });
            ExitedException failed = assertThrows(ExitedException.class,
                    () -> Select.either(task, ctx.sleeper(NEVER)).await());
            assertInstanceOf(IllegalStateException.class, failed.getCause());
            assertEquals("planted failure", failed.getCause().getMessage());
            ExitedException again = assertThrows(ExitedException.class, task::await);
            assertEquals("planted failure", again.getCause().getMessage());
            return null;
        });
    }

    /** An aborted task's handle fails the race with {@link ClosedException}, as its await does. */
    @Conformance
    void testAnAbortedTaskFailsTheRaceClosed(Runtimes rt) {
        rt.runner().start(ctx -> {
            OneShot<String> never = new OneShot<>();
            Handle<String> task = ctx.child("aborted").spawn(c -> never.get().await());
            task.abort();
            assertThrows(ClosedException.class, () -> Select.either(task, ctx.sleeper(NEVER)).await());
            assertThrows(ClosedException.class, task::await);
            return null;
        });
    }
}
