package dev.lockstep.sim.os;

import dev.lockstep.kernel.KernelException;

/** What an fd of an open file or directory names: a {@link SimFileSystem} handle. */
final class FileDescription extends Description {
    /**
     * The alignment direct I/O needs on every simulated file (offsets, lengths and memory addresses): the
     * logical block size of a common disk, 512 bytes.
     */
    static final int DIRECT_IO_ALIGNMENT = 512;

    final SimFileSystem fileSystem;
    final SimFileSystem.Handle handle;
    /** Opened with {@code O_DIRECT}: transfers must be aligned to {@link #DIRECT_IO_ALIGNMENT}. */
    final boolean direct;

    FileDescription(SimFileSystem fileSystem, SimFileSystem.Handle handle, boolean direct) {
        this.fileSystem = fileSystem;
        this.handle = handle;
        this.direct = direct;
    }

    @Override
    void release() {
        try {
            fileSystem.close(handle);
        } catch (KernelException staleAfterCrash) {
            // The handle died with a crash of the file system; nothing is left to release.
        }
    }

    @Override
    String subject() {
        return handle.path();
    }

    @Override
    String kind() {
        return handle.isDirectory() ? "directory" : "file";
    }

    @Override
    String blobName() {
        if (handle.isDirectory()) {
            return "";
        }
        String path = handle.path();
        int slash = path.lastIndexOf('/');
        int parent = path.lastIndexOf('/', slash - 1);
        String hex = path.substring(slash + 1);
        if (parent < 0 || hex.isEmpty() || hex.length() % 2 != 0 || !hex.matches("[0-9a-f]+")) {
            return "";
        }
        byte[] name = java.util.HexFormat.of().parseHex(hex);
        StringBuilder text = new StringBuilder();
        for (byte b : name) {
            text.append(b >= 0x20 && b < 0x7f ? String.valueOf((char) b) : String.format("\\x%02x", b & 0xff));
        }
        return " = blob '" + path.substring(parent + 1, slash) + "/" + text + "'";
    }
}
