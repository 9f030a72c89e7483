/**
 * Process groups inside Spark's barrier execution mode: every task of a
 * {@code rdd.barrier().mapPartitions(...)} stage is one rank ({@link
 * io.reactivecollectives.spark.BarrierProcessGroups}), its group aborted on every other task as soon as
 * one task fails or is killed, so that Spark can retry the stage; {@link
 * io.reactivecollectives.spark.BarrierStages} checks on the driver that a stage can run as a barrier stage.
 * Spark is a {@code provided} dependency: the application brings its own (4.1, Scala 2.13).
 */
package io.reactivecollectives.spark;
