package io.reactivecollectives.core;

import io.reactivecollectives.core.ObjectHeader.Status;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;

/** Encoding a rank's objects into blobs (with a status instead of an exception) and decoding received ones. */
final class ObjectCoding {

    /** Decoding more than this many bytes moves to the parallel (CPU) scheduler, off the transport's threads. */
    static final long OFFLOAD_BYTES = 1 << 20;

    private ObjectCoding() {
    }

    /** A rank's encoded part, or why there is none. */
    record Encoded(ObjectBlob blob, long length, Status status, String detail) {

        static Encoded ok(ObjectBlob blob) {
            return new Encoded(blob, blob.length(), Status.OK, "");
        }

        static Encoded failed(Status status, String detail) {
            return new Encoded(null, 0, status, detail);
        }

        /** What a rank that sends nothing says: ready, or no codec to agree with. */
        static Encoded nothing(Codec<?> codec) {
            return codec == null ? failed(Status.BAD_ARGUMENT, "the codec is null") : new Encoded(null, 0, Status.OK, "");
        }
    }

    /** Encodes {@code value}; an encoding over {@code limit} bytes or a codec's exception become a status. */
    static <T> Encoded encode(Codec<T> codec, T value, long limit) {
        if (codec == null) {
            return Encoded.failed(Status.BAD_ARGUMENT, "the codec is null");
        }
        ObjectBlob blob = ObjectBlob.empty();
        try {
            if (codec instanceof RawBytes raw) {   // an array already: lent, not copied
                byte[] bytes = raw.bytesOf(value);
                if (bytes.length > limit) {
                    throw new ObjectBlob.LimitExceeded(bytes.length, limit);
                }
                return Encoded.ok(ObjectBlob.lent(bytes));
            }
            try (OutputStream out = blob.writer(limit)) {
                codec.encode(value, out);
            }
        } catch (Exception | LinkageError | AssertionError | StackOverflowError e) {   // an Error of the codec's too: named, never left to the peers' timeout
            ObjectBlob.LimitExceeded over = limitExceeded(e);
            if (over != null) {
                return Encoded.failed(Status.OVER_LIMIT, over.getMessage());
            }
            return Encoded.failed(Status.ENCODE_FAILED, e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        return Encoded.ok(blob);
    }

    private static ObjectBlob.LimitExceeded limitExceeded(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ObjectBlob.LimitExceeded l) {
                return l;
            }
        }
        return null;
    }

    /** Decodes rank {@code from}'s bytes; a codec's failure names that rank. */
    static <T> T decode(ObjectCall call, Codec<T> codec, ObjectBlob bytes, int from) {
        try (InputStream in = bytes.reader()) {
            return codec.decode(in);
        } catch (Exception | LinkageError | AssertionError | StackOverflowError e) {   // an Error of the codec's too: named, never left to the peers' timeout
            throw call.error(from, "decoding the object from rank " + from + " (" + bytes.length() + " bytes, codec '"
                    + codec.id() + "') failed: " + e, e);
        }
    }

    /**
     * Decodes every part in rank order into a list (null elements where a value decoded to null),
     * dropping each part once read so that its bytes can go before the next is decoded.
     */
    static <T> List<T> decodeAll(ObjectCall call, Codec<T> codec, ObjectBlob[] parts) {
        List<T> out = new ArrayList<>(parts.length);
        for (int q = 0; q < parts.length; q++) {
            out.add(decode(call, codec, parts[q], q));
            parts[q] = null;
        }
        return Collections.unmodifiableList(out);
    }

    /** Runs {@code work} here for small inputs, on the parallel scheduler for more than {@link #OFFLOAD_BYTES}. */
    static <R> Mono<R> onCpu(long bytes, Callable<R> work) {
        Mono<R> m = Mono.fromCallable(work);
        return bytes > OFFLOAD_BYTES ? m.subscribeOn(Schedulers.parallel()) : m;
    }
}
