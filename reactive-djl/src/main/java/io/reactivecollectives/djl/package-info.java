/**
 * Data-parallel training for DJL: {@code DistributedTrainer} (PyTorch
 * DDP's role for a DJL {@code Model}) and {@code DistributedSampler}
 * (each rank's disjoint shard of a data set, reshuffled per epoch with a seed all ranks share).
 */
package io.reactivecollectives.djl;
