package io.reactivecollectives.transport.launch;

/**
 * Slurm's compressed host lists ({@code SLURM_JOB_NODELIST}): {@code node[03-05,07]},
 * {@code a1,b[1-2]}, {@code rack[1-2]-gpu[01-04]}, {@code n[1-3]-ib}.
 */
public final class SlurmNodeList {

    private SlurmNodeList() {
    }

    /**
     * The first host of {@code list}: the first comma-separated entry (commas inside brackets
     * excluded) with every bracket group replaced by its first number, zero padding kept.
     *
     * @param list a Slurm node list ({@code node[01-04,07],gpu7})
     * @return the first host name ({@code node01})
     * @throws IllegalArgumentException if the list is empty or its brackets are malformed
     */
    public static String firstHost(String list) {
        if (list == null || list.isBlank()) {
            throw new IllegalArgumentException("empty Slurm node list");
        }
        String s = list.trim();
        StringBuilder host = new StringBuilder();
        int depth = 0;
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == ',' && depth == 0) {
                break;
            }
            if (c == '[') {
                int close = s.indexOf(']', i);
                if (close < 0) {
                    throw new IllegalArgumentException("unbalanced '[' in Slurm node list '" + list + "'");
                }
                String inner = s.substring(i + 1, close);
                String first = inner.split(",", -1)[0];
                int dash = first.indexOf('-');
                String start = dash >= 0 ? first.substring(0, dash) : first;
                if (start.isEmpty() || !start.chars().allMatch(Character::isDigit)) {
                    throw new IllegalArgumentException("bad range '[" + inner + "]' in Slurm node list '" + list + "'");
                }
                host.append(start);
                i = close + 1;
                continue;
            }
            if (c == ']') {
                throw new IllegalArgumentException("unbalanced ']' in Slurm node list '" + list + "'");
            }
            host.append(c);
            i++;
        }
        if (host.length() == 0) {
            throw new IllegalArgumentException("no host in Slurm node list '" + list + "'");
        }
        return host.toString();
    }
}
