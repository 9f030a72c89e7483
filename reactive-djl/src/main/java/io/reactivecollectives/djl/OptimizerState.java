package io.reactivecollectives.djl;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.training.optimizer.Optimizer;
import io.reactivecollectives.core.Tensor;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A DJL {@link Optimizer}'s state, for handing it to a process that joins an elastic group: DJL
 * keeps it in private fields with no API to read or write it, so it is found by reflection, by
 * shape rather than by name, which covers every optimizer DJL ships (SGD's momentum, Adam's and
 * AdamW's means and variances, Nag, Adagrad, RMSProp, Adadelta):
 * <ul>
 *   <li>tensors: every field of type {@code Map<String, Map<Device, NDArray>>} (parameter id, device,
 *       state), in field order; an entry the optimizer has not created yet is created as zeros like
 *       the weight (what DJL's optimizers start from), so that every process has the same layout;</li>
 *   <li>counts: the base class's {@code updateCounts} ({@code Map<String, Integer>}, which learning
 *       rate trackers and Adam's bias correction read) and its {@code numUpdate}.</li>
 * </ul>
 * An optimizer whose state is kept elsewhere is refused when this is made, naming its class.
 */
final class OptimizerState {

    private final Optimizer optimizer;
    private final List<Field> stateMaps;
    private final Field updateCounts;
    private final Field numUpdate;

    private OptimizerState(Optimizer optimizer, List<Field> stateMaps, Field updateCounts, Field numUpdate) {
        this.optimizer = optimizer;
        this.stateMaps = stateMaps;
        this.updateCounts = updateCounts;
        this.numUpdate = numUpdate;
    }

    /** The state of {@code optimizer}, or an {@link IllegalArgumentException} when it cannot be read. */
    static OptimizerState of(Optimizer optimizer) {
        List<Field> maps = new ArrayList<>();
        Field counts = null;
        Field num = null;
        try {
            for (Class<?> c = optimizer.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
                for (Field f : c.getDeclaredFields()) {
                    if (Modifier.isStatic(f.getModifiers())) {
                        continue;
                    }
                    if (isStateMap(f.getGenericType())) {
                        f.setAccessible(true);
                        maps.add(f);
                    } else if (c == Optimizer.class && f.getName().equals("updateCounts")) {
                        f.setAccessible(true);
                        counts = f;
                    } else if (c == Optimizer.class && f.getName().equals("numUpdate")) {
                        f.setAccessible(true);
                        num = f;
                    }
                }
            }
        } catch (RuntimeException e) {
            throw refused(optimizer, e.toString());
        }
        if (counts == null || num == null) {
            throw refused(optimizer, "no updateCounts/numUpdate in ai.djl.training.optimizer.Optimizer (another DJL version?)");
        }
        return new OptimizerState(optimizer, List.copyOf(maps), counts, num);
    }

    private static IllegalArgumentException refused(Optimizer optimizer, String why) {
        return new IllegalArgumentException("ElasticTrainer: the state of optimizer " + optimizer.getClass().getName()
                + " cannot be read for a joiner (" + why + "); DJL's own optimizers are supported");
    }

    private static boolean isStateMap(Type t) {
        if (!(t instanceof ParameterizedType p) || p.getRawType() != Map.class) {
            return false;
        }
        Type[] kv = p.getActualTypeArguments();
        return kv[0] == String.class && kv[1] instanceof ParameterizedType inner && inner.getRawType() == Map.class
                && inner.getActualTypeArguments()[0] == Device.class && inner.getActualTypeArguments()[1] == NDArray.class;
    }

    /**
     * Views (no copy) of the state tensors of the parameters, map by map, parameter by parameter;
     * missing entries are created as zeros first. The caller releases the views.
     */
    List<Tensor> views(ParameterViews params) {
        List<Tensor> out = new ArrayList<>(stateMaps.size() * params.size());
        for (Field f : stateMaps) {
            Map<String, Map<Device, NDArray>> map = read(f);
            for (int i = 0; i < params.size(); i++) {
                NDArray weight = params.array(i);
                NDArray state = map.computeIfAbsent(params.id(i), k -> new ConcurrentHashMap<>())
                        .computeIfAbsent(weight.getDevice(), d -> weight.zerosLike());
                out.add(ParameterViews.view(state, params.id(i), f.getName()));
            }
        }
        return out;
    }

    /**
     * The update counts of the given parameters, encoded by position: DJL's parameter ids are
     * random per process, so a joiner's differ from the members' for the same parameter.
     */
    byte[] counts(ParameterViews params) {
        Map<String, Integer> counts = readCounts();
        ByteBuffer b = ByteBuffer.allocate(8 + 4 * params.size());
        b.putInt(readNum()).putInt(params.size());
        for (int i = 0; i < params.size(); i++) {
            Integer c = counts.get(params.id(i));
            b.putInt(c == null ? -1 : c);
        }
        return b.array();
    }

    /** Replaces this process's update counts with another process's {@link #counts}, read from {@code b}. */
    void restoreCounts(ByteBuffer b, ParameterViews params) {
        int num = b.getInt();
        int n = b.getInt();
        if (n != params.size()) {
            throw new IllegalStateException("ElasticTrainer: the update counts of " + n + " parameters were sent, this model has "
                    + params.size());
        }
        Map<String, Integer> counts = readCounts();
        for (int i = 0; i < n; i++) {
            String id = params.id(i);
            int c = b.getInt();
            if (c < 0) {
                counts.remove(id);
            } else {
                counts.put(id, c);
            }
        }
        try {
            numUpdate.setInt(optimizer, num);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The state's layout for a fingerprint: the optimizer's class and its state fields. */
    String describe() {
        StringBuilder b = new StringBuilder(optimizer.getClass().getSimpleName());
        for (Field f : stateMaps) {
            b.append(' ').append(f.getName());
        }
        return b.toString();
    }

    @SuppressWarnings("unchecked")
    private Map<String, Map<Device, NDArray>> read(Field f) {
        try {
            return (Map<String, Map<Device, NDArray>>) f.get(optimizer);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    @SuppressWarnings("unchecked")
    private Map<String, Integer> readCounts() {
        try {
            return (Map<String, Integer>) updateCounts.get(optimizer);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    private int readNum() {
        try {
            return numUpdate.getInt(optimizer);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }
}
