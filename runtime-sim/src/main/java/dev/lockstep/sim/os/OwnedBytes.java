package dev.lockstep.sim.os;

/**
 * The bytes a {@code pwrite} or a {@code send} hands to what keeps them for the rest of the run (the page cache and
 * its journal, a peer's receive queue), which holds them as an array that nobody else holds or changes.
 */
final class OwnedBytes {

    private OwnedBytes() {
    }

    /**
     * {@code length} bytes of {@code source} from {@code sourceOffset}, as an array of their own: {@code source}
     * itself when the caller {@code owned} it and it is exactly those bytes, else a copy of them.
     *
     * @param owned whether {@code source} is an array nobody else holds or changes
     * @return {@code source}, or a new array of {@code length} bytes
     */
    static byte[] of(byte[] source, int sourceOffset, int length, boolean owned) {
        if (owned && sourceOffset == 0 && length == source.length) {
            return source;
        }
        byte[] copy = new byte[length];
        System.arraycopy(source, sourceOffset, copy, 0, length);
        return copy;
    }
}
