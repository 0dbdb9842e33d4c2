package dev.lockstep.kernel;

/**
 * The parts of Linux's {@code struct statx} that an {@link Opcode#STATX} request reads: the mask bits it asks
 * for and where the kernel leaves the answers in the request's buffer ({@code include/uapi/linux/stat.h}). The
 * simulator fills the same offsets, so the engine reads one layout on every kernel.
 */
public final class Statx {
    /** Bytes of the structure: the buffer of a {@link Opcode#STATX}. */
    public static final int BYTES = 256;
    /** Mask bit: the file's type ({@code stx_mode & S_IFMT}). */
    public static final int TYPE = 0x1;
    /** Mask bit: the file's size. */
    public static final int SIZE = 0x200;
    /** Mask bit: the direct I/O alignments (Linux 6.1). */
    public static final int DIOALIGN = 0x2000;
    /** {@code stx_mask} (u32): which fields the kernel filled. */
    public static final long MASK_OFFSET = 0;
    /** {@code stx_mode} (u16): the file's type and permissions. */
    public static final long MODE_OFFSET = 28;
    /** The type bits of {@code stx_mode}. */
    public static final int S_IFMT = 0170000;
    /** {@code stx_mode}'s type: a regular file. */
    public static final int S_IFREG = 0100000;
    /** {@code stx_size} (u64). */
    public static final long SIZE_OFFSET = 40;
    /** {@code stx_dio_mem_align} (u32): the alignment of a direct I/O's memory, 0 if unsupported. */
    public static final long DIO_MEM_ALIGN_OFFSET = 152;
    /** {@code stx_dio_offset_align} (u32): the alignment of a direct I/O's offset and length, 0 if unsupported. */
    public static final long DIO_OFFSET_ALIGN_OFFSET = 156;

    private Statx() {
    }

    /**
     * The file type that {@code mode}'s type bits name, as a message says it: "a regular file", "a FIFO", "a
     * directory", …
     *
     * @param mode {@code stx_mode}
     * @return the type in words, with the octal bits for a type Linux does not define
     */
    public static String typeName(int mode) {
        return switch (mode & S_IFMT) {
            case S_IFREG -> "a regular file";
            case 0010000 -> "a FIFO";
            case 0020000 -> "a character device";
            case 0040000 -> "a directory";
            case 0060000 -> "a block device";
            case 0120000 -> "a symbolic link";
            case 0140000 -> "a socket";
            default -> "a file of type 0" + Integer.toOctalString(mode & S_IFMT);
        };
    }
}
