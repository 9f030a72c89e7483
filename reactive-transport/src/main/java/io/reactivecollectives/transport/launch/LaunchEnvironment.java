package io.reactivecollectives.transport.launch;

/**
 * Rank, world size, local rank and the store's address as read from a launcher's environment
 * ({@link EnvRendezvous#resolve}). {@code masterPort} 0 means "any free port" and is accepted on
 * rank 0 only.
 */
public record LaunchEnvironment(String launcher, String masterAddr, int masterPort, int rank, int worldSize,
                                int localRank) {
}
