package io.reactivecollectives.transport.rendezvous;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.util.List;
import java.util.Map;

import static io.reactivecollectives.transport.rendezvous.StoreFrameCodec.start;
import static io.reactivecollectives.transport.rendezvous.StoreFrameFields.put;
import static io.reactivecollectives.transport.rendezvous.StoreFrameFields.size;

/**
 * The client side of the TCP store's requests: the payload layouts behind {@link StoreFrameCodec}'s
 * encode methods (a key and bytes, a key and an int64, keys and an int64, and the few of their own),
 * each sized exactly before it is written.
 */
final class StoreRequestEncoder {

    private StoreRequestEncoder() {
    }

    /** {@code key:string value:bytes} (SET, SET_NO_REPLY, APPEND). */
    static ByteBuf keyBytes(ByteBufAllocator alloc, StoreOpcode op, int id, String key, byte[] value) {
        ByteBuf buf = start(alloc, size(key) + size(value), op, id);
        put(buf, key);
        put(buf, value);
        return buf;
    }

    /** {@code key:string value:int64} (GET, ADD). */
    static ByteBuf keyLong(ByteBufAllocator alloc, StoreOpcode op, int id, String key, long value) {
        ByteBuf buf = start(alloc, size(key) + 8, op, id);
        put(buf, key);
        buf.writeLong(value);
        return buf;
    }

    /** {@code keys:strings value:int64} (WAIT, MULTI_GET). */
    static ByteBuf keysLong(ByteBufAllocator alloc, StoreOpcode op, int id, List<String> keys, long value) {
        ByteBuf buf = start(alloc, size(keys) + 8, op, id);
        put(buf, keys);
        buf.writeLong(value);
        return buf;
    }

    /** {@code key:string expected:bytes desired:bytes}. */
    static ByteBuf compareSet(ByteBufAllocator alloc, int id, String key, byte[] expected, byte[] desired) {
        ByteBuf buf = start(alloc, size(key) + size(expected) + size(desired), StoreOpcode.COMPARE_SET, id);
        put(buf, key);
        put(buf, expected);
        put(buf, desired);
        return buf;
    }

    /** {@code keys:strings}. */
    static ByteBuf check(ByteBufAllocator alloc, int id, List<String> keys) {
        ByteBuf buf = start(alloc, size(keys), StoreOpcode.CHECK, id);
        put(buf, keys);
        return buf;
    }

    /** {@code key:string}. */
    static ByteBuf delete(ByteBufAllocator alloc, int id, String key) {
        ByteBuf buf = start(alloc, size(key), StoreOpcode.DELETE, id);
        put(buf, key);
        return buf;
    }

    /** {@code count:int32 (key:string value:bytes)[count]}, in the map's iteration order. */
    static ByteBuf multiSet(ByteBufAllocator alloc, int id, Map<String, byte[]> entries) {
        int payload = 4;
        for (Map.Entry<String, byte[]> e : entries.entrySet()) {
            payload += size(e.getKey()) + size(e.getValue());
        }
        ByteBuf buf = start(alloc, payload, StoreOpcode.MULTI_SET, id);
        buf.writeInt(entries.size());
        for (Map.Entry<String, byte[]> e : entries.entrySet()) {
            put(buf, e.getKey());
            put(buf, e.getValue());
        }
        return buf;
    }
}
