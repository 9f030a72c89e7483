package io.reactivecollectives.transport.frame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import io.reactivecollectives.store.wire.HandshakeMac;

import java.nio.charset.StandardCharsets;

/**
 * The HELLO / HELLO_ACK frames that open a connection between two ranks. Payload (handshake
 * version 2):
 * {@code uint8 version, int32 rank, int32 worldSize, uint16 groupName length, groupName UTF-8,
 * uint16 address length, address UTF-8, uint16 error length, error UTF-8, uint8 mac length, mac}.
 * The address is the address the sender publishes (HELLO; may be empty); a HELLO_ACK with a
 * non-empty error is a rejection: the accepting rank refused the connection and says why (world
 * size mismatch, a rank that joined twice, ...) before it closes. The MAC, present when the group
 * has a shared secret, is HMAC-SHA256 over
 * {@code type|group|rank|worldSize|peerRank|address|error} so that a frame cannot be replayed in
 * the other direction. Version 1 (no version byte, address or error) starts with the rank's high
 * byte, 0 for any real rank, and is refused as version 0.
 *
 * <p>A connection that is one of several to the same peer (a stripe, see
 * {@code MeshOptions.connectionsPerPeer}) says which in the frame header: {@code step} is the
 * stripe's index and {@code tag} the number of stripes; both are 0 on the only connection of a
 * pair, so that a group with one connection per peer writes the same bytes as before stripes
 * existed. The MAC then also covers {@code |stripe/stripes}.
 */
public final class Handshake {

    /** The handshake layout this class writes and reads. */
    public static final int VERSION = 2;

    /**
     * A decoded HELLO or HELLO_ACK.
     *
     * @param address the sender's published address, or empty
     * @param error   the reason of a rejection (HELLO_ACK), or empty when the handshake is accepted
     */
    public record Hello(FrameType type, String groupName, int rank, int worldSize, String address, String error,
                        byte[] mac, int stripe, int stripes) {

        /**
         * A handshake of the only connection of a pair (stripe 0 of 1).
         *
         * @param type      HELLO or HELLO_ACK
         * @param groupName the group's name
         * @param rank      the sender's rank
         * @param worldSize the sender's world size
         * @param address   the sender's published address, or empty
         * @param error     the reason of a rejection, or empty
         * @param mac       the MAC, empty without a secret
         */
        public Hello(FrameType type, String groupName, int rank, int worldSize, String address, String error,
                     byte[] mac) {
            this(type, groupName, rank, worldSize, address, error, mac, 0, 1);
        }

        /** Whether this is a rejection (a HELLO_ACK carrying an error). */
        public boolean isRejection() {
            return !error.isEmpty();
        }
    }

    private static final int MAX_NAME = 1024;
    private static final int MAX_ADDRESS = 1024;
    /** Longest rejection text, in UTF-8 bytes (longer texts are cut). */
    private static final int MAX_ERROR = 2048;

    /** The most connections one pair of ranks may have (stripes). */
    public static final int MAX_STRIPES = 64;

    /** Largest payload a handshake frame can have: the limit of a connection until its handshake passed. */
    public static final int MAX_PAYLOAD = 1 + 4 + 4 + 2 + MAX_NAME + 2 + MAX_ADDRESS + 2 + MAX_ERROR + 1 + 255;

    private Handshake() {
    }

    /** Encodes a complete, length-prefixed HELLO or HELLO_ACK frame with no address and no error. */
    public static ByteBuf encode(ByteBufAllocator alloc, FrameType type, String groupName, int rank, int worldSize,
                                 int peerRank, String secret) {
        return encode(alloc, type, groupName, rank, worldSize, peerRank, "", "", secret);
    }

    /**
     * Encodes a complete, length-prefixed HELLO or HELLO_ACK frame; {@code address} is the sender's
     * published address (or empty), {@code error} a rejection's reason (or empty; cut to 2 KiB).
     */
    public static ByteBuf encode(ByteBufAllocator alloc, FrameType type, String groupName, int rank, int worldSize,
                                 int peerRank, String address, String error, String secret) {
        return encode(alloc, type, groupName, rank, worldSize, peerRank, address, error, secret, 0, 1);
    }

    /**
     * {@link #encode(ByteBufAllocator, FrameType, String, int, int, int, String, String, String)} for
     * connection {@code stripe} of the {@code stripes} connections between the two ranks.
     *
     * @param alloc     the allocator of the frame
     * @param type      HELLO or HELLO_ACK
     * @param groupName the group's name
     * @param rank      the sender's rank
     * @param worldSize the sender's world size
     * @param peerRank  the rank the frame is for (covered by the MAC)
     * @param address   the sender's published address, or empty
     * @param error     a rejection's reason, or empty
     * @param secret    the shared secret, or null for no MAC
     * @param stripe    which of the pair's connections this is, from 0
     * @param stripes   how many connections the pair has, 1 to {@link #MAX_STRIPES}
     * @return the length-prefixed frame
     * @throws IllegalArgumentException when a name or address is too long, or the stripe is out of range
     */
    public static ByteBuf encode(ByteBufAllocator alloc, FrameType type, String groupName, int rank, int worldSize,
                                 int peerRank, String address, String error, String secret, int stripe, int stripes) {
        if (stripes < 1 || stripes > MAX_STRIPES || stripe < 0 || stripe >= stripes) {
            throw new IllegalArgumentException("handshake: stripe " + stripe + " of " + stripes);
        }
        byte[] name = groupName.getBytes(StandardCharsets.UTF_8);
        byte[] addr = address.getBytes(StandardCharsets.UTF_8);
        String err = fit(error);
        byte[] why = err.getBytes(StandardCharsets.UTF_8);
        if (name.length > MAX_NAME || addr.length > MAX_ADDRESS) {
            throw new IllegalArgumentException("handshake: group name of " + name.length + " bytes or address of "
                    + addr.length + " bytes over " + MAX_NAME + " bytes");
        }
        byte[] mac = secret == null ? new byte[0]
                : mac(type, secret, groupName, rank, worldSize, peerRank, address, err, stripe, stripes);
        int payload = 1 + 4 + 4 + 2 + name.length + 2 + addr.length + 2 + why.length + 1 + mac.length;
        ByteBuf b = FrameCodec.encodeHeader(alloc, type, groupName.hashCode(), 0, stripes == 1 ? 0 : stripes,
                stripes == 1 ? 0 : stripe, 0, rank, payload, payload);
        b.writeByte(VERSION);
        b.writeInt(rank);
        b.writeInt(worldSize);
        b.writeShort(name.length);
        b.writeBytes(name);
        b.writeShort(addr.length);
        b.writeBytes(addr);
        b.writeShort(why.length);
        b.writeBytes(why);
        b.writeByte(mac.length);
        b.writeBytes(mac);
        return b;
    }

    private static String fit(String error) {
        String e = error;
        while (e.getBytes(StandardCharsets.UTF_8).length > MAX_ERROR) {
            e = e.substring(0, e.length() - Math.max(1, (e.getBytes(StandardCharsets.UTF_8).length - MAX_ERROR) / 4));
        }
        return e;
    }

    /** Decodes a HELLO or HELLO_ACK frame (length stripped); does not release it. */
    public static Hello decode(ByteBuf frame) {
        FrameType type = FrameCodec.validate(frame);
        if (type != FrameType.HELLO && type != FrameType.HELLO_ACK) {
            throw new MalformedFrameException("expected a handshake frame, got " + type);
        }
        int stripes = FrameCodec.tag(frame) == 0 ? 1 : FrameCodec.tag(frame);
        int stripe = FrameCodec.step(frame);
        if (stripes < 1 || stripes > MAX_STRIPES || stripe < 0 || stripe >= stripes) {
            throw new MalformedFrameException("handshake names stripe " + stripe + " of " + FrameCodec.tag(frame));
        }
        ByteBuf p = frame.slice(frame.readerIndex() + FrameCodec.HEADER, FrameCodec.payloadLength(frame));
        if (p.readableBytes() < 16) {
            throw new MalformedFrameException("handshake payload of " + p.readableBytes() + " bytes is too short");
        }
        int version = p.readUnsignedByte();
        if (version != VERSION) {
            throw new MalformedFrameException("handshake version " + version + ", this rank speaks version " + VERSION);
        }
        int rank = p.readInt();
        int world = p.readInt();
        String name = text(p, "group name", MAX_NAME);
        String address = text(p, "address", MAX_ADDRESS);
        String error = text(p, "error", MAX_ERROR);
        if (p.readableBytes() < 1) {
            throw new MalformedFrameException("handshake ends before its MAC length");
        }
        int macLen = p.readUnsignedByte();
        if (p.readableBytes() != macLen) {
            throw new MalformedFrameException("handshake MAC length " + macLen + " does not match the frame");
        }
        byte[] mac = new byte[macLen];
        p.readBytes(mac);
        return new Hello(type, name, rank, world, address, error, mac, stripe, stripes);
    }

    private static String text(ByteBuf p, String what, int max) {
        if (p.readableBytes() < 2) {
            throw new MalformedFrameException("handshake ends before its " + what);
        }
        int len = p.readUnsignedShort();
        if (len > max || p.readableBytes() < len) {
            throw new MalformedFrameException("handshake " + what + " of " + len + " bytes does not fit the frame");
        }
        return p.readCharSequence(len, StandardCharsets.UTF_8).toString();
    }

    /** Whether {@code hello}'s MAC is right for {@code secret} (always true when there is no secret). */
    public static boolean verify(Hello hello, String secret, int peerRank) {
        if (secret == null) {
            return true;
        }
        String msg = macInput(hello.type(), hello.groupName(), hello.rank(), hello.worldSize(), peerRank,
                hello.address(), hello.error(), hello.stripe(), hello.stripes());
        return HandshakeMac.verify(secret.getBytes(StandardCharsets.UTF_8), msg.getBytes(StandardCharsets.UTF_8),
                hello.mac());
    }

    private static byte[] mac(FrameType type, String secret, String group, int rank, int world, int peerRank,
                              String address, String error, int stripe, int stripes) {
        return HandshakeMac.mac(secret.getBytes(StandardCharsets.UTF_8), macInput(type, group, rank, world, peerRank,
                address, error, stripe, stripes).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * What the MAC covers: {@code type|group|rank|worldSize|peerRank|address|error}, then
     * {@code |stripe/stripes} when the pair has more than one connection.
     */
    private static String macInput(FrameType type, String group, int rank, int world, int peerRank, String address,
                                   String error, int stripe, int stripes) {
        String base = type.name() + "|" + group + "|" + rank + "|" + world + "|" + peerRank + "|" + address + "|" + error;
        return stripes == 1 ? base : base + "|" + stripe + "/" + stripes;
    }
}
