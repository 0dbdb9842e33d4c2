package dev.lockstep.engine.request;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.lockstep.engine.ScriptedKernel;
import dev.lockstep.engine.Support;
import dev.lockstep.engine.ThreadedRunner;
import dev.lockstep.engine.worker.Worker;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The liveness model of {@link SubmitQueues}: on a ring of 8, receives and sends that wait on peers are never
 * held back (sixteen of each are in flight at once) while storage is bounded by the ring's entries; on a ring
 * below 4 entries every request shares the entries in admission order, as the seed's cases need.
 */
class BudgetTest {
    private final ScriptedKernel kernel = new ScriptedKernel();

    /** A request of a chosen budget that the scripted kernel leaves pending until the test completes it. */
    private static final class BudgetedRequest extends Request {
        private final String name;
        private final Budget budget;

        BudgetedRequest(String name, Budget budget) {
            this.name = name;
            this.budget = budget;
        }

        @Override
        public Kind kind() {
            return Kind.RING;
        }

        @Override
        public Budget budget() {
            return budget;
        }

        @Override
        public void prepare(Submission submission, Ring ring) {
            submission.opcode = budget == Budget.STORAGE ? Opcode.WRITE
                    : budget == Budget.INBOUND ? Opcode.RECV : Opcode.SEND;
            submission.fd = 7;
            submission.length = 1;
        }

        @Override
        public boolean complete(int result) {
            return succeed(result);
        }

        @Override
        public String describe() {
            return name;
        }
    }

    @Test
    @Timeout(20)
    void requestsThatWaitOnPeersAreNeverHeldBackAndStorageIsBoundedByTheRing() {
        new ThreadedRunner(kernel, 1, 8, null, "budget").start(ctx -> {
            Worker worker = Worker.current();
            // Twice the ring's entries of receives that wait for peers, and as many sends: every one in flight.
            List<Registration<Integer>> waits = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                waits.add(Support.register(new BudgetedRequest("receive " + i, Request.Budget.INBOUND)));
                waits.add(Support.register(new BudgetedRequest("send " + i, Request.Budget.OUTBOUND)));
            }
            Support.serviceUntil("every receive and send is in flight", () -> kernel.pending().size() == 32);
            // Storage takes at most the ring's 8 entries; the ninth write waits for one of them to end.
            List<Registration<Integer>> writes = new ArrayList<>();
            for (int i = 0; i < 9; i++) {
                writes.add(Support.register(new BudgetedRequest("write " + i, Request.Budget.STORAGE)));
            }
            Support.serviceUntil("eight writes are in flight", () -> kernel.pending().size() == 40);
            Support.turns(3);
            assertEquals(40, kernel.pending().size(), "the ninth write waits for the storage budget");
            Driver driver = worker.borrow();
            try {
                assertEquals(16, driver.inFlight(Request.Budget.INBOUND));
                assertEquals(16, driver.inFlight(Request.Budget.OUTBOUND));
                assertEquals(8, driver.inFlight(Request.Budget.STORAGE));
                assertEquals(Integer.MAX_VALUE, driver.budgetLimit(Request.Budget.INBOUND));
                assertEquals(Integer.MAX_VALUE, driver.budgetLimit(Request.Budget.OUTBOUND));
                assertEquals(8, driver.budgetLimit(Request.Budget.STORAGE));
            } finally {
                worker.unborrow();
            }
            kernel.complete(kernel.awaitPending(p -> p.id().equals(writes.get(0).key())), 1);
            assertEquals(1, writes.get(0).await());
            for (Registration<Integer> write : writes.subList(1, writes.size())) {
                kernel.complete(kernel.awaitPending(p -> p.id().equals(write.key())), 1);
                assertEquals(1, write.await(), "every write ends, the ninth once an entry freed");
            }
            for (Registration<Integer> wait : waits) {
                wait.close();
            }
            Support.serviceUntil("every request retired", () -> worker.admitted() == 0);
            return null;
        });
    }

    @Test
    @Timeout(20)
    void aRingBelowFourEntriesIsSharedByEveryRequestInAdmissionOrder() {
        new ThreadedRunner(kernel, 1, 2, null, "shared").start(ctx -> {
            Worker worker = Worker.current();
            Registration<Integer> first = Support.register(new BudgetedRequest("receive", Request.Budget.INBOUND));
            Registration<Integer> second = Support.register(new BudgetedRequest("send", Request.Budget.OUTBOUND));
            Support.serviceUntil("both entries are taken", () -> kernel.pending().size() == 2);
            Registration<Integer> write = Support.register(new BudgetedRequest("write", Request.Budget.STORAGE));
            Support.turns(3);
            assertEquals(2, kernel.pending().size(), "the write waits for one of the two entries");
            kernel.complete(kernel.awaitPending(p -> p.id().equals(second.key())), 1);
            assertEquals(1, second.await());
            kernel.complete(kernel.awaitPending(p -> p.id().equals(write.key())), 1);
            assertEquals(1, write.await(), "the write took the entry the send left");
            first.close();
            Support.serviceUntil("every request retired", () -> worker.admitted() == 0);
            return null;
        });
    }
}
