package io.reactivecollectives.transport.rendezvous;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.reactivecollectives.core.rendezvous.KeyValueWaiters;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The writes of a replicated store as log commands ({@link StoreReplication}): a write request
 * encoded, applied to a replica's {@link KeyValueWaiters} (waking its waiters), its result encoded,
 * and the response made from that result. Stateless; one byte of kind, then the request's fields.
 */
final class StoreCommands {

    private static final byte OK = 0, REFUSED = 1, CLOSED = 2;
    private static final byte SET = 1, ADD = 2, COMPARE_SET = 3, DELETE = 4, MULTI_SET = 5, APPEND = 6;

    private StoreCommands() {
    }

    /** {@return whether {@code r} changes the store (goes through the log)} */
    static boolean writes(StoreFrameCodec.Request r) {
        return r instanceof StoreFrameCodec.Set || r instanceof StoreFrameCodec.Add
                || r instanceof StoreFrameCodec.CompareSet || r instanceof StoreFrameCodec.Delete
                || r instanceof StoreFrameCodec.MultiSet || r instanceof StoreFrameCodec.Append;
    }

    /** The log command of write {@code r} ({@link #writes}). */
    static byte[] encode(StoreFrameCodec.Request r) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            if (r instanceof StoreFrameCodec.Set q) {
                out.writeByte(SET);
                out.writeUTF(q.key());
                bytes(out, q.value());
            } else if (r instanceof StoreFrameCodec.Add q) {
                out.writeByte(ADD);
                out.writeUTF(q.key());
                out.writeLong(q.delta());
            } else if (r instanceof StoreFrameCodec.CompareSet q) {
                out.writeByte(COMPARE_SET);
                out.writeUTF(q.key());
                bytes(out, q.expected());
                bytes(out, q.desired());
            } else if (r instanceof StoreFrameCodec.Delete q) {
                out.writeByte(DELETE);
                out.writeUTF(q.key());
            } else if (r instanceof StoreFrameCodec.MultiSet q) {
                out.writeByte(MULTI_SET);
                out.writeInt(q.entries().size());
                for (Map.Entry<String, byte[]> e : q.entries().entrySet()) {
                    out.writeUTF(e.getKey());
                    bytes(out, e.getValue());
                }
            } else if (r instanceof StoreFrameCodec.Append q) {
                out.writeByte(APPEND);
                out.writeUTF(q.key());
                bytes(out, q.value());
            } else {
                throw new IllegalArgumentException("not a write: " + r.getClass().getSimpleName());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /**
     * Applies {@code command} to {@code kv}, wakes the waiters it completes, and returns the outcome
     * ({@link #response} reads it: a status byte, then the result): a counter's value, the value held after a compare-and-set, whether
     * a delete found its key, nothing for a set.
     */
    static byte[] apply(byte[] command, KeyValueWaiters<StoreRequests.ServerWaiter> kv) {
        List<KeyValueWaiters.Fired<StoreRequests.ServerWaiter>> fired = new ArrayList<>(0);
        byte[] result;
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(command))) {
            byte kind = in.readByte();
            switch (kind) {
                case SET -> {
                    kv.set(in.readUTF(), bytes(in), fired);
                    result = new byte[0];
                }
                case ADD -> result = longBytes(kv.add(in.readUTF(), in.readLong(), fired));
                case COMPARE_SET -> {
                    byte[] held = kv.compareSet(in.readUTF(), bytes(in), bytes(in), fired);
                    result = held == null ? new byte[] {0} : prefixed(held);
                }
                case DELETE -> result = new byte[] {(byte) (kv.delete(in.readUTF()) ? 1 : 0)};
                case MULTI_SET -> {
                    int n = in.readInt();
                    Map<String, byte[]> entries = new LinkedHashMap<>();
                    for (int i = 0; i < n; i++) {
                        entries.put(in.readUTF(), bytes(in));
                    }
                    kv.multiSet(entries, fired);
                    result = new byte[0];
                }
                case APPEND -> result = longBytes(kv.append(in.readUTF(), bytes(in), fired));
                default -> throw new IllegalArgumentException("unknown store command kind " + kind);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("corrupt store command", e);
        } catch (IllegalArgumentException | IllegalStateException refused) {
            // the same on every replica (a counter that is not a number; this replica's server closed)
            byte[] why = String.valueOf(refused.getMessage()).getBytes(java.nio.charset.StandardCharsets.UTF_8);
            byte[] r = new byte[why.length + 1];
            r[0] = refused instanceof IllegalArgumentException ? REFUSED : CLOSED;
            System.arraycopy(why, 0, r, 1, why.length);
            return r;
        }
        StoreRequests.fire(fired);
        byte[] r = new byte[result.length + 1];   // OK, then the result
        System.arraycopy(result, 0, r, 1, result.length);
        return r;
    }

    /** The response to write {@code r} whose command returned {@code result}, or null when none is owed. */
    static ByteBuf response(ByteBufAllocator a, StoreFrameCodec.Request r, byte[] outcome) {
        int id = r.id();
        if (outcome[0] != OK) {
            String why = new String(outcome, 1, outcome.length - 1, java.nio.charset.StandardCharsets.UTF_8);
            String op = Character.toLowerCase(r.getClass().getSimpleName().charAt(0)) + r.getClass().getSimpleName().substring(1);
            return StoreResponseCodec.error(a, id, outcome[0] == REFUSED ? StoreFrameCodec.E_BAD_REQUEST
                    : StoreFrameCodec.E_CLOSED, op, why, List.of(), 0);
        }
        byte[] result = java.util.Arrays.copyOfRange(outcome, 1, outcome.length);
        if (r instanceof StoreFrameCodec.Set q) {
            return q.reply() ? StoreResponseCodec.ok(a, id) : null;
        } else if (r instanceof StoreFrameCodec.Add || r instanceof StoreFrameCodec.Append) {
            return StoreResponseCodec.longValue(a, id, ByteBuffer.wrap(result).getLong());
        } else if (r instanceof StoreFrameCodec.CompareSet) {
            byte[] held = result[0] == 0 ? null : java.util.Arrays.copyOfRange(result, 1, result.length);
            return StoreResponseCodec.value(a, id, held);
        } else if (r instanceof StoreFrameCodec.Delete) {
            return StoreResponseCodec.boolValue(a, id, result[0] != 0);
        }
        return StoreResponseCodec.ok(a, id);   // multiSet
    }

    private static void bytes(DataOutputStream out, byte[] b) throws IOException {
        out.writeInt(b.length);
        out.write(b);
    }

    private static byte[] bytes(DataInputStream in) throws IOException {
        byte[] b = new byte[in.readInt()];
        in.readFully(b);
        return b;
    }

    private static byte[] longBytes(long v) {
        return ByteBuffer.allocate(Long.BYTES).putLong(v).array();
    }

    private static byte[] prefixed(byte[] held) {
        byte[] r = new byte[held.length + 1];
        r[0] = 1;
        System.arraycopy(held, 0, r, 1, held.length);
        return r;
    }
}
