package io.reactivecollectives.core;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class HandOverTest {

    private final List<String> closed = new ArrayList<>();

    @Test
    void aResultThatIsHandedOverOwnsTheResource() {
        StepVerifier.create(HandOver.openThen(Mono.just("r"), r -> Mono.just(r + "+result"), closed::add))
                .expectNext("r+result").verifyComplete();
        assertEquals(List.of(), closed);
    }

    @Test
    void anErrorAfterOpeningClosesTheResource() {
        StepVerifier.create(HandOver.openThen(Mono.just("r"), r -> Mono.error(new IllegalStateException("no")), closed::add))
                .verifyErrorMessage("no");
        assertEquals(List.of("r"), closed);
    }

    @Test
    void aCancelBeforeTheResultClosesTheResourceOnce() {
        Sinks.One<String> never = Sinks.one();
        reactor.core.Disposable d = HandOver.openThen(Mono.just("r"), r -> never.asMono(), closed::add).subscribe();
        assertEquals(List.of(), closed, "open, the result not there yet");
        d.dispose();
        d.dispose();
        assertEquals(List.of("r"), closed);
    }

    @Test
    void nothingOpenedNothingClosed() {
        StepVerifier.create(HandOver.openThen(Mono.<String>error(new IllegalStateException("bind")), Mono::just, closed::add))
                .verifyErrorMessage("bind");
        assertEquals(List.of(), closed);
    }
}
