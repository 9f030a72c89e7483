/**
 * The DJL main job ({@code bin/collectives-train --engine djl}): a transformer encoder trained
 * data-parallel with DJL's PyTorch engine through {@code io.reactivecollectives.djl}.
 */
package io.reactivecollectives.samples.djl;
