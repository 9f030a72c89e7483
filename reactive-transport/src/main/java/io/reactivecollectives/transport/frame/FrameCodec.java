package io.reactivecollectives.transport.frame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.reactivecollectives.store.wire.LengthPrefixedDecoder;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The frame layout, as small stateless functions over {@link ByteBuf} (in the style of
 * rsocket-java's codecs). Every frame is
 *
 * <pre>
 *  0  int32  frame length (bytes after this field: header rest + payload)
 *  4  uint16 magic 0x5243 ('RC')
 *  6  uint8  version (1)
 *  7  uint8  frame type ({@link FrameType#code()})
 *  8  int32  group id (hash of the group's name)
 * 12  int64  sequence number of the collective
 * 20  int32  tag (collectives: sub-operation, e.g. stream chunk or coalesced tensor; p2p: user tag)
 * 24  int32  step of the algorithm (p2p: fragment count)
 * 28  int32  chunk index (p2p: fragment index)
 * 32  int32  source rank
 * 36  int64  agreement word (DATA: the collective's op, dtype, reduce op and root; else 0)
 * 44  int64  agreement count (DATA: the collective's element count, or -1; else 0)
 * 52  ...    payload (length = frame length - 48)
 * </pre>
 *
 * Integers are big-endian; payload bytes are the tensor's raw (little-endian) element bytes. The
 * length prefix is stripped by the frame decoder ({@link FrameDecoders}), so the accessors here
 * read a frame <em>without</em> its length field, from the frame's reader index.
 */
public final class FrameCodec {

    /** Magic number at the start of every frame (after the length). */
    public static final int MAGIC = 0x5243;
    /** Protocol version. */
    public static final int VERSION = 2;
    /** Bytes of the length field. */
    public static final int LENGTH_FIELD = LengthPrefixedDecoder.LENGTH_FIELD;
    /** Bytes of the header after the length field. */
    public static final int HEADER = 48;
    /** Bytes of the header including the length field. */
    public static final int PREFIXED_HEADER = LENGTH_FIELD + HEADER;

    /** Big-endian views of a byte array, for headers encoded into one ({@link #encodeHeaderInto}). */
    private static final VarHandle BE_SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle BE_INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle BE_LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final int OFF_MAGIC = 0;
    private static final int OFF_VERSION = 2;
    private static final int OFF_TYPE = 3;
    private static final int OFF_GROUP = 4;
    private static final int OFF_SEQ = 8;
    private static final int OFF_TAG = 16;
    private static final int OFF_STEP = 20;
    private static final int OFF_CHUNK = 24;
    private static final int OFF_SOURCE = 28;
    private static final int OFF_AGREE_WORD = 32;
    private static final int OFF_AGREE_COUNT = 40;

    private FrameCodec() {
    }

    /**
     * Writes a length-prefixed header for a payload of {@code payloadLength} bytes that follows it on
     * the wire, into a new buffer from {@code alloc} with room for {@code extraCapacity} more bytes
     * (used to inline small payloads).
     */
    public static ByteBuf encodeHeader(ByteBufAllocator alloc, FrameType type, int group, long sequence, int tag,
                                       int step, int chunk, int source, int payloadLength, int extraCapacity) {
        return encodeHeader(alloc, type, group, sequence, tag, step, chunk, source, 0L, 0L, payloadLength, extraCapacity);
    }

    /** {@link #encodeHeader(ByteBufAllocator, FrameType, int, long, int, int, int, int, int, int)} with an agreement. */
    public static ByteBuf encodeHeader(ByteBufAllocator alloc, FrameType type, int group, long sequence, int tag,
                                       int step, int chunk, int source, long agreementWord, long agreementCount,
                                       int payloadLength, int extraCapacity) {
        return fill(alloc.directBuffer(PREFIXED_HEADER + extraCapacity), type, group, sequence, tag, step, chunk, source,
                agreementWord, agreementCount, payloadLength);
    }

    /**
     * {@link #encodeHeader(ByteBufAllocator, FrameType, int, long, int, int, int, int, long, long, int, int)} into
     * a plain heap buffer, outside any pool and leak tracking: for a header that lives only until it is
     * copied into a shared-memory ring on the writing thread (a pooled buffer costs more to take and
     * give back than the copy).
     *
     * @param type           the frame's type
     * @param group          the group's id hash
     * @param sequence       the collective's sequence number
     * @param tag            the tag
     * @param step           the algorithm's step
     * @param chunk          the chunk
     * @param source         the sending rank
     * @param agreementWord  the agreement word
     * @param agreementCount the agreement count
     * @param payloadLength  the payload's bytes
     * @return the length-prefixed header
     */
    public static ByteBuf encodeHeaderOnHeap(FrameType type, int group, long sequence, int tag, int step, int chunk,
                                             int source, long agreementWord, long agreementCount, int payloadLength) {
        return Unpooled.wrappedBuffer(encodeHeaderInto(new byte[PREFIXED_HEADER], type, group, sequence, tag, step,
                chunk, source, agreementWord, agreementCount, payloadLength));
    }

    /**
     * The length-prefixed header of {@link #encodeHeaderOnHeap} written into the first
     * {@link #PREFIXED_HEADER} bytes of {@code dst}: for a writer that reuses one array for every
     * header it copies out at once (no buffer, no index or reference-count checks per field).
     *
     * @param dst            where the header goes
     * @param type           the frame's type
     * @param group          the group's id hash
     * @param sequence       the collective's sequence number
     * @param tag            the tag
     * @param step           the algorithm's step
     * @param chunk          the chunk
     * @param source         the sending rank
     * @param agreementWord  the agreement word
     * @param agreementCount the agreement count
     * @param payloadLength  the payload's bytes
     * @return {@code dst}
     */
    public static byte[] encodeHeaderInto(byte[] dst, FrameType type, int group, long sequence, int tag, int step,
                                          int chunk, int source, long agreementWord, long agreementCount,
                                          int payloadLength) {
        BE_INT.set(dst, 0, HEADER + payloadLength);
        int h = LENGTH_FIELD;
        BE_SHORT.set(dst, h + OFF_MAGIC, (short) MAGIC);
        dst[h + OFF_VERSION] = (byte) VERSION;
        dst[h + OFF_TYPE] = (byte) type.code();
        BE_INT.set(dst, h + OFF_GROUP, group);
        BE_LONG.set(dst, h + OFF_SEQ, sequence);
        BE_INT.set(dst, h + OFF_TAG, tag);
        BE_INT.set(dst, h + OFF_STEP, step);
        BE_INT.set(dst, h + OFF_CHUNK, chunk);
        BE_INT.set(dst, h + OFF_SOURCE, source);
        BE_LONG.set(dst, h + OFF_AGREE_WORD, agreementWord);
        BE_LONG.set(dst, h + OFF_AGREE_COUNT, agreementCount);
        return dst;
    }

    /** {@link #encodeHeaderInto}'s layout into a buffer ({@code FrameCodecTest} holds the two to the same bytes). */
    private static ByteBuf fill(ByteBuf b, FrameType type, int group, long sequence, int tag, int step, int chunk,
                                int source, long agreementWord, long agreementCount, int payloadLength) {
        // one capacity check, then the fields at their offsets (a write per field checks the capacity each time)
        b.ensureWritable(PREFIXED_HEADER);
        int at = b.writerIndex();
        b.setInt(at, HEADER + payloadLength);
        int h = at + LENGTH_FIELD;
        b.setShort(h + OFF_MAGIC, MAGIC);
        b.setByte(h + OFF_VERSION, VERSION);
        b.setByte(h + OFF_TYPE, type.code());
        b.setInt(h + OFF_GROUP, group);
        b.setLong(h + OFF_SEQ, sequence);
        b.setInt(h + OFF_TAG, tag);
        b.setInt(h + OFF_STEP, step);
        b.setInt(h + OFF_CHUNK, chunk);
        b.setInt(h + OFF_SOURCE, source);
        b.setLong(h + OFF_AGREE_WORD, agreementWord);
        b.setLong(h + OFF_AGREE_COUNT, agreementCount);
        return b.writerIndex(at + PREFIXED_HEADER);
    }

    /**
     * Checks magic, version and type of a frame (length already stripped) and returns its type.
     *
     * @throws MalformedFrameException when the frame is shorter than a header or the fields are wrong
     */
    public static FrameType validate(ByteBuf frame) {
        if (frame.readableBytes() < HEADER) {
            throw new MalformedFrameException("frame of " + frame.readableBytes() + " bytes is shorter than the "
                    + HEADER + "-byte header");
        }
        int r = frame.readerIndex();
        int magic = frame.getUnsignedShort(r + OFF_MAGIC);
        if (magic != MAGIC) {
            throw new MalformedFrameException("bad magic 0x" + Integer.toHexString(magic));
        }
        int version = frame.getUnsignedByte(r + OFF_VERSION);
        if (version != VERSION) {
            throw new MalformedFrameException("unsupported protocol version " + version);
        }
        FrameType type = FrameType.fromCode(frame.getUnsignedByte(r + OFF_TYPE));
        if (type == null) {
            throw new MalformedFrameException("unknown frame type " + frame.getUnsignedByte(r + OFF_TYPE));
        }
        return type;
    }

    /**
     * The header rules every link of the mesh applies to what its peer sends once connected,
     * whatever carries it (socket or shared memory; stateless): {@link #validate}, a type that is not
     * a handshake's, this group, the peer's rank as source.
     *
     * @param frame  the frame, without its length field
     * @param group  this group's id hash
     * @param source the rank at the other end of the link
     * @return the frame's type
     * @throws MalformedFrameException when a rule is broken
     */
    public static FrameType validateEstablished(ByteBuf frame, int group, int source) {
        return validateEstablished(frame, group, g -> false, source);
    }

    /**
     * {@link #validateEstablished(ByteBuf, int, int)} that also takes a frame whose group id
     * {@code alsoCarried} accepts (a subgroup carried over the connection).
     *
     * @param frame       the frame, from its reader index
     * @param group       the connection's own group id
     * @param alsoCarried the other group ids the connection carries
     * @param source      the peer's rank
     * @return the frame's type
     * @throws MalformedFrameException when a check fails
     */
    public static FrameType validateEstablished(ByteBuf frame, int group, java.util.function.IntPredicate alsoCarried,
                                                int source) {
        FrameType type = validate(frame);
        if (type == FrameType.HELLO || type == FrameType.HELLO_ACK) {
            throw new MalformedFrameException("handshake frame on an established connection");
        }
        int g = group(frame);
        if (g != group && !alsoCarried.test(g)) {
            throw new MalformedFrameException("frame of another group (id " + group(frame) + ")");
        }
        if (source(frame) != source) {
            throw new MalformedFrameException("frame names source rank " + source(frame));
        }
        return type;
    }

    public static FrameType type(ByteBuf frame) {
        return FrameType.fromCode(frame.getUnsignedByte(frame.readerIndex() + OFF_TYPE));
    }

    public static int group(ByteBuf frame) {
        return frame.getInt(frame.readerIndex() + OFF_GROUP);
    }

    /** The collective's sequence number. */
    public static long sequence(ByteBuf frame) {
        return frame.getLong(frame.readerIndex() + OFF_SEQ);
    }

    /** The sub-operation inside the collective (a coalesced op's tensor, a stream's chunk; p2p: the user's tag). */
    public static int tag(ByteBuf frame) {
        return frame.getInt(frame.readerIndex() + OFF_TAG);
    }

    /** The algorithm's step (p2p: the fragment count). */
    public static int step(ByteBuf frame) {
        return frame.getInt(frame.readerIndex() + OFF_STEP);
    }

    /** The piece of the step, for pipelined segments (p2p: the fragment index). */
    public static int chunk(ByteBuf frame) {
        return frame.getInt(frame.readerIndex() + OFF_CHUNK);
    }

    public static int source(ByteBuf frame) {
        return frame.getInt(frame.readerIndex() + OFF_SOURCE);
    }

    /** The agreement word (see the layout above). */
    public static long agreementWord(ByteBuf frame) {
        return frame.getLong(frame.readerIndex() + OFF_AGREE_WORD);
    }

    /** The agreement count (see the layout above). */
    public static long agreementCount(ByteBuf frame) {
        return frame.getLong(frame.readerIndex() + OFF_AGREE_COUNT);
    }

    /** Payload bytes of a frame (length already stripped). */
    public static int payloadLength(ByteBuf frame) {
        return frame.readableBytes() - HEADER;
    }

    /**
     * The payload of a DATA frame: the frame itself with its reader index moved past the header (no
     * slice is made: one runs for every pipelined segment), so read the header's fields first.
     * Release it once, as the frame.
     */
    public static ByteBuf payload(ByteBuf frame) {
        return frame.skipBytes(HEADER);
    }

    /** A retained slice of the payload; the caller releases it (and the frame separately). */
    public static ByteBuf retainedPayload(ByteBuf frame) {
        return frame.retainedSlice(frame.readerIndex() + HEADER, frame.readableBytes() - HEADER);
    }
}
