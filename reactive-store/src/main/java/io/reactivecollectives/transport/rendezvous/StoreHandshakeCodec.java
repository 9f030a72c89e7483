package io.reactivecollectives.transport.rendezvous;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;


import static io.reactivecollectives.transport.rendezvous.StoreFrameCodec.expect;
import static io.reactivecollectives.transport.rendezvous.StoreFrameCodec.start;
import static io.reactivecollectives.transport.rendezvous.StoreFrameFields.end;
import static io.reactivecollectives.transport.rendezvous.StoreFrameFields.put;
import static io.reactivecollectives.transport.rendezvous.StoreFrameFields.readBytes;
import static io.reactivecollectives.transport.rendezvous.StoreFrameFields.readU8;
import static io.reactivecollectives.transport.rendezvous.StoreFrameFields.size;

/**
 * The TCP store's handshake frames (HELLO, AUTH, READY; see {@link StoreFrameCodec} for the wire
 * format), as small stateless encode/decode methods: the server greets, every client answers at
 * once (with a secret, its HMAC of the server's nonce), and with a secret the server proves it
 * knows it too.
 */
public final class StoreHandshakeCodec {

    private StoreHandshakeCodec() {
    }

    /**
     * HELLO, the server's greeting.
     *
     * @param version      the server's protocol version ({@link StoreFrameCodec#VERSION})
     * @param authRequired whether the client must authenticate
     * @param nonce        the server's nonce, which the client's MAC covers
     */
    public record Hello(int version, boolean authRequired, byte[] nonce) { }

    /**
     * AUTH, the client's answer to HELLO.
     *
     * @param mac         HMAC-SHA256 of the server's nonce with the shared secret (empty without a secret)
     * @param clientNonce the client's nonce, which the server's READY proof covers (empty without a secret)
     */
    public record Auth(byte[] mac, byte[] clientNonce) { }

    // --- handshake -----------------------------------------------------------------------------

    /**
     * Encodes a HELLO frame (server to client, request id 0) with this protocol's {@link StoreFrameCodec#VERSION}.
     *
     * @param alloc        allocates the frame
     * @param authRequired whether the client must authenticate
     * @param nonce        the server's nonce the client's MAC must cover
     * @return the whole frame, length prefix included, owned by the caller
     */
    public static ByteBuf hello(ByteBufAllocator alloc, boolean authRequired, byte[] nonce) {
        ByteBuf buf = start(alloc, 2 + size(nonce), StoreOpcode.HELLO, 0);
        buf.writeByte(StoreFrameCodec.VERSION);
        buf.writeByte(authRequired ? 1 : 0);
        put(buf, nonce);
        return buf;
    }

    /**
     * Encodes an AUTH frame (client to server, request id 0).
     *
     * @param alloc       allocates the frame
     * @param mac         HMAC-SHA256 of the server's nonce with the shared secret (empty without a secret)
     * @param clientNonce the nonce the server's READY proof must cover (empty without a secret)
     * @return the whole frame, owned by the caller
     */
    public static ByteBuf auth(ByteBufAllocator alloc, byte[] mac, byte[] clientNonce) {
        ByteBuf buf = start(alloc, size(mac) + size(clientNonce), StoreOpcode.AUTH, 0);
        put(buf, mac);
        put(buf, clientNonce);
        return buf;
    }

    /**
     * Encodes a READY frame (server to client, request id 0).
     *
     * @param alloc allocates the frame
     * @param proof HMAC-SHA256 of the client's nonce with the shared secret (empty without a secret)
     * @return the whole frame, owned by the caller
     */
    public static ByteBuf ready(ByteBufAllocator alloc, byte[] proof) {
        ByteBuf buf = start(alloc, size(proof), StoreOpcode.READY, 0);
        put(buf, proof);
        return buf;
    }

    /**
     * Decodes a HELLO body.
     *
     * @param body the frame body, without the length prefix; read to its end
     * @return the greeting
     * @throws StoreProtocolException if the body is not a well-formed HELLO
     */
    public static Hello decodeHello(ByteBuf body) {
        expect(body, StoreOpcode.HELLO);
        int version = readU8(body);
        int flags = readU8(body);
        byte[] nonce = readBytes(body);
        end(body);
        return new Hello(version, (flags & 1) != 0, nonce);
    }

    /**
     * Decodes an AUTH body.
     *
     * @param body the frame body, without the length prefix; read to its end
     * @return the client's MAC and nonce
     * @throws StoreProtocolException if the body is not a well-formed AUTH
     */
    public static Auth decodeAuth(ByteBuf body) {
        expect(body, StoreOpcode.AUTH);
        byte[] mac = readBytes(body);
        byte[] clientNonce = readBytes(body);
        end(body);
        return new Auth(mac, clientNonce);
    }

    /**
     * Decodes a READY body.
     *
     * @param body the frame body, without the length prefix; read to its end
     * @return the server's proof (empty without a secret)
     * @throws StoreProtocolException if the body is not a well-formed READY
     */
    public static byte[] decodeReady(ByteBuf body) {
        expect(body, StoreOpcode.READY);
        byte[] proof = readBytes(body);
        end(body);
        return proof;
    }
}
