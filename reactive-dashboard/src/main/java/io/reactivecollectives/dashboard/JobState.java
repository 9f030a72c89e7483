package io.reactivecollectives.dashboard;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

import java.util.List;

/**
 * The whole job as its page shows it ({@code GET /api/job}): every rank's state side by side and the
 * rank that holds the others back, if one does.
 *
 * @param group      the group's name
 * @param job        the job the ranks agreed on
 * @param size       the group's size
 * @param generation the group's generation
 * @param nowUs      when it was read, epoch microseconds
 * @param banner     the sentence that names the rank behind, or null
 * @param stragglers the ranks it names
 * @param ranks      every rank's state, by rank (unreachable ones with their error)
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record JobState(String group, String job, int size, int generation, long nowUs, String banner,
                       List<Integer> stragglers, List<RankState> ranks) {
}
