package dev.lockstep.sim.audit;

/**
 * The kinds an {@link Auditor}'s generic writer ({@link Auditor#record}) was given by name, each encoded once: an
 * open-addressed table keyed by the kind string's own (cached) hash, probed by identity first (kinds are
 * constants), so the lookup costs a field load and a compare. Half full at most; {@link #add} grows it. One per
 * auditor; not thread-safe, as the auditor.
 */
final class KindTable {
    private String[] keys = new String[64];
    private AuditKind[] values = new AuditKind[64];
    private int count;

    /** The encoded kind named {@code kind}, worked out once per kind and table. */
    AuditKind of(String kind) {
        int mask = keys.length - 1;
        int h = kind.hashCode();
        for (int i = (h ^ (h >>> 16)) & mask; ; i = (i + 1) & mask) {
            String key = keys[i];
            if (key == kind) {
                return values[i];
            }
            if (key == null) {
                return add(kind);
            }
            if (key.equals(kind)) {
                return values[i];
            }
        }
    }

    private AuditKind add(String kind) {
        if ((count + 1) * 2 > keys.length) {
            String[] oldKeys = keys;
            AuditKind[] oldValues = values;
            keys = new String[oldKeys.length * 2];
            values = new AuditKind[oldKeys.length * 2];
            count = 0;
            for (int i = 0; i < oldKeys.length; i++) {
                if (oldKeys[i] != null) {
                    insert(oldKeys[i], oldValues[i]);
                }
            }
        }
        AuditKind encoded = AuditKind.of(kind);
        insert(kind, encoded);
        return encoded;
    }

    private void insert(String kind, AuditKind encoded) {
        int mask = keys.length - 1;
        int h = kind.hashCode();
        int i = (h ^ (h >>> 16)) & mask;
        while (keys[i] != null) {
            i = (i + 1) & mask;
        }
        keys[i] = kind;
        values[i] = encoded;
        count++;
    }
}
