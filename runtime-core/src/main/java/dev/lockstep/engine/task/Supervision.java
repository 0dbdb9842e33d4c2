package dev.lockstep.engine.task;

import dev.lockstep.sync.FiberSafeLock;
import java.util.ArrayList;
import java.util.List;

/**
 * The supervision tree: contexts are bound to nodes; a spawned task runs at a new node below its spawning
 * context's node; aborting a node aborts every task at or below it, and marks the subtree aborted so later
 * spawns under it resolve to {@code Closed} without running.
 *
 * <p>Thread-safe: the tree is guarded by one lock per runtime, held only for tree edits; aborting fibers (which unparks
 * threads) happens outside it. A {@link FiberSafeLock}, not a monitor: fibers spawn and finish under it while
 * worker threads abort subtrees under it, and a fiber must never queue on a lock its carrier may take.
 */
public final class Supervision {
    /** One node: a context's place in the tree, with the task running there if any. */
    public static final class Node {
        final Node parent;
        /** The whole tree's lock (one per runtime, so two runtimes in one JVM never contend). */
        final FiberSafeLock tree;
        /**
         * The children in the order they were made, as an intrusive doubly linked list, guarded by {@link #tree}:
         * a node costs no list of its own, and a finished task's node leaves its parent in constant time however
         * many siblings it has (a listener's parent context may hold one per open connection).
         */
        private Node firstChild;
        private Node lastChild;
        private Node previousSibling;
        private Node nextSibling;
        /** Whether this node is in its parent's children now; guarded. */
        private boolean linked;
        TaskHandle<?> task;
        boolean aborted;

        Node(Node parent, FiberSafeLock tree) {
            this.parent = parent;
            this.tree = tree;
        }

        public boolean isAborted() {
            tree.lock();
            try {
                return aborted;
            } finally {
                tree.unlock();
            }
        }

        public void setTask(TaskHandle<?> handle) {
            tree.lock();
            try {
                task = handle;
            } finally {
                tree.unlock();
            }
        }
    }

    private final FiberSafeLock lock = new FiberSafeLock();
    private final Node root = new Node(null, lock);

    public Node root() {
        return root;
    }

    /**
     * A new node below {@code parent}; already aborted if the parent is.
     *
     * @param parent the parent
     * @return the child
     */
    public Node child(Node parent) {
        lock.lock();
        try {
            Node node = new Node(parent, lock);
            node.aborted = parent.aborted;
            if (!parent.aborted) {
                link(parent, node);
            }
            return node;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Aborts every task at or below {@code node}.
     *
     * @param node the subtree
     */
    public void abort(Node node) {
        abortBelow(node, true);
    }

    /**
     * Aborts every task strictly below {@code node}, and the node's own task when {@code includingSelf}. The
     * subtree is marked aborted and detached.
     *
     * @param node the subtree
     * @param includingSelf whether the node's own task is aborted too
     */
    public void abortBelow(Node node, boolean includingSelf) {
        List<TaskHandle<?>> victims = new ArrayList<>();
        lock.lock();
        try {
            if (includingSelf) {
                node.aborted = true;
                if (node.task != null) {
                    victims.add(node.task);
                }
            }
            collect(node, victims);
            // Detached: each child leaves the list, so a later unlink of one of them changes nothing.
            Node child = node.firstChild;
            node.firstChild = null;
            node.lastChild = null;
            while (child != null) {
                Node next = child.nextSibling;
                child.previousSibling = null;
                child.nextSibling = null;
                child.linked = false;
                child = next;
            }
        } finally {
            lock.unlock();
        }
        for (TaskHandle<?> victim : victims) {
            Fiber fiber = victim.fiber;
            if (fiber != null) {
                // The handle resolves when the fiber has unwound, after the task's finally blocks ran.
                fiber.abort();
            } else {
                victim.closed("was aborted");
            }
        }
    }

    /** Links {@code child} last among {@code parent}'s children; under the lock. */
    private static void link(Node parent, Node child) {
        child.previousSibling = parent.lastChild;
        if (parent.lastChild != null) {
            parent.lastChild.nextSibling = child;
        } else {
            parent.firstChild = child;
        }
        parent.lastChild = child;
        child.linked = true;
    }

    /** Takes {@code child} out of its parent's children, if it is there; under the lock. */
    private static void unlink(Node child) {
        if (!child.linked) {
            return;
        }
        if (child.previousSibling != null) {
            child.previousSibling.nextSibling = child.nextSibling;
        } else {
            child.parent.firstChild = child.nextSibling;
        }
        if (child.nextSibling != null) {
            child.nextSibling.previousSibling = child.previousSibling;
        } else {
            child.parent.lastChild = child.previousSibling;
        }
        child.previousSibling = null;
        child.nextSibling = null;
        child.linked = false;
    }

    private static void collect(Node node, List<TaskHandle<?>> victims) {
        for (Node child = node.firstChild; child != null; child = child.nextSibling) {
            child.aborted = true;
            if (child.task != null) {
                victims.add(child.task);
            }
            collect(child, victims);
        }
    }

    /**
     * The children of {@code node} now, in the order they were made (for tests).
     *
     * @param node the node
     * @return a snapshot
     */
    List<Node> children(Node node) {
        lock.lock();
        try {
            List<Node> children = new ArrayList<>();
            for (Node child = node.firstChild; child != null; child = child.nextSibling) {
                children.add(child);
            }
            return children;
        } finally {
            lock.unlock();
        }
    }

    /**
     * A task spawned from {@code spawner} finished: abort everything below the spawning context's node, and
     * detach that node so finished work leaves nothing behind.
     *
     * @param spawner the node of the context that spawned the task
     */
    void spawnedTaskFinished(Node spawner) {
        abortBelow(spawner, false);
        lock.lock();
        try {
            // A pure child() node was consumed by the spawn; a task's own node lives on with its task.
            if (spawner != root && spawner.task == null) {
                spawner.aborted = true;
                unlink(spawner);
            }
        } finally {
            lock.unlock();
        }
    }
}
