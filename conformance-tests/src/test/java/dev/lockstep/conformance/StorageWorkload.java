package dev.lockstep.conformance;

import dev.lockstep.Blob;
import dev.lockstep.Context;
import dev.lockstep.LockstepException;
import dev.lockstep.OpenedBlob;
import dev.lockstep.ReadOptions;
import dev.lockstep.WriteOptions;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * A sequence of storage operations on one partition, run against a runtime or against an in-memory model, each
 * run writing the same kind of transcript: one line per operation with its result or the simple name of its
 * exception, then the final state (every blob's name, length and content digest). Two runs agree when their
 * transcripts are equal, byte for byte.
 *
 * <p>The model: a partition that exists from its first open until removed; blobs are files named in it; an
 * open handle names a file, which outlives its removal (reads and writes through it keep working) and is
 * shared by every open of the same name; a read of {@code length > 0} bytes past the file's end fails with
 * {@code BlobInsufficientLengthException}; a zero-length read always succeeds.
 *
 * <p>{@link #plan} resolves each operation's handle to a concrete open handle. Reads may cross the end of their
 * file: such a read comes back short and is resubmitted before it fails, which is worth exercising (the
 * simulator once stalled on it).
 */
final class StorageWorkload {
    static final String PARTITION = "workload";
    static final List<String> NAMES = List.of("a", "b", "c", "log");

    enum Kind { OPEN, CLOSE, WRITE, VECTORED_WRITE, SYNC_WRITE, READ, RESIZE, SYNC, START_SYNC, REMOVE,
        REMOVE_PARTITION, SCAN, NOOP, RENAME, SYNC_PARTITION, ALLOCATE }

    /**
     * One operation.
     *
     * @param kind what
     * @param name index into {@link #NAMES} (open, remove, the blob a rename renames)
     * @param handle which open handle: any int before {@link #plan}, a handle id after; of a rename, its new
     *     name's index into {@link #NAMES}, modulo their count
     * @param offset byte offset (write, read, allocate) or new length (resize)
     * @param length byte count (write, read, allocate)
     * @param seed the data of a write
     */
    record Op(Kind kind, int name, int handle, long offset, int length, long seed) {
        @Override
        public String toString() {
            return switch (kind) {
                case OPEN, REMOVE -> kind + " " + NAMES.get(name);
                case CLOSE, SYNC, START_SYNC -> kind + " h" + handle;
                case WRITE, VECTORED_WRITE, SYNC_WRITE, READ, ALLOCATE -> kind + " h" + handle + " @" + offset + "+"
                        + length;
                case RESIZE -> kind + " h" + handle + " to " + offset;
                case RENAME -> kind + " " + NAMES.get(name) + " to " + NAMES.get(renamedTo());
                case REMOVE_PARTITION, SCAN, NOOP, SYNC_PARTITION -> kind.toString();
            };
        }

        /** A rename's new name: an index into {@link #NAMES}. */
        int renamedTo() {
            return Math.floorMod(handle, NAMES.size());
        }
    }

    private StorageWorkload() {
    }

    /**
     * A random sequence.
     *
     * @param random the source
     * @param count how many operations
     * @return the operations, handles not yet resolved
     */
    static List<Op> random(SplittableRandom random, int count) {
        List<Op> ops = new ArrayList<>();
        Kind[] weighted = {Kind.OPEN, Kind.OPEN, Kind.OPEN, Kind.CLOSE, Kind.WRITE, Kind.WRITE, Kind.WRITE,
            Kind.VECTORED_WRITE, Kind.SYNC_WRITE, Kind.READ, Kind.READ, Kind.READ, Kind.RESIZE, Kind.SYNC,
            Kind.START_SYNC, Kind.REMOVE, Kind.REMOVE_PARTITION, Kind.SCAN, Kind.RENAME, Kind.SYNC_PARTITION,
            Kind.ALLOCATE};
        for (int i = 0; i < count; i++) {
            Kind kind = weighted[random.nextInt(weighted.length)];
            ops.add(new Op(kind, random.nextInt(NAMES.size()), random.nextInt(1000),
                    random.nextInt(4) == 0 ? random.nextLong(0, 65_536) : random.nextLong(0, 256),
                    random.nextInt(5) == 0 ? 0 : random.nextInt(1, 2_049), random.nextLong()));
        }
        return ops;
    }

    /** The model's view of one file. */
    private static final class File {
        byte[] bytes = new byte[0];

        int length() {
            return bytes.length;
        }
    }

    /** The model's state. */
    private static final class Model {
        boolean partition;
        final Map<String, File> linked = new TreeMap<>();
        final Map<Integer, File> handles = new LinkedHashMap<>();
        int nextHandle;
    }

    /**
     * Resolves handles and (unless {@code shortReads}) keeps reads from crossing the end of their file.
     *
     * @param ops the generated operations
     * @param shortReads whether reads may cross the end of their file
     * @return the operations to run
     */
    static List<Op> plan(List<Op> ops, boolean shortReads) {
        Model model = new Model();
        List<Op> plan = new ArrayList<>();
        for (Op op : ops) {
            Op resolved = op;
            if (op.kind() != Kind.OPEN && needsHandle(op.kind())) {
                if (model.handles.isEmpty()) {
                    resolved = new Op(Kind.NOOP, 0, 0, 0, 0, 0);
                } else {
                    List<Integer> live = new ArrayList<>(model.handles.keySet());
                    resolved = new Op(op.kind(), op.name(), live.get(op.handle() % live.size()), op.offset(),
                            op.length(), op.seed());
                }
            }
            if (resolved.kind() == Kind.READ && !shortReads && resolved.length() > 0) {
                // Kept for a runtime that cannot take reads across the end of a file while it is fixed.
                long size = model.handles.get(resolved.handle()).length();
                if (resolved.offset() < size && resolved.offset() + resolved.length() > size) {
                    resolved = new Op(Kind.READ, resolved.name(), resolved.handle(), resolved.offset(),
                            (int) (size - resolved.offset()), resolved.seed());
                }
            }
            apply(model, resolved, new StringBuilder());
            plan.add(resolved);
        }
        return plan;
    }

    private static boolean needsHandle(Kind kind) {
        return switch (kind) {
            case CLOSE, WRITE, VECTORED_WRITE, SYNC_WRITE, READ, RESIZE, SYNC, START_SYNC, ALLOCATE -> true;
            default -> false;
        };
    }

    static byte[] data(Op op) {
        byte[] data = new byte[op.length()];
        new SplittableRandom(op.seed()).nextBytes(data);
        return data;
    }

    static byte[][] chunks(Op op) {
        byte[] data = data(op);
        List<byte[]> chunks = new ArrayList<>();
        SplittableRandom random = new SplittableRandom(op.seed() ^ 0x5DEECE66DL);
        int at = 0;
        while (at < data.length) {
            int length = Math.min(data.length - at, random.nextInt(0, 64));
            chunks.add(Arrays.copyOfRange(data, at, at + length));
            at += length;
        }
        return chunks.toArray(new byte[0][]);
    }

    static String digest(byte[] bytes) {
        if (bytes.length <= 32) {
            return HexFormat.of().formatHex(bytes);
        }
        try {
            return bytes.length + ":" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Applies one planned operation to the model, appending its transcript line's result. */
    private static void apply(Model model, Op op, StringBuilder line) {
        switch (op.kind()) {
            case NOOP -> line.append("noop");
            case OPEN -> {
                model.partition = true;
                File file = model.linked.computeIfAbsent(NAMES.get(op.name()), n -> new File());
                model.handles.put(model.nextHandle, file);
                line.append("h").append(model.nextHandle++).append(" length ").append(file.length());
            }
            case CLOSE -> {
                model.handles.remove(op.handle());
                line.append("closed");
            }
            case WRITE, VECTORED_WRITE, SYNC_WRITE -> {
                File file = model.handles.get(op.handle());
                byte[] data = data(op);
                if (data.length > 0) {
                    int end = (int) op.offset() + data.length;
                    if (end > file.length()) {
                        file.bytes = Arrays.copyOf(file.bytes, end);
                    }
                    System.arraycopy(data, 0, file.bytes, (int) op.offset(), data.length);
                }
                line.append("ok");
            }
            case READ -> {
                File file = model.handles.get(op.handle());
                if (op.length() == 0) {
                    line.append("[]");
                } else if (op.offset() + op.length() > file.length()) {
                    line.append("BlobInsufficientLengthException");
                } else {
                    line.append(digest(Arrays.copyOfRange(file.bytes, (int) op.offset(),
                            (int) op.offset() + op.length())));
                }
            }
            case RESIZE -> {
                File file = model.handles.get(op.handle());
                file.bytes = Arrays.copyOf(file.bytes, (int) op.offset());
                line.append("ok");
            }
            case ALLOCATE -> {
                File file = model.handles.get(op.handle());
                if (op.length() == 0) {
                    line.append("IllegalArgumentException");
                } else {
                    file.bytes = Arrays.copyOf(file.bytes, (int) Math.max(file.length(), op.offset() + op.length()));
                    line.append("ok");
                }
            }
            case SYNC, START_SYNC -> line.append("ok");
            case REMOVE -> {
                if (!model.partition) {
                    line.append("PartitionMissingException");
                } else if (model.linked.remove(NAMES.get(op.name())) == null) {
                    line.append("BlobMissingException");
                } else {
                    line.append("ok");
                }
            }
            case REMOVE_PARTITION -> {
                if (!model.partition) {
                    line.append("PartitionMissingException");
                } else {
                    model.linked.clear();
                    model.partition = false;
                    line.append("ok");
                }
            }
            case SCAN -> line.append(model.partition ? String.valueOf(new ArrayList<>(model.linked.keySet()))
                    : "PartitionMissingException");
            case RENAME -> {
                String from = NAMES.get(op.name());
                if (!model.partition) {
                    line.append("PartitionMissingException");
                } else if (!model.linked.containsKey(from)) {
                    line.append("BlobMissingException");
                } else {
                    // Handles keep their file: the replaced one stays readable through them, as a removed one.
                    model.linked.put(NAMES.get(op.renamedTo()), model.linked.remove(from));
                    line.append("ok");
                }
            }
            case SYNC_PARTITION -> line.append(model.partition ? "ok" : "PartitionMissingException");
        }
    }

    /**
     * The model's transcript of a plan.
     *
     * @param plan from {@link #plan}
     * @return the transcript
     */
    static List<String> model(List<Op> plan) {
        Model model = new Model();
        List<String> transcript = new ArrayList<>();
        for (Op op : plan) {
            StringBuilder line = new StringBuilder().append(op).append(" -> ");
            apply(model, op, line);
            transcript.add(line.toString());
        }
        List<String> state = new ArrayList<>();
        if (!model.partition) {
            state.add("final: no partition");
        } else {
            model.linked.forEach((name, file) -> state.add("final: " + name + " " + file.length() + " "
                    + digest(file.bytes)));
        }
        transcript.addAll(state);
        return transcript;
    }

    /**
     * Runs a plan on the calling task's runtime and returns its transcript. Every open handle is closed at the
     * end.
     *
     * @param ctx the task's context
     * @param plan from {@link #plan}
     * @return the transcript
     */
    static List<String> run(Context ctx, List<Op> plan) {
        return run(ctx, plan, false);
    }

    /**
     * As {@link #run(Context, List)}; with {@code resizeNeverShrinks}, a planted bug: a resize to less than the
     * blob's length leaves the length as it was, as a runtime that forgot to truncate would.
     *
     * @return the transcript
     */
    static List<String> run(Context ctx, List<Op> plan, boolean resizeNeverShrinks) {
        Map<Integer, Blob> handles = new LinkedHashMap<>();
        int nextHandle = 0;
        List<String> transcript = new ArrayList<>();
        for (Op op : plan) {
            StringBuilder line = new StringBuilder().append(op).append(" -> ");
            try {
                switch (op.kind()) {
                    case NOOP -> line.append("noop");
                    case OPEN -> {
                        OpenedBlob opened = ctx.open(PARTITION, NAMES.get(op.name())).await();
                        handles.put(nextHandle, opened.blob());
                        line.append("h").append(nextHandle++).append(" length ").append(opened.length());
                    }
                    case CLOSE -> {
                        handles.remove(op.handle()).close();
                        line.append("closed");
                    }
                    case WRITE -> {
                        handles.get(op.handle()).writeAt(op.offset(), data(op)).await();
                        line.append("ok");
                    }
                    case VECTORED_WRITE -> {
                        handles.get(op.handle()).writeAt(op.offset(), chunks(op), WriteOptions.DONT_CACHE).await();
                        line.append("ok");
                    }
                    case SYNC_WRITE -> {
                        handles.get(op.handle()).writeAt(op.offset(), new byte[][] {data(op)}, WriteOptions.SYNC)
                                .await();
                        line.append("ok");
                    }
                    case READ -> {
                        byte[] read = handles.get(op.handle()).readAt(op.offset(), op.length(),
                                op.seed() % 2 == 0 ? ReadOptions.NONE : ReadOptions.DONT_CACHE).await();
                        line.append(read.length == 0 ? "[]" : digest(read));
                    }
                    case RESIZE -> {
                        Blob blob = handles.get(op.handle());
                        blob.resize(resizeNeverShrinks ? Math.max(op.offset(), blob.length()) : op.offset()).await();
                        line.append("ok");
                    }
                    case SYNC -> {
                        handles.get(op.handle()).sync().await();
                        line.append("ok");
                    }
                    case START_SYNC -> {
                        handles.get(op.handle()).startSync().await();
                        line.append("ok");
                    }
                    case REMOVE -> {
                        ctx.remove(PARTITION, NAMES.get(op.name()).getBytes(StandardCharsets.UTF_8)).await();
                        line.append("ok");
                    }
                    case REMOVE_PARTITION -> {
                        ctx.remove(PARTITION, null).await();
                        line.append("ok");
                    }
                    case SCAN -> line.append(ctx.scan(PARTITION).await().stream()
                            .map(name -> new String(name, StandardCharsets.UTF_8)).toList());
                    case RENAME -> {
                        ctx.rename(PARTITION, NAMES.get(op.name()), NAMES.get(op.renamedTo())).await();
                        line.append("ok");
                    }
                    case SYNC_PARTITION -> {
                        ctx.syncPartition(PARTITION).await();
                        line.append("ok");
                    }
                    case ALLOCATE -> {
                        handles.get(op.handle()).allocate(op.offset(), op.length()).await();
                        line.append("ok");
                    }
                }
            } catch (LockstepException | IllegalArgumentException failure) {
                line.append(failure.getClass().getSimpleName());
            }
            transcript.add(line.toString());
        }
        for (Blob blob : handles.values()) {
            blob.close();
        }
        transcript.addAll(finalState(ctx));
        return transcript;
    }

    /** Every blob of the partition with its length and content digest. */
    static List<String> finalState(Context ctx) {
        List<String> state = new ArrayList<>();
        List<byte[]> names;
        try {
            names = ctx.scan(PARTITION).await();
        } catch (LockstepException missing) {
            state.add("final: no partition");
            return state;
        }
        for (byte[] name : names) {
            OpenedBlob opened = ctx.open(PARTITION, name).await();
            try (Blob blob = opened.blob()) {
                byte[] content = blob.readAt(0, (int) opened.length()).await();
                state.add("final: " + new String(name, StandardCharsets.UTF_8) + " " + opened.length() + " "
                        + digest(content));
            }
        }
        return state;
    }
}
