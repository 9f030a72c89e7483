/**
 * Shared memory between the ranks of a group on one host: one segment file per group and host
 * ({@link io.reactivecollectives.transport.shm.ShmSegment}) holding, for each ordered pair of local
 * ranks, a single-producer single-consumer byte ring ({@code ShmRing}) that carries the same
 * length-prefixed frames a socket would, and one futex word per rank to wake its reading thread
 * ({@code ShmPoller}). The ranks agree on it through the store
 * ({@link io.reactivecollectives.transport.shm.ShmRendezvous}).
 *
 * <p>Why a byte ring and not Agrona's ring buffers: frames go up to the group's largest frame
 * payload (16 MiB by default) and must keep the socket's order, so they stream through a ring
 * smaller than themselves as through a pipe; Agrona's {@code OneToOneRingBuffer} and
 * {@code ManyToOneRingBuffer} carry whole messages of at most an eighth of their capacity.
 *
 * <p>Implementation: no compatibility promise. The mesh uses it: {@code transport.mesh.MeshSharedMemory}
 * sets it up, {@code SharedMemoryLink} writes through an {@link io.reactivecollectives.transport.shm.ShmOutbound}
 * and {@code SharedMemoryFrames} checks what the poller reads.
 */
package io.reactivecollectives.transport.shm;
