package dev.lockstep.engine.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The tree's own bookkeeping, below the context API: consumed child contexts leave their parent whichever their
 * place among its children, the rest keep their order, and an abort detaches the subtree for good.
 */
class SupervisionTreeTest {
    private final Supervision tree = new Supervision();

    private List<Supervision.Node> children(int count) {
        List<Supervision.Node> made = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            made.add(tree.child(tree.root()));
        }
        return made;
    }

    @Test
    void consumedChildContextsLeaveTheirParentFromAnyPlace() {
        List<Supervision.Node> made = children(5);
        tree.spawnedTaskFinished(made.get(2));  // the middle
        tree.spawnedTaskFinished(made.get(0));  // the first
        tree.spawnedTaskFinished(made.get(4));  // the last
        assertEquals(List.of(made.get(1), made.get(3)), tree.children(tree.root()));
        tree.spawnedTaskFinished(made.get(3));
        tree.spawnedTaskFinished(made.get(1));
        assertEquals(List.of(), tree.children(tree.root()));
        // Made again after emptying: the list starts over.
        Supervision.Node again = tree.child(tree.root());
        assertEquals(List.of(again), tree.children(tree.root()));
    }

    @Test
    void aChildFinishedTwiceOrAfterItsParentsAbortChangesNothing() {
        Supervision.Node parent = tree.child(tree.root());
        Supervision.Node first = tree.child(parent);
        Supervision.Node second = tree.child(parent);
        tree.spawnedTaskFinished(first);
        tree.spawnedTaskFinished(first);
        assertEquals(List.of(second), tree.children(parent));
        Supervision.Node third = tree.child(parent);
        tree.abort(parent);
        assertEquals(List.of(), tree.children(parent));
        assertTrue(second.isAborted() && third.isAborted());
        // A detached child that finishes later must not touch its former parent's (now empty) list.
        tree.spawnedTaskFinished(third);
        assertEquals(List.of(), tree.children(parent));
        assertEquals(List.of(parent), tree.children(tree.root()));
        // And a new child under the aborted parent is made aborted and never linked.
        Supervision.Node late = tree.child(parent);
        assertTrue(late.isAborted());
        assertEquals(List.of(), tree.children(parent));
    }

    @Test
    void tenThousandSiblingsFinishInAnyOrder() {
        List<Supervision.Node> made = children(10_000);
        for (int i = 0; i < made.size(); i += 2) {
            tree.spawnedTaskFinished(made.get(i));
        }
        List<Supervision.Node> odd = new ArrayList<>();
        for (int i = 1; i < made.size(); i += 2) {
            odd.add(made.get(i));
        }
        assertEquals(odd, tree.children(tree.root()));
        for (int i = made.size() - 1; i >= 1; i -= 2) {
            tree.spawnedTaskFinished(made.get(i));
        }
        assertEquals(List.of(), tree.children(tree.root()));
    }
}
