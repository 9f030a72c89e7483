package io.reactivecollectives.core;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * How the object collectives turn a value into bytes and back. Every rank of a call must use a
 * codec of the same {@link #id()}: the ids travel with the first bytes of every call, and ranks
 * whose codecs differ fail the call on every rank ({@link CollectiveMismatchException}),
 * before any of the objects' bytes are sent.
 *
 * <p>{@link #json(Class)} (Jackson, the default) suits configurations, metrics, vocabularies and
 * any JSON-shaped value; plug in Kryo, Protobuf, Arrow IPC or anything else by implementing the two
 * methods. Java serialization is deliberately not offered: it runs code of the sender's choosing
 * on read.
 *
 * <p>A codec is called on the caller's thread (encode) and on a CPU scheduler (decode of large
 * objects); it must not block and must be safe to call from several threads at once.
 *
 * @param <T> the type of the values
 */
public interface Codec<T> {

    /**
     * What the bytes are: the format and the type, e.g. {@code json:java.util.Map<java.lang.String,java.lang.Long>}.
     * Ranks compare ids, not behaviour: two codecs with one id must read each other's bytes.
     *
     * @return the id; ranks compare a hash of all of it, and messages show its first 96 bytes
     */
    String id();

    /**
     * Writes {@code value} to {@code out} (do not close it).
     *
     * @param value the value, may be null where the codec can express null
     * @param out   where the bytes go
     * @throws IOException when the value cannot be written
     */
    void encode(T value, OutputStream out) throws IOException;

    /**
     * Reads one value from {@code in}, which holds exactly the bytes {@link #encode} wrote.
     *
     * @param in the bytes
     * @return the value
     * @throws IOException when the bytes are not a value of this codec
     */
    T decode(InputStream in) throws IOException;

    /**
     * JSON through a plain Jackson {@link ObjectMapper} (no default typing: the bytes never name
     * classes to load). {@code Object.class} gives JSON-shaped values: maps, lists, strings,
     * numbers, booleans and null, as c10d's object collectives give Python values.
     *
     * @param type the type to read
     * @param <T>  the type
     * @return the codec
     */
    static <T> Codec<T> json(Class<T> type) {
        return JsonCodec.of(JsonCodec.MAPPER.constructType(type));
    }

    /**
     * JSON of a generic type, e.g. {@code Codec.json(new TypeReference<Map<String, Long>>() {})}.
     *
     * @param type the type to read
     * @param <T>  the type
     * @return the codec
     */
    static <T> Codec<T> json(TypeReference<T> type) {
        return JsonCodec.of(JsonCodec.MAPPER.constructType(type));
    }

    /**
     * JSON through the caller's own mapper (its modules and settings), reading {@code type}.
     *
     * @param mapper the mapper
     * @param type   the type to read
     * @param <T>    the type
     * @return the codec
     */
    static <T> Codec<T> json(ObjectMapper mapper, JavaType type) {
        return new JsonCodec<>(mapper, type);
    }

    /**
     * The bytes as they are (no encoding), for values a caller has already encoded. The array is
     * lent to the call, not copied, as a tensor is: leave it unchanged until the call completes.
     * Results are always new arrays.
     *
     * @return the codec, id {@code bytes}
     */
    static Codec<byte[]> bytes() {
        return BytesCodec.INSTANCE;
    }
}
