package dev.lockstep.sim.os;

import dev.lockstep.sim.SimNode;

/**
 * Told by a {@link SimKernel} when its process reaches an I/O boundary: the cluster node lifetime the kernel is
 * the process of, which may crash the node there ({@link SimNode#crashAt}).
 *
 * <p>Called on the simulation's thread, inside the kernel's handling of a ring's sync.
 */
public interface IoBoundaryListener {
    /**
     * The process reached {@code boundary}.
     *
     * @param boundary the boundary reached
     */
    void ioBoundary(SimNode.IoBoundary boundary);
}
