package io.reactivecollectives.transport.group;

import java.util.HashMap;

/**
 * The dtypes of a stream's chunks, chunk by chunk (a stream's chunks may differ in dtype, its ranks
 * may not): what each chunk's frames said as they arrived, and what the chunk is here once it
 * started. A chunk whose frames and local tensor disagree is never combined. Frames come on the
 * transport's threads, chunks start on the caller's: every method holds this object's lock. A
 * chunk's entry goes when it ends here, so a long stream holds only the chunks in flight.
 */
final class ChunkDtypes {

    /** One chunk's dtype (plus one) as first seen, who said it, and the first peer that said otherwise. */
    private static final class Seen {
        int dtype;
        int source;
        boolean local;
        int oddSource = -1;
        int oddDtype;
    }

    private final HashMap<Integer, Seen> chunks = new HashMap<>();

    /**
     * A frame of chunk {@code tag} from {@code source} says {@code dtype}: the conflict when the chunk
     * started here with another dtype, else null (a frame before the chunk started here is noted).
     */
    synchronized ChunkConflict frame(int tag, int source, int dtype) {
        Seen s = chunks.get(tag);
        if (s == null) {
            s = new Seen();
            s.dtype = dtype;
            s.source = source;
            chunks.put(tag, s);
        } else if (s.dtype != dtype) {
            if (s.local) {
                return new ChunkConflict(tag, source, dtype, s.dtype);
            }
            if (s.oddSource < 0) {
                s.oddSource = source;
                s.oddDtype = dtype;
            }
        }
        return null;
    }

    /** Chunk {@code tag} starts here with {@code dtype}: the conflict with a frame that came before, or null. */
    synchronized ChunkConflict local(int tag, int dtype) {
        Seen s = chunks.get(tag);
        if (s == null) {
            s = new Seen();
            chunks.put(tag, s);
        } else if (s.dtype != dtype) {
            return new ChunkConflict(tag, s.source, s.dtype, dtype);
        } else if (s.oddSource >= 0) {
            return new ChunkConflict(tag, s.oddSource, s.oddDtype, dtype);
        }
        s.dtype = dtype;
        s.local = true;
        return null;
    }

    /** Chunk {@code tag} ended here: every frame of it has arrived. */
    synchronized void done(int tag) {
        chunks.remove(tag);
    }
}
