package io.reactivecollectives.transport.frame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;

/**
 * The HELLO / HELLO_ACK frames that open a connection between two ranks. Payload:
 * {@code int32 rank, int32 worldSize, uint16 groupName length, groupName UTF-8, uint8 mac length, mac}.
 * The MAC, present when the group has a shared secret, is HMAC-SHA256 over
 * {@code type|group|rank|worldSize|peerRank} so that a frame cannot be replayed in the other direction.
 */
public final class Handshake {

    /** A decoded HELLO or HELLO_ACK. */
    public record Hello(FrameType type, String groupName, int rank, int worldSize, byte[] mac) {
    }

    private static final int MAX_NAME = 1024;

    /** Largest payload a handshake frame can have: the limit of a connection until its handshake passed. */
    public static final int MAX_PAYLOAD = 4 + 4 + 2 + MAX_NAME + 1 + 255;

    private Handshake() {
    }

    /** Encodes a complete, length-prefixed HELLO or HELLO_ACK frame. */
    public static ByteBuf encode(ByteBufAllocator alloc, FrameType type, String groupName, int rank, int worldSize,
                                 int peerRank, String secret) {
        byte[] name = groupName.getBytes(StandardCharsets.UTF_8);
        byte[] mac = secret == null ? new byte[0] : mac(type, secret, groupName, rank, worldSize, peerRank);
        int payload = 4 + 4 + 2 + name.length + 1 + mac.length;
        ByteBuf b = FrameCodec.encodeHeader(alloc, type, groupName.hashCode(), 0, 0, 0, 0, rank, payload, payload);
        b.writeInt(rank);
        b.writeInt(worldSize);
        b.writeShort(name.length);
        b.writeBytes(name);
        b.writeByte(mac.length);
        b.writeBytes(mac);
        return b;
    }

    /** Decodes a HELLO or HELLO_ACK frame (length stripped); does not release it. */
    public static Hello decode(ByteBuf frame) {
        FrameType type = FrameCodec.validate(frame);
        if (type != FrameType.HELLO && type != FrameType.HELLO_ACK) {
            throw new MalformedFrameException("expected a handshake frame, got " + type);
        }
        ByteBuf p = frame.slice(frame.readerIndex() + FrameCodec.HEADER, FrameCodec.payloadLength(frame));
        if (p.readableBytes() < 11) {
            throw new MalformedFrameException("handshake payload of " + p.readableBytes() + " bytes is too short");
        }
        int rank = p.readInt();
        int world = p.readInt();
        int nameLen = p.readUnsignedShort();
        if (nameLen > MAX_NAME || p.readableBytes() < nameLen + 1) {
            throw new MalformedFrameException("handshake group name of " + nameLen + " bytes does not fit the frame");
        }
        String name = p.readCharSequence(nameLen, StandardCharsets.UTF_8).toString();
        int macLen = p.readUnsignedByte();
        if (p.readableBytes() != macLen) {
            throw new MalformedFrameException("handshake MAC length " + macLen + " does not match the frame");
        }
        byte[] mac = new byte[macLen];
        p.readBytes(mac);
        return new Hello(type, name, rank, world, mac);
    }

    /** Whether {@code hello}'s MAC is right for {@code secret} (always true when there is no secret). */
    public static boolean verify(Hello hello, String secret, int peerRank) {
        if (secret == null) {
            return true;
        }
        byte[] want = mac(hello.type(), secret, hello.groupName(), hello.rank(), hello.worldSize(), peerRank);
        return MessageDigest.isEqual(want, hello.mac());
    }

    private static byte[] mac(FrameType type, String secret, String group, int rank, int world, int peerRank) {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            String msg = type.name() + "|" + group + "|" + rank + "|" + world + "|" + peerRank;
            return m.doFinal(msg.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }
}
