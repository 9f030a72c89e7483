package io.reactivecollectives.transport.rendezvous;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.util.ArrayList;
import java.util.List;

import static io.reactivecollectives.transport.rendezvous.StoreFrameCodec.opcode;
import static io.reactivecollectives.transport.rendezvous.StoreFrameCodec.start;
import static io.reactivecollectives.transport.rendezvous.StoreFrameFields.end;
import static io.reactivecollectives.transport.rendezvous.StoreFrameFields.put;
import static io.reactivecollectives.transport.rendezvous.StoreFrameFields.readBytes;
import static io.reactivecollectives.transport.rendezvous.StoreFrameFields.readCount;
import static io.reactivecollectives.transport.rendezvous.StoreFrameFields.readLong;
import static io.reactivecollectives.transport.rendezvous.StoreFrameFields.readString;
import static io.reactivecollectives.transport.rendezvous.StoreFrameFields.readStrings;
import static io.reactivecollectives.transport.rendezvous.StoreFrameFields.readU8;
import static io.reactivecollectives.transport.rendezvous.StoreFrameFields.size;

/**
 * The TCP store's responses (OK, VALUE, LONG, BOOL, VALUES, ERROR; see {@link StoreFrameCodec} for
 * the wire format and the error codes): their decoded forms, and small stateless encode (server)
 * and decode (client) methods.
 */
public final class StoreResponseCodec {

    private StoreResponseCodec() {
    }

    /** A response as the client decoded it. */
    public sealed interface Response permits Ok, Value, LongValue, BoolValue, Values, Error {
        /**
         * The id of the request this response answers.
         *
         * @return the request id
         */
        int id();
    }

    /**
     * OK: the request succeeded and returns nothing.
     *
     * @param id the request id
     */
    public record Ok(int id) implements Response { }

    /**
     * VALUE: one value (get, compare-and-set).
     *
     * @param id    the request id
     * @param value the value
     */
    public record Value(int id, byte[] value) implements Response { }

    /**
     * LONG: a number (add, number of keys, append's new length).
     *
     * @param id    the request id
     * @param value the number
     */
    public record LongValue(int id, long value) implements Response { }

    /**
     * BOOL: a yes or no (check, delete).
     *
     * @param id    the request id
     * @param value the answer
     */
    public record BoolValue(int id, boolean value) implements Response { }

    /**
     * VALUES: several values, in the order of the keys asked for (multi-get).
     *
     * @param id     the request id
     * @param values the values
     */
    public record Values(int id, List<byte[]> values) implements Response { }

    /**
     * ERROR: the request failed.
     *
     * @param id       the request id
     * @param code     why: {@link StoreFrameCodec#E_TIMEOUT}, {@link StoreFrameCodec#E_BAD_REQUEST}, {@link StoreFrameCodec#E_CLOSED}, {@link StoreFrameCodec#E_INTERNAL}
     *                 or {@link StoreFrameCodec#E_AUTH}
     * @param op       the operation that failed ({@code get})
     * @param message  the server's description
     * @param missing  for a timeout, the keys still missing; otherwise empty
     * @param waitedMs for a timeout, how long the server waited, in milliseconds; otherwise 0
     */
    public record Error(int id, int code, String op, String message, List<String> missing, long waitedMs)
            implements Response { }

    // --- responses: encode (server) ------------------------------------------------------------

    /**
     * Encodes an OK response.
     *
     * @param alloc allocates the frame
     * @param id    the id of the request answered
     * @return the whole frame, owned by the caller
     */
    public static ByteBuf ok(ByteBufAllocator alloc, int id) {
        return start(alloc, 0, StoreOpcode.OK, id);
    }

    /**
     * Encodes a VALUE response.
     *
     * @param alloc allocates the frame
     * @param id    the id of the request answered
     * @param value the value
     * @return the whole frame, owned by the caller
     */
    public static ByteBuf value(ByteBufAllocator alloc, int id, byte[] value) {
        ByteBuf buf = start(alloc, size(value), StoreOpcode.VALUE, id);
        put(buf, value);
        return buf;
    }

    /**
     * Encodes a LONG response.
     *
     * @param alloc allocates the frame
     * @param id    the id of the request answered
     * @param value the number
     * @return the whole frame, owned by the caller
     */
    public static ByteBuf longValue(ByteBufAllocator alloc, int id, long value) {
        ByteBuf buf = start(alloc, 8, StoreOpcode.LONG, id);
        buf.writeLong(value);
        return buf;
    }

    /**
     * Encodes a BOOL response.
     *
     * @param alloc allocates the frame
     * @param id    the id of the request answered
     * @param value the answer
     * @return the whole frame, owned by the caller
     */
    public static ByteBuf boolValue(ByteBufAllocator alloc, int id, boolean value) {
        ByteBuf buf = start(alloc, 1, StoreOpcode.BOOL, id);
        buf.writeByte(value ? 1 : 0);
        return buf;
    }

    /**
     * Encodes a VALUES response.
     *
     * @param alloc  allocates the frame
     * @param id     the id of the request answered
     * @param values the values, in the order of the keys asked for
     * @return the whole frame, owned by the caller
     */
    public static ByteBuf values(ByteBufAllocator alloc, int id, List<byte[]> values) {
        int payload = 4;
        for (byte[] v : values) {
            payload += size(v);
        }
        ByteBuf buf = start(alloc, payload, StoreOpcode.VALUES, id);
        buf.writeInt(values.size());
        for (byte[] v : values) {
            put(buf, v);
        }
        return buf;
    }

    /**
     * Encodes an ERROR response.
     *
     * @param alloc    allocates the frame
     * @param id       the id of the request answered
     * @param code     why it failed: {@link StoreFrameCodec#E_TIMEOUT}, {@link StoreFrameCodec#E_BAD_REQUEST}, {@link StoreFrameCodec#E_CLOSED},
     *                 {@link StoreFrameCodec#E_INTERNAL} or {@link StoreFrameCodec#E_AUTH}
     * @param op       the operation that failed ({@code get})
     * @param message  a description (null: empty)
     * @param missing  for a timeout, the keys still missing; otherwise empty
     * @param waitedMs for a timeout, how long the server waited, in milliseconds; otherwise 0
     * @return the whole frame, owned by the caller
     */
    public static ByteBuf error(ByteBufAllocator alloc, int id, int code, String op, String message,
                                List<String> missing, long waitedMs) {
        String msg = message == null ? "" : message;
        ByteBuf buf = start(alloc, 1 + size(op) + size(msg) + size(missing) + 8, StoreOpcode.ERROR, id);
        buf.writeByte(code);
        put(buf, op);
        put(buf, msg);
        put(buf, missing);
        buf.writeLong(waitedMs);
        return buf;
    }

    // --- responses: decode (client) ------------------------------------------------------------

    /**
     * Decodes a response body; {@link StoreProtocolException} if it is not a well-formed response.
     *
     * @param body the frame body, without the length prefix; read to its end
     * @return the response
     * @throws StoreProtocolException if the body is malformed or its opcode is not a response
     */
    public static Response decodeResponse(ByteBuf body) {
        StoreOpcode op = opcode(body);
        body.skipBytes(1);
        int id = body.readInt();
        Response r = switch (op) {
            case OK -> new Ok(id);
            case VALUE -> new Value(id, readBytes(body));
            case LONG -> new LongValue(id, readLong(body));
            case BOOL -> new BoolValue(id, readU8(body) != 0);
            case VALUES -> {
                int n = readCount(body, 4);
                List<byte[]> values = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    values.add(readBytes(body));
                }
                yield new Values(id, values);
            }
            case ERROR -> new Error(id, readU8(body), readString(body), readString(body), readStrings(body),
                    readLong(body));
            default -> throw new StoreProtocolException(op + " is not a response");
        };
        end(body);
        return r;
    }
}
