package io.reactivecollectives.djl;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Which trainable parameters (view indices) each stage of a {@link StagedBlock} owns. */
final class StagePlan {

    private StagePlan() {
    }

    /**
     * Per stage, its parameters' indices in {@code views}, last registered first (DDP's order).
     *
     * @throws IllegalArgumentException when a parameter is in two stages or in none
     */
    static int[][] of(StagedBlock staged, ParameterViews views) {
        Map<String, Integer> byId = new HashMap<>();
        for (int i = 0; i < views.size(); i++) {
            byId.put(views.id(i), i);
        }
        int[][] plan = new int[staged.stageCount()][];
        boolean[] seen = new boolean[views.size()];
        for (int s = 0; s < plan.length; s++) {
            List<Integer> mine = new ArrayList<>();
            for (var p : staged.stageParameters(s)) {
                Integer i = byId.get(p.getValue().getId());
                if (i == null) {
                    continue;   // not trainable
                }
                if (seen[i]) {
                    throw new IllegalArgumentException("DistributedTrainer: parameter " + p.getKey() + " is in two stages of "
                            + "the model's StagedBlock");
                }
                seen[i] = true;
                mine.add(i);
            }
            Collections.reverse(mine);
            plan[s] = mine.stream().mapToInt(Integer::intValue).toArray();
        }
        for (int i = 0; i < seen.length; i++) {
            if (!seen[i]) {
                throw new IllegalArgumentException("DistributedTrainer: parameter " + views.parameters().get(i).name()
                        + " is in no stage of the model's StagedBlock");
            }
        }
        return plan;
    }

    /** Each parameter's stage (by view index) in a {@code plan} over {@code parameters} parameters. */
    static int[] stageOf(int[][] plan, int parameters) {
        int[] stage = new int[parameters];
        for (int s = 0; s < plan.length; s++) {
            for (int i : plan[s]) {
                stage[i] = s;
            }
        }
        return stage;
    }
}
