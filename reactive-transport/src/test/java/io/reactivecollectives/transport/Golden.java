package io.reactivecollectives.transport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.SparseTensor;
import io.reactivecollectives.core.Tensor;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the golden fixtures that {@code src/test/scripts/make_golden_fixtures.py} computed with
 * PyTorch's gloo backend ({@code src/test/resources/golden/<op>.json}) into tensors.
 */
final class Golden {

    private static final ObjectMapper JSON = new ObjectMapper();

    private Golden() {
    }

    /** The cases of one op's file. */
    static List<JsonNode> cases(String op) {
        try (InputStream in = Golden.class.getResourceAsStream("/golden/" + op + ".json")) {
            if (in == null) {
                throw new IllegalStateException("no golden fixture /golden/" + op + ".json on the test classpath");
            }
            JsonNode doc = JSON.readTree(in);
            if (!op.equals(doc.get("op").asText()) || !"gloo".equals(doc.get("backend").asText())) {
                throw new IllegalStateException("fixture " + op + " names op " + doc.get("op") + " backend " + doc.get("backend"));
            }
            List<JsonNode> out = new ArrayList<>();
            doc.get("cases").forEach(out::add);
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A new tensor from {@code {"dtype", "shape", "data"}}; integers are read exactly as longs. */
    static Tensor tensor(JsonNode node) {
        DType dtype = DType.parse(node.get("dtype").asText());
        long[] shape = longs(node.get("shape"));
        JsonNode data = node.get("data");
        Tensor t = Tensor.zeros(dtype, shape);
        for (int i = 0; i < data.size(); i++) {
            if (dtype.isFloatingPoint()) {
                t.setDouble(i, data.get(i).asDouble());
            } else {
                t.setLong(i, data.get(i).asLong());
            }
        }
        return t;
    }

    /** New tensors from a JSON array of tensors. */
    static List<Tensor> tensors(JsonNode array) {
        List<Tensor> out = new ArrayList<>();
        array.forEach(n -> out.add(tensor(n)));
        return out;
    }

    /** A new sparse tensor from {@code {"indices", "indices_shape", "values", "dense_shape"}}. */
    static SparseTensor sparse(JsonNode node) {
        long[] ishape = longs(node.get("indices_shape"));
        long[] flat = new long[(int) (ishape[0] * ishape[1])];
        int k = 0;
        for (JsonNode row : node.get("indices")) {
            for (JsonNode v : row) {
                flat[k++] = v.asLong();
            }
        }
        Tensor indices = Tensor.fromLongs(flat, ishape);
        return SparseTensor.of(indices, tensor(node.get("values")), longs(node.get("dense_shape")));
    }

    static long[] longs(JsonNode array) {
        long[] out = new long[array.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = array.get(i).asLong();
        }
        return out;
    }
}
