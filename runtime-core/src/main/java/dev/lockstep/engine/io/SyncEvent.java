package dev.lockstep.engine.io;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A flush of a blob to its device ({@code fdatasync}), from its submission to its completion, recorded on the
 * worker that completed it. Enabled by default: flushes are few and each costs the device a round trip.
 */
@Name("lockstep.Sync")
@Label("Lockstep Sync")
@Category({"Lockstep", "Storage"})
@Description("A flush of a blob to its device (fdatasync), from submission to completion")
@StackTrace(false)
final class SyncEvent extends jdk.jfr.Event {
    @Label("Blob")
    @Description("The blob's name")
    String blob;

    @Label("Bytes")
    @Description("Bytes written through the open since the previous flush was submitted")
    @DataAmount
    long bytes;

    @Label("Worker")
    @Description("The worker that completed the flush")
    int worker;

    @Label("Error")
    @Description("The error the flush failed with, or null")
    String error;
}
