package io.reactivecollectives.transport.rendezvous;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.reactivecollectives.store.wire.LengthPrefixedDecoder;

import java.util.List;
import java.util.Map;

/**
 * The TCP store's wire format, as small stateless encode/decode methods over Netty {@link ByteBuf}s
 * (in the style of rsocket-java's frame codecs).
 *
 * <pre>
 * frame    := length:int32 body            length = bytes of body, 5 .. maxFrameSize
 * body     := opcode:uint8 requestId:int32 payload
 * string   := n:int32 UTF-8[n]             bytes := n:int32 byte[n]
 * strings  := count:int32 string[count]
 *
 * HELLO    server -&gt; client  version:uint8 flags:uint8 (bit 0: authentication required) nonce:bytes
 * AUTH     client -&gt; server  mac:bytes clientNonce:bytes      mac = HMAC-SHA256(secret, nonce);
 *                                                            both empty when no secret is set
 * READY    server -&gt; client  proof:bytes                      proof = HMAC-SHA256(secret, clientNonce);
 *                                                            only when a secret is set
 * SET      key:string value:bytes                       -&gt; OK
 * SET_NO_REPLY key:string value:bytes                   -&gt; nothing (ERROR only if it fails)
 * GET      key:string timeoutMs:int64                   -&gt; VALUE | ERROR
 * ADD      key:string delta:int64                       -&gt; LONG
 * COMPARE_SET key:string expected:bytes desired:bytes   -&gt; VALUE
 * WAIT     keys:strings timeoutMs:int64                 -&gt; OK | ERROR
 * CHECK    keys:strings                                 -&gt; BOOL
 * DELETE   key:string                                   -&gt; BOOL
 * NUM_KEYS                                              -&gt; LONG
 * MULTI_GET keys:strings timeoutMs:int64                -&gt; VALUES | ERROR
 * MULTI_SET count:int32 (key:string value:bytes)[count] -&gt; OK
 * APPEND   key:string value:bytes                       -&gt; LONG
 * CANCEL   (requestId = the request to drop)            -&gt; nothing
 * ERROR    code:uint8 op:string message:string missing:strings waitedMs:int64
 *          (with requestId 0, answering no request: why the server is about to close the connection)
 * </pre>
 *
 * Decoding validates every length against the bytes left in the frame and rejects trailing bytes,
 * so a hostile frame can neither allocate more than its own size nor be misread: it fails with a
 * {@link StoreProtocolException}.
 */
public final class StoreFrameCodec {

    /** Protocol version carried by HELLO. */
    public static final int VERSION = 2;
    /** Bytes of the length prefix. */
    public static final int LENGTH_FIELD = LengthPrefixedDecoder.LENGTH_FIELD;
    /** Bytes of opcode and request id: the smallest body. */
    public static final int HEADER = 5;
    /** The default largest body (256 MiB): values of up to about that size in one call. */
    public static final int DEFAULT_MAX_FRAME = 256 << 20;
    /** The largest body accepted before authentication. */
    public static final int HANDSHAKE_MAX_FRAME = 1024;

    /** Error code of an ERROR response: a wait for keys ran out of time ({@code missing} names the keys). */
    public static final int E_TIMEOUT = 1;
    /** Error code of an ERROR response: the server rejected the request's arguments. */
    public static final int E_BAD_REQUEST = 2;
    /** Error code of an ERROR response: the store closed before the request completed. */
    public static final int E_CLOSED = 3;
    /** Error code of an ERROR response: reserved for a failure inside the server; not sent at present. */
    public static final int E_INTERNAL = 4;
    /** Error code of an ERROR response: the client failed authentication. */
    public static final int E_AUTH = 5;

    private StoreFrameCodec() {
    }

    // --- decoded forms -------------------------------------------------------------------------

    /** A request as the server decoded it. */
    public sealed interface Request permits Set, Get, Add, CompareSet, Wait, Check, Delete, NumKeys, MultiGet,
            MultiSet, Append, Cancel {
        /**
         * The request id the response repeats.
         *
         * @return the request id
         */
        int id();
    }

    /**
     * A set; {@code reply} false for {@link StoreOpcode#SET_NO_REPLY} (no response unless it fails).
     *
     * @param id    the request id
     * @param key   the key
     * @param value the value
     * @param reply whether the server answers with OK
     */
    public record Set(int id, String key, byte[] value, boolean reply) implements Request { }

    /**
     * A get: the value of {@code key}, waiting up to {@code timeoutMs} for it to be set.
     *
     * @param id        the request id
     * @param key       the key
     * @param timeoutMs how long the server waits for the key, in milliseconds
     */
    public record Get(int id, String key, long timeoutMs) implements Request { }

    /**
     * An add: adds {@code delta} to the counter at {@code key} (0 when absent); answered with the sum.
     *
     * @param id    the request id
     * @param key   the key
     * @param delta the amount to add
     */
    public record Add(int id, String key, long delta) implements Request { }

    /**
     * A compare-and-set: {@code key} becomes {@code desired} if it holds {@code expected}; answered
     * with the value held afterwards.
     *
     * @param id       the request id
     * @param key      the key
     * @param expected the value the key must hold
     * @param desired  the value it is set to
     */
    public record CompareSet(int id, String key, byte[] expected, byte[] desired) implements Request { }

    /**
     * A wait until every one of {@code keys} is set.
     *
     * @param id        the request id
     * @param keys      the keys waited for
     * @param timeoutMs how long the server waits, in milliseconds
     */
    public record Wait(int id, List<String> keys, long timeoutMs) implements Request { }

    /**
     * A check whether every one of {@code keys} is set, without waiting.
     *
     * @param id   the request id
     * @param keys the keys checked
     */
    public record Check(int id, List<String> keys) implements Request { }

    /**
     * A delete of {@code key}; answered with whether it existed.
     *
     * @param id  the request id
     * @param key the key
     */
    public record Delete(int id, String key) implements Request { }

    /**
     * A count of the keys in the store.
     *
     * @param id the request id
     */
    public record NumKeys(int id) implements Request { }

    /**
     * A get of several keys, waiting up to {@code timeoutMs} for all of them.
     *
     * @param id        the request id
     * @param keys      the keys, in the order the values are answered
     * @param timeoutMs how long the server waits for the keys, in milliseconds
     */
    public record MultiGet(int id, List<String> keys, long timeoutMs) implements Request { }

    /**
     * A set of several keys at once.
     *
     * @param id      the request id
     * @param entries the keys and their values
     */
    public record MultiSet(int id, Map<String, byte[]> entries) implements Request { }

    /**
     * An append of {@code value} to the bytes at {@code key} (created when absent).
     *
     * @param id    the request id
     * @param key   the key
     * @param value the bytes appended
     */
    public record Append(int id, String key, byte[] value) implements Request { }

    /**
     * Drops the pending request {@code id} (a wait the client gave up on); not answered.
     *
     * @param id the id of the request to drop
     */
    public record Cancel(int id) implements Request { }

    // --- header --------------------------------------------------------------------------------

    /**
     * The opcode of a frame body (reader index at the body's start); does not move the index.
     *
     * @param body a frame body, without the length prefix
     * @return the body's opcode
     * @throws StoreProtocolException if the body is shorter than a header or the opcode is unknown
     */
    public static StoreOpcode opcode(ByteBuf body) {
        if (body.readableBytes() < HEADER) {
            throw new StoreProtocolException("frame of " + body.readableBytes() + " bytes is shorter than its header");
        }
        return StoreOpcode.of(body.getUnsignedByte(body.readerIndex()));
    }

    static ByteBuf start(ByteBufAllocator alloc, int payload, StoreOpcode op, int id) {
        ByteBuf buf = alloc.buffer(LENGTH_FIELD + HEADER + payload);
        buf.writeInt(HEADER + payload);
        buf.writeByte(op.code());
        buf.writeInt(id);
        return buf;
    }

    static void expect(ByteBuf body, StoreOpcode expected) {
        StoreOpcode op = opcode(body);
        if (op != expected) {
            throw new StoreProtocolException("expected " + expected + " but got " + op);
        }
        body.skipBytes(HEADER);
    }

    // --- requests: encode (client) ---------------------------------------------------------------

    /**
     * Encodes a SET request, answered with OK.
     *
     * @param alloc allocates the frame
     * @param id    the request id
     * @param key   the key
     * @param value the value
     * @return the whole frame, owned by the caller
     */
    public static ByteBuf set(ByteBufAllocator alloc, int id, String key, byte[] value) {
        return StoreRequestEncoder.keyBytes(alloc, StoreOpcode.SET, id, key, value);
    }

    /**
     * A set the server applies without answering (PyTorch TCPStore's {@code set}).
     *
     * @param alloc allocates the frame
     * @param id    the request id (repeated by an ERROR if the set fails)
     * @param key   the key
     * @param value the value
     * @return the whole frame, owned by the caller
     */
    public static ByteBuf setNoReply(ByteBufAllocator alloc, int id, String key, byte[] value) {
        return StoreRequestEncoder.keyBytes(alloc, StoreOpcode.SET_NO_REPLY, id, key, value);
    }

    /**
     * Encodes an APPEND request, answered with the new length.
     *
     * @param alloc allocates the frame
     * @param id    the request id
     * @param key   the key
     * @param value the bytes to append
     * @return the whole frame, owned by the caller
     */
    public static ByteBuf append(ByteBufAllocator alloc, int id, String key, byte[] value) {
        return StoreRequestEncoder.keyBytes(alloc, StoreOpcode.APPEND, id, key, value);
    }

    /**
     * Encodes a GET request, answered with the value or, when the key is not set in time, an ERROR.
     *
     * @param alloc     allocates the frame
     * @param id        the request id
     * @param key       the key
     * @param timeoutMs how long the server waits for the key, in milliseconds
     * @return the whole frame, owned by the caller
     */
    public static ByteBuf get(ByteBufAllocator alloc, int id, String key, long timeoutMs) {
        return StoreRequestEncoder.keyLong(alloc, StoreOpcode.GET, id, key, timeoutMs);
    }

    /**
     * Encodes an ADD request, answered with the counter's new value.
     *
     * @param alloc allocates the frame
     * @param id    the request id
     * @param key   the counter's key
     * @param delta the amount to add
     * @return the whole frame, owned by the caller
     */
    public static ByteBuf add(ByteBufAllocator alloc, int id, String key, long delta) {
        return StoreRequestEncoder.keyLong(alloc, StoreOpcode.ADD, id, key, delta);
    }

    /**
     * Encodes a COMPARE_SET request, answered with the value held afterwards.
     *
     * @param alloc    allocates the frame
     * @param id       the request id
     * @param key      the key
     * @param expected the value the key must hold (empty: the key must be absent)
     * @param desired  the value to set
     * @return the whole frame, owned by the caller
     */
    public static ByteBuf compareSet(ByteBufAllocator alloc, int id, String key, byte[] expected, byte[] desired) {
        return StoreRequestEncoder.compareSet(alloc, id, key, expected, desired);
    }

    /**
     * Encodes a WAIT request, answered with OK once every key is set or an ERROR when the wait runs out.
     *
     * @param alloc     allocates the frame
     * @param id        the request id
     * @param keys      the keys to wait for
     * @param timeoutMs how long the server waits, in milliseconds
     * @return the whole frame, owned by the caller
     */
    public static ByteBuf await(ByteBufAllocator alloc, int id, List<String> keys, long timeoutMs) {
        return StoreRequestEncoder.keysLong(alloc, StoreOpcode.WAIT, id, keys, timeoutMs);
    }

    /**
     * Encodes a MULTI_GET request, answered with the values in key order or an ERROR when the wait runs out.
     *
     * @param alloc     allocates the frame
     * @param id        the request id
     * @param keys      the keys
     * @param timeoutMs how long the server waits for them, in milliseconds
     * @return the whole frame, owned by the caller
     */
    public static ByteBuf multiGet(ByteBufAllocator alloc, int id, List<String> keys, long timeoutMs) {
        return StoreRequestEncoder.keysLong(alloc, StoreOpcode.MULTI_GET, id, keys, timeoutMs);
    }

    /**
     * Encodes a CHECK request, answered with whether every key is set.
     *
     * @param alloc allocates the frame
     * @param id    the request id
     * @param keys  the keys
     * @return the whole frame, owned by the caller
     */
    public static ByteBuf check(ByteBufAllocator alloc, int id, List<String> keys) {
        return StoreRequestEncoder.check(alloc, id, keys);
    }

    /**
     * Encodes a DELETE request, answered with whether the key existed.
     *
     * @param alloc allocates the frame
     * @param id    the request id
     * @param key   the key
     * @return the whole frame, owned by the caller
     */
    public static ByteBuf delete(ByteBufAllocator alloc, int id, String key) {
        return StoreRequestEncoder.delete(alloc, id, key);
    }

    /**
     * Encodes a NUM_KEYS request, answered with the number of keys.
     *
     * @param alloc allocates the frame
     * @param id    the request id
     * @return the whole frame, owned by the caller
     */
    public static ByteBuf numKeys(ByteBufAllocator alloc, int id) {
        return start(alloc, 0, StoreOpcode.NUM_KEYS, id);
    }

    /**
     * Encodes a CANCEL of the pending request {@code id}; not answered.
     *
     * @param alloc allocates the frame
     * @param id    the id of the request to drop
     * @return the whole frame, owned by the caller
     */
    public static ByteBuf cancel(ByteBufAllocator alloc, int id) {
        return start(alloc, 0, StoreOpcode.CANCEL, id);
    }

    /**
     * Encodes a MULTI_SET request, answered with OK.
     *
     * @param alloc   allocates the frame
     * @param id      the request id
     * @param entries the keys and values, in iteration order
     * @return the whole frame, owned by the caller
     */
    public static ByteBuf multiSet(ByteBufAllocator alloc, int id, Map<String, byte[]> entries) {
        return StoreRequestEncoder.multiSet(alloc, id, entries);
    }

    // --- requests: decode (server) ---------------------------------------------------------------

    /**
     * Decodes a request body; {@link StoreProtocolException} if it is not a well-formed request.
     *
     * @param body the frame body, without the length prefix; read to its end
     * @return the request
     * @throws StoreProtocolException if the body is malformed or its opcode is not a request
     */
    public static Request decodeRequest(ByteBuf body) {
        return StoreRequestDecoder.decode(body);
    }
}
