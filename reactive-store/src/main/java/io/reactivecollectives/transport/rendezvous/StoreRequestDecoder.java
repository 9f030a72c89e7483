package io.reactivecollectives.transport.rendezvous;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.transport.rendezvous.StoreFrameCodec.Add;
import io.reactivecollectives.transport.rendezvous.StoreFrameCodec.Append;
import io.reactivecollectives.transport.rendezvous.StoreFrameCodec.Cancel;
import io.reactivecollectives.transport.rendezvous.StoreFrameCodec.Check;
import io.reactivecollectives.transport.rendezvous.StoreFrameCodec.CompareSet;
import io.reactivecollectives.transport.rendezvous.StoreFrameCodec.Delete;
import io.reactivecollectives.transport.rendezvous.StoreFrameCodec.Get;
import io.reactivecollectives.transport.rendezvous.StoreFrameCodec.MultiGet;
import io.reactivecollectives.transport.rendezvous.StoreFrameCodec.MultiSet;
import io.reactivecollectives.transport.rendezvous.StoreFrameCodec.NumKeys;
import io.reactivecollectives.transport.rendezvous.StoreFrameCodec.Request;
import io.reactivecollectives.transport.rendezvous.StoreFrameCodec.Set;
import io.reactivecollectives.transport.rendezvous.StoreFrameCodec.Wait;

import java.util.LinkedHashMap;
import java.util.Map;

import static io.reactivecollectives.transport.rendezvous.StoreFrameCodec.opcode;
import static io.reactivecollectives.transport.rendezvous.StoreFrameFields.end;
import static io.reactivecollectives.transport.rendezvous.StoreFrameFields.readBytes;
import static io.reactivecollectives.transport.rendezvous.StoreFrameFields.readCount;
import static io.reactivecollectives.transport.rendezvous.StoreFrameFields.readLong;
import static io.reactivecollectives.transport.rendezvous.StoreFrameFields.readString;
import static io.reactivecollectives.transport.rendezvous.StoreFrameFields.readStrings;

/**
 * The server side of the TCP store's requests: a request body decoded into its
 * {@link StoreFrameCodec.Request} form (behind {@link StoreFrameCodec#decodeRequest}), every field
 * checked against the bytes left and trailing bytes rejected.
 */
final class StoreRequestDecoder {

    private StoreRequestDecoder() {
    }

    /** The request {@code body} holds, read to its end; {@link StoreProtocolException} if malformed. */
    static Request decode(ByteBuf body) {
        StoreOpcode op = opcode(body);
        body.skipBytes(1);
        int id = body.readInt();
        Request r = switch (op) {
            case SET -> new Set(id, readString(body), readBytes(body), true);
            case SET_NO_REPLY -> new Set(id, readString(body), readBytes(body), false);
            case GET -> new Get(id, readString(body), readLong(body));
            case ADD -> new Add(id, readString(body), readLong(body));
            case COMPARE_SET -> new CompareSet(id, readString(body), readBytes(body), readBytes(body));
            case WAIT -> new Wait(id, readStrings(body), readLong(body));
            case CHECK -> new Check(id, readStrings(body));
            case DELETE -> new Delete(id, readString(body));
            case NUM_KEYS -> new NumKeys(id);
            case MULTI_GET -> new MultiGet(id, readStrings(body), readLong(body));
            case MULTI_SET -> {
                int n = readCount(body, 8);
                Map<String, byte[]> entries = new LinkedHashMap<>();
                for (int i = 0; i < n; i++) {
                    entries.put(readString(body), readBytes(body));
                }
                yield new MultiSet(id, entries);
            }
            case APPEND -> new Append(id, readString(body), readBytes(body));
            case CANCEL -> new Cancel(id);
            default -> throw new StoreProtocolException(op + " is not a request");
        };
        end(body);
        return r;
    }
}
