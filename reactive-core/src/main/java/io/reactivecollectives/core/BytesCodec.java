package io.reactivecollectives.core;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/** {@link Codec#bytes()}: the bytes as they are, lent to the call without a copy. */
final class BytesCodec implements Codec<byte[]>, RawBytes {

    static final BytesCodec INSTANCE = new BytesCodec();

    private BytesCodec() {
    }

    @Override
    public String id() {
        return "bytes";
    }

    @Override
    public byte[] bytesOf(Object value) throws IOException {
        if (value == null) {
            throw new IOException("the bytes codec has no encoding for null");
        }
        return (byte[]) value;
    }

    @Override
    public void encode(byte[] value, OutputStream out) throws IOException {
        out.write(bytesOf(value));
    }

    @Override
    public byte[] decode(InputStream in) throws IOException {
        return in.readAllBytes();
    }

    @Override
    public String toString() {
        return id();
    }
}
