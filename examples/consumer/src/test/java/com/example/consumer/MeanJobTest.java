package com.example.consumer;

import io.reactivecollectives.testkit.GuardsExtension;
import io.reactivecollectives.testkit.LocalClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The job of {@link MeanJob} on 3 ranks in this JVM, before it runs as 3 processes. */
@ExtendWith(GuardsExtension.class)
class MeanJobTest {

    @RegisterExtension
    static final LocalClusterExtension CLUSTER = LocalClusterExtension.ranks(3);

    @Test
    void threeRanksAgreeOnTheMean() {
        List<float[]> means = CLUSTER.run(MeanJob::mean);
        assertEquals(3, means.size());
        for (float[] m : means) {
            assertArrayEquals(new float[] {1f, 2f, 1f}, m, 1e-6f);
        }
    }
}
