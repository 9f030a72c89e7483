package io.reactivecollectives.core;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Objects;

/** {@link Codec#json}: Jackson, streaming to and from the blob (no whole-document string). */
final class JsonCodec<T> implements Codec<T> {

    static final ObjectMapper MAPPER = new ObjectMapper();

    private final String id;
    private final ObjectWriter writer;
    private final ObjectReader reader;

    JsonCodec(ObjectMapper mapper, JavaType type) {
        Objects.requireNonNull(mapper, "mapper");
        Objects.requireNonNull(type, "type");
        this.id = "json:" + type.toCanonical();
        this.writer = mapper.writerFor(type).without(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
        this.reader = mapper.readerFor(type).with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    }

    static <T> JsonCodec<T> of(JavaType type) {
        return new JsonCodec<>(MAPPER, type);
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public void encode(T value, OutputStream out) throws IOException {
        writer.writeValue(out, value);
    }

    @Override
    public T decode(InputStream in) throws IOException {
        return reader.readValue(in);
    }

    @Override
    public String toString() {
        return id;
    }
}
