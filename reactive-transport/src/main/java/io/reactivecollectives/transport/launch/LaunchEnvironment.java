package io.reactivecollectives.transport.launch;

/**
 * Rank, world size, local rank and the store's address as read from a launcher's environment
 * ({@link EnvRendezvous#resolve}). {@code masterPort} 0 means "any free port" and is accepted on
 * rank 0 only.
 *
 * @param launcher   the launcher the values came from
 * @param masterAddr the store's host
 * @param masterPort the store's port (0: any free port, rank 0 only)
 * @param rank       this process's rank
 * @param worldSize  the number of ranks
 * @param localRank  this process's rank on its node
 */
public record LaunchEnvironment(String launcher, String masterAddr, int masterPort, int rank, int worldSize,
                                int localRank) {
}
