/**
 * Data-parallel training for DJL: {@link io.reactivecollectives.djl.DistributedTrainer} (PyTorch
 * DDP's role for a DJL {@code Model}) and {@link io.reactivecollectives.djl.DistributedSampler}
 * (each rank's disjoint shard of a data set, reshuffled per epoch with a seed all ranks share).
 */
package io.reactivecollectives.djl;
