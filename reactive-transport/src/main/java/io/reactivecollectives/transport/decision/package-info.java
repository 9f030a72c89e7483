/**
 * One decision per collective family (as Open MPI's {@code coll_tuned_*_decision.c}): each class
 * holds its collective's {@link io.reactivecollectives.transport.decision.DecisionTable} (which
 * algorithms implement it, each with its body), the automatic choice by bytes, world size and
 * topology (switch points from {@link io.reactivecollectives.transport.algorithms.AlgorithmChoice}),
 * and the refusal of a forced algorithm that does not implement it. A call decides once, as its
 * arguments are checked and before anything is sent; the resulting
 * {@link io.reactivecollectives.transport.decision.Plan} is recorded once in the flight recorder and
 * carried into the collective's body, which runs the chosen row's body. Depends only on the
 * algorithms and core.
 */
package io.reactivecollectives.transport.decision;
