package io.reactivecollectives.transport.launch;

import java.util.Map;

/**
 * The Kubernetes launch contracts {@link EnvRendezvous#resolve} reads besides torchrun's:
 * <ul>
 *   <li>Kubeflow TrainJob (Trainer v2), whose variables are torchrun's options:
 *       {@code PET_NNODES}, {@code PET_NPROC_PER_NODE}, {@code PET_NODE_RANK},
 *       {@code PET_MASTER_ADDR}, {@code PET_MASTER_PORT}. World size is nodes times processes per
 *       node; rank is {@code PET_NODE_RANK * PET_NPROC_PER_NODE + LOCAL_RANK}, where
 *       {@code LOCAL_RANK} may be absent only with one process per node.</li>
 *   <li>An Indexed Job with a headless service: {@code JOB_COMPLETION_INDEX} is the rank,
 *       {@code WORLD_SIZE} the number of pods (the Job's completions), {@code MASTER_ADDR} the
 *       index-0 pod's DNS name ({@code <job>-0.<service>}), port {@code MASTER_PORT} or
 *       {@value EnvRendezvous#DEFAULT_MASTER_PORT}; one process per pod.</li>
 * </ul>
 * A DNS name that does not resolve yet (the index-0 pod still starting) is retried by the store
 * client, which resolves the name again on every attempt.
 */
final class KubernetesLaunch {

    private KubernetesLaunch() {
    }

    static LaunchEnvironment trainJob(Map<String, String> env) {
        String launcher = "TrainJob";
        EnvRendezvous.require(env, launcher, "PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK", "PET_MASTER_ADDR",
                "PET_MASTER_PORT");
        int nodes = EnvRendezvous.integer(env, "PET_NNODES");
        int perNode = EnvRendezvous.integer(env, "PET_NPROC_PER_NODE");
        int node = EnvRendezvous.integer(env, "PET_NODE_RANK");
        if (nodes < 1 || perNode < 1) {
            throw new IllegalArgumentException(launcher + " launch: PET_NNODES=" + nodes + " and PET_NPROC_PER_NODE="
                    + perNode + " must be at least 1");
        }
        if (node < 0 || node >= nodes) {
            throw new IllegalArgumentException(launcher + " launch: PET_NODE_RANK=" + node + " contradicts PET_NNODES="
                    + nodes + " (need 0 <= PET_NODE_RANK < PET_NNODES)");
        }
        int local;
        if (EnvRendezvous.present(env, "LOCAL_RANK")) {
            local = EnvRendezvous.integer(env, "LOCAL_RANK");
        } else if (perNode == 1) {
            local = 0;
        } else {
            throw new IllegalArgumentException(launcher + " launch: PET_NPROC_PER_NODE=" + perNode
                    + " processes per node need LOCAL_RANK (start them with torchrun, which sets it)");
        }
        if (local < 0 || local >= perNode) {
            throw new IllegalArgumentException(launcher + " launch: LOCAL_RANK=" + local
                    + " contradicts PET_NPROC_PER_NODE=" + perNode + " (need 0 <= LOCAL_RANK < PET_NPROC_PER_NODE)");
        }
        return EnvRendezvous.check(new LaunchEnvironment(launcher, env.get("PET_MASTER_ADDR").trim(),
                EnvRendezvous.port(env, "PET_MASTER_PORT", -1), node * perNode + local, nodes * perNode, local),
                "PET_NODE_RANK", "PET_NNODES", "LOCAL_RANK");
    }

    static LaunchEnvironment indexedJob(Map<String, String> env) {
        String launcher = "Indexed Job";
        EnvRendezvous.require(env, launcher, EnvRendezvous.INDEX_ENV, "WORLD_SIZE", "MASTER_ADDR");
        return EnvRendezvous.check(new LaunchEnvironment(launcher, env.get("MASTER_ADDR").trim(),
                EnvRendezvous.port(env, "MASTER_PORT", EnvRendezvous.DEFAULT_MASTER_PORT),
                EnvRendezvous.integer(env, EnvRendezvous.INDEX_ENV), EnvRendezvous.integer(env, "WORLD_SIZE"), 0),
                EnvRendezvous.INDEX_ENV, "WORLD_SIZE", "LOCAL_RANK");
    }
}
