package io.reactivecollectives.transport.launch;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Kubeflow PyTorchJob and TrainJob, Indexed Jobs and torchrun's agent store, from injected environments. */
class KubernetesLaunchTest {

    private static IllegalArgumentException bad(Map<String, String> env) {
        return assertThrows(IllegalArgumentException.class, () -> EnvRendezvous.resolve(env));
    }

    private static void assertNames(IllegalArgumentException e, String... names) {
        for (String n : names) {
            assertTrue(e.getMessage().contains(n), "'" + e.getMessage() + "' should name " + n);
        }
    }

    @Test
    void pyTorchJobSetsNoLocalRank() {
        assertEquals(new LaunchEnvironment("PyTorchJob", "job-master-0", 23456, 3, 4, 0),
                EnvRendezvous.resolve(Map.of("MASTER_ADDR", "job-master-0", "MASTER_PORT", "23456", "RANK", "3",
                        "WORLD_SIZE", "4", "PYTHONUNBUFFERED", "1")));
        assertNames(bad(Map.of("MASTER_ADDR", "m", "MASTER_PORT", "1", "RANK", "4", "WORLD_SIZE", "4")),
                "PyTorchJob", "RANK=4");
    }

    @Test
    void trainJobVariables() {
        Map<String, String> node1 = Map.of("PET_NNODES", "3", "PET_NPROC_PER_NODE", "1", "PET_NODE_RANK", "1",
                "PET_MASTER_ADDR", "train-node-0-0.train", "PET_MASTER_PORT", "29400");
        assertEquals(new LaunchEnvironment("TrainJob", "train-node-0-0.train", 29400, 1, 3, 0),
                EnvRendezvous.resolve(node1));
        Map<String, String> twoPerNode = Map.of("PET_NNODES", "2", "PET_NPROC_PER_NODE", "2", "PET_NODE_RANK", "1",
                "PET_MASTER_ADDR", "m", "PET_MASTER_PORT", "29400", "LOCAL_RANK", "1");
        assertEquals(new LaunchEnvironment("TrainJob", "m", 29400, 3, 4, 1), EnvRendezvous.resolve(twoPerNode));
        assertNames(bad(Map.of("PET_NNODES", "2", "PET_NPROC_PER_NODE", "2", "PET_NODE_RANK", "0",
                "PET_MASTER_ADDR", "m", "PET_MASTER_PORT", "1")), "PET_NPROC_PER_NODE=2", "LOCAL_RANK");
        assertNames(bad(Map.of("PET_NNODES", "2", "PET_NPROC_PER_NODE", "1", "PET_NODE_RANK", "2",
                "PET_MASTER_ADDR", "m", "PET_MASTER_PORT", "1")), "PET_NODE_RANK=2", "PET_NNODES=2");
        assertNames(bad(Map.of("PET_NODE_RANK", "0")), "TrainJob", "PET_NNODES", "PET_NPROC_PER_NODE",
                "PET_MASTER_ADDR", "PET_MASTER_PORT");
        assertNames(bad(Map.of("PET_NNODES", "2", "PET_NPROC_PER_NODE", "2", "PET_NODE_RANK", "0",
                "PET_MASTER_ADDR", "m", "PET_MASTER_PORT", "1", "LOCAL_RANK", "2")), "LOCAL_RANK=2");
    }

    @Test
    void torchrunInsideATrainJobWins() {
        Map<String, String> env = Map.of("PET_NNODES", "2", "PET_NPROC_PER_NODE", "2", "PET_NODE_RANK", "1",
                "PET_MASTER_ADDR", "m", "PET_MASTER_PORT", "29400", "MASTER_ADDR", "m", "MASTER_PORT", "29400",
                "RANK", "2", "WORLD_SIZE", "4", "LOCAL_RANK", "0");
        assertEquals("torchrun", EnvRendezvous.resolve(env).launcher());
    }

    @Test
    void indexedJobVariables() {
        assertEquals(new LaunchEnvironment("Indexed Job", "job-0.workers", EnvRendezvous.DEFAULT_MASTER_PORT, 2, 4, 0),
                EnvRendezvous.resolve(Map.of("JOB_COMPLETION_INDEX", "2", "WORLD_SIZE", "4",
                        "MASTER_ADDR", "job-0.workers")));
        assertEquals(7000, EnvRendezvous.resolve(Map.of("JOB_COMPLETION_INDEX", "0", "WORLD_SIZE", "1",
                "MASTER_ADDR", "job-0.workers", "MASTER_PORT", "7000")).masterPort());
        assertNames(bad(Map.of("JOB_COMPLETION_INDEX", "4", "WORLD_SIZE", "4", "MASTER_ADDR", "m")),
                "JOB_COMPLETION_INDEX=4", "WORLD_SIZE=4");
        assertNames(bad(Map.of("JOB_COMPLETION_INDEX", "0")), "Indexed Job", "WORLD_SIZE", "MASTER_ADDR");
    }

    @Test
    void agentStoreFlag() {
        assertTrue(EnvRendezvous.usesAgentStore(Map.of("TORCHELASTIC_USE_AGENT_STORE", "True")));
        assertFalse(EnvRendezvous.usesAgentStore(Map.of("TORCHELASTIC_USE_AGENT_STORE", "False")));
        assertFalse(EnvRendezvous.usesAgentStore(Map.of()));
    }
}
