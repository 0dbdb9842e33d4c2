package dev.lockstep.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.lockstep.Handle;
import java.util.ArrayList;
import java.util.List;

/**
 * The default placement of {@code spawn} on every runtime ({@code Spawner#spawn}): the tasks the root task
 * spawns go round-robin over the workers; the tasks those spawn stay on their spawner's worker.
 */
@Group(ReadmeGroup.PLACEMENT)
class PlacementConformanceTest {

    /**
     * Root-level tasks, spawned from the root context and from a child of it, land on consecutive workers
     * (wrapping), the first on the worker after the root's; each spawns a nested task, which shares its worker.
     */
    @Conformance
    void testRootLevelTasksSpreadRoundRobinAndNestedTasksStayLocal(Runtimes rt) {
        rt.runner().start(ctx -> {
            int workers = ctx.workers();
            int root = rt.probe().worker().index();
            List<Handle<int[]>> handles = new ArrayList<>();
            for (int i = 0; i < 2 * workers + 1; i++) {
                // Every other one from a grandchild context of the root: still root-level, still the root's spawn.
                var context = i % 2 == 0 ? ctx.child("task" + i) : ctx.child("group" + i).child("task");
                handles.add(context.spawn(c -> {
                    int own = rt.probe().worker().index();
                    int nested = c.child("nested").spawn(n -> rt.probe().worker().index()).await();
                    return new int[] {own, nested};
                }));
            }
            for (int i = 0; i < handles.size(); i++) {
                int[] placed = handles.get(i).await();
                assertEquals((root + 1 + i) % workers, placed[0], "root-level task " + i + " of " + workers
                        + " workers");
                assertEquals(placed[0], placed[1], "a task spawned by root-level task " + i + " stays on its worker");
            }
            return null;
        });
    }
}
