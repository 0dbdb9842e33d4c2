package dev.lockstep.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The liveness model of {@link SubmitQueues} on a ring of 8: receives (and accepts) that wait on peers hold at
 * most 4 entries, sends at most 2, so a write and a send are submitted at once although 8 receives wait. Before
 * the budgets the 8 receives took every entry and the write waited until one of them ended.
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
    void idleReceivesLeaveEntriesForStorageAndSends() {
        new ThreadedRunner(kernel, 1, 8, null, "budget").start(ctx -> {
            Worker worker = Worker.current();
            List<Registration<Integer>> receives = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                receives.add(Support.register(new BudgetedRequest("receive " + i, Request.Budget.INBOUND)));
            }
            Support.serviceUntil("four receives are in flight", () -> kernel.pending().size() == 4);
            Registration<Integer> write = Support.register(new BudgetedRequest("write", Request.Budget.STORAGE));
            Registration<Integer> send = Support.register(new BudgetedRequest("send", Request.Budget.OUTBOUND));
            kernel.complete(kernel.awaitPending(p -> p.id().equals(write.key())), 1);
            kernel.complete(kernel.awaitPending(p -> p.id().equals(send.key())), 1);
            assertEquals(1, write.await(), "the write ran while eight receives waited");
            assertEquals(1, send.await(), "the send ran while eight receives waited");

            // Three more sends: two fit in the send budget, the third waits for one of them.
            List<Registration<Integer>> sends = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                sends.add(Support.register(new BudgetedRequest("send " + i, Request.Budget.OUTBOUND)));
            }
            Support.serviceUntil("two sends are in flight", () -> kernel.pending().size() == 6);
            Support.turns(3);
            assertEquals(6, kernel.pending().size(), "the third send waits for the send budget");
            Driver driver = worker.borrow();
            try {
                assertEquals(4, driver.inFlight(Request.Budget.INBOUND));
                assertEquals(2, driver.inFlight(Request.Budget.OUTBOUND));
                assertEquals(4, driver.budgetLimit(Request.Budget.INBOUND));
                assertEquals(2, driver.budgetLimit(Request.Budget.OUTBOUND));
            } finally {
                worker.unborrow();
            }
            // A storage request still finds one of the two entries the network cannot take.
            Registration<Integer> read = Support.register(new BudgetedRequest("read", Request.Budget.STORAGE));
            kernel.complete(kernel.awaitPending(p -> p.id().equals(read.key())), 1);
            assertEquals(1, read.await());

            // Receives are staged in admission order as entries free up.
            kernel.complete(kernel.awaitPending(p -> p.id().equals(receives.get(0).key())), 5);
            assertEquals(5, receives.get(0).await());
            kernel.awaitPending(p -> p.id().equals(receives.get(4).key()));
            for (Registration<Integer> send2 : sends) {
                kernel.complete(kernel.awaitPending(p -> p.id().equals(send2.key())), 1);
                assertEquals(1, send2.await());
            }
            for (Registration<Integer> receive : receives) {
                receive.close();
            }
            Support.serviceUntil("every request retired", () -> worker.admitted() == 0);
            return null;
        });
    }
}
