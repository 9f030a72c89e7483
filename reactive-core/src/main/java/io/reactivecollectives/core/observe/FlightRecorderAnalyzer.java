package io.reactivecollectives.core.observe;

import io.reactivecollectives.core.OpType;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Reads the {@link FlightRecorder} dumps of the ranks of a group and says in plain words who is
 * behind and what does not match, e.g.
 * {@code rank 3 never started allReduce seq 42; ranks 0-2 are waiting for it}.
 *
 * <p>Per group (dumps of several groups may be mixed) it reports:
 * <ul>
 *   <li>{@link Kind#MISSING_DUMP}: ranks of the world with no dump;</li>
 *   <li>{@link Kind#MISMATCH}: a sequence number at which ranks recorded different ops, dtypes or
 *       sizes;</li>
 *   <li>{@link Kind#BEHIND}: the lowest sequence number not completed by every rank, the ranks that
 *       never started it (or only scheduled it) and the ranks waiting for them, with the peer each
 *       one was waiting on; or {@link Kind#STUCK} when every rank (with a dump) started it, none of them late, and some did not finish;</li>
 *   <li>{@link Kind#FAILED}: the errors ranks recorded for that collective;</li>
 *   <li>{@link Kind#ALL_COMPLETED}: nothing is outstanding.</li>
 * </ul>
 * Point-to-point entries (send, recv) are not matched across ranks. Pure functions over
 * {@link FlightRecorderDump}s; {@link #readAll(Collection)} reads files (blocking).
 */
public final class FlightRecorderAnalyzer {

    private FlightRecorderAnalyzer() {
    }

    /** What a finding is about. */
    public enum Kind {
        /** Ranks of the world with no dump. */
        MISSING_DUMP,
        /** Ranks recorded different collectives at one sequence number. */
        MISMATCH,
        /**
         * Ranks that never started (or only scheduled) the oldest outstanding collective, left or died
         * in it (no dump, and the others' errors say so), or started it late (long after the others, or
         * after another rank had failed it).
         */
        BEHIND,
        /** Every rank with a dump started the oldest outstanding collective and some did not finish it. */
        STUCK,
        /** The errors ranks recorded for that collective. */
        FAILED,
        /** Nothing is outstanding. */
        ALL_COMPLETED
    }

    /**
     * One statement about a group.
     *
     * @param kind    what it is about
     * @param groupId the group
     * @param seq     the sequence number concerned, -1 when none
     * @param ranks   the ranks to blame (missing, behind, mismatched, failed)
     * @param message the statement in plain words
     */
    public record Finding(Kind kind, String groupId, long seq, List<Integer> ranks, String message) {
        /**
         * Copies the ranks.
         *
         * @param kind    what it is about
         * @param groupId the group
         * @param seq     the sequence number concerned, -1 when none
         * @param ranks   the ranks to blame
         * @param message the statement in plain words
         */
        public Finding {
            ranks = List.copyOf(ranks);
        }
    }

    /**
     * All findings, grouped by group id in input order.
     *
     * @param findings the findings
     */
    public record Report(List<Finding> findings) {
        /**
         * Copies the findings.
         *
         * @param findings the findings
         */
        public Report {
            findings = List.copyOf(findings);
        }

        /**
         * The findings of one kind.
         *
         * @param kind the kind
         * @return those findings, in order
         */
        public List<Finding> of(Kind kind) {
            return findings.stream().filter(f -> f.kind == kind).collect(Collectors.toList());
        }

        /**
         * One line per finding, each prefixed by its group.
         *
         * @return the report as text
         */
        public String text() {
            StringBuilder sb = new StringBuilder();
            for (Finding f : findings) {
                sb.append('[').append(f.groupId).append("] ").append(f.message).append('\n');
            }
            return sb.toString();
        }

        @Override
        public String toString() {
            return text();
        }
    }

    /**
     * Reads dump files; a directory stands for every {@code flight-recorder-*.json} in it or, when
     * it holds none, for those of its newest job directory ({@code flight-recorder-<job>/}, see
     * {@link FlightRecorder#dumpDirectory()}; the one whose dumps were written last), so that the
     * dump directory itself ({@code java.io.tmpdir} by default) gives the latest job. Blocking.
     *
     * @param filesOrDirectories dump files, and directories of them
     * @return the dumps
     * @throws IOException naming the file that could not be read or parsed
     */
    public static List<FlightRecorderDump> readAll(Collection<Path> filesOrDirectories) throws IOException {
        return readAll(filesOrDirectories, note -> { });
    }

    /**
     * {@link #readAll(Collection)} that says which job a directory of jobs stood for, one line to
     * {@code notes}: {@code reading job flight-recorder-20261128-231634-9eee81 (newest of 3 in /tmp;
     * pass its directory to pick another)}, or {@code (the only one in /tmp)}. Blocking.
     *
     * @param filesOrDirectories dump files, and directories of them
     * @param notes              told which job each directory of jobs stood for
     * @return the dumps
     * @throws IOException naming the file that could not be read or parsed
     */
    public static List<FlightRecorderDump> readAll(Collection<Path> filesOrDirectories, Consumer<String> notes)
            throws IOException {
        List<Path> files = new ArrayList<>();
        for (Path p : filesOrDirectories) {
            if (Files.isDirectory(p)) {
                List<Path> inDir = dumpsIn(p);
                if (inDir.isEmpty()) {
                    Jobs jobs = jobsIn(p);
                    if (jobs.newest() != null) {
                        inDir = dumpsIn(jobs.newest());
                        notes.accept("reading job " + jobs.newest().getFileName() + (jobs.count() == 1
                                ? " (the only one in " + p + ")"
                                : " (newest of " + jobs.count() + " in " + p + "; pass its directory to pick another)"));
                    }
                }
                files.addAll(inDir);
            } else {
                files.add(p);
            }
        }
        List<FlightRecorderDump> dumps = new ArrayList<>(files.size());
        for (Path f : files) {
            try {
                dumps.add(FlightRecorder.read(f));
            } catch (IOException e) {
                throw new IOException("cannot read flight recorder dump " + f + ": " + e.getMessage(), e);
            }
        }
        return dumps;
    }

    private static List<Path> dumpsIn(Path dir) throws IOException {
        List<Path> inDir = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "flight-recorder-*.json")) {
            ds.forEach(inDir::add);
        }
        inDir.sort(Comparator.naturalOrder());
        return inDir;
    }

    /** The job directories holding dumps under a directory: how many, and the one whose latest dump is the newest. */
    private record Jobs(Path newest, int count) {
    }

    private static Jobs jobsIn(Path dir) throws IOException {
        Path newest = null;
        long newestTime = Long.MIN_VALUE;
        int count = 0;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "flight-recorder-*")) {
            for (Path job : ds) {
                if (!Files.isDirectory(job)) {
                    continue;
                }
                List<Path> dumps = dumpsIn(job);
                count += dumps.isEmpty() ? 0 : 1;
                for (Path f : dumps) {
                    long t = Files.getLastModifiedTime(f).toMillis();
                    if (t > newestTime) {
                        newestTime = t;
                        newest = job;
                    }
                }
            }
        }
        return new Jobs(newest, count);
    }

    /**
     * Analyses the dumps (any number of groups; one dump per rank and group, the latest wins).
     *
     * @param dumps the dumps
     * @return the findings
     */
    public static Report analyze(Collection<FlightRecorderDump> dumps) {
        Map<String, Map<Integer, FlightRecorderDump>> byGroup = new LinkedHashMap<>();
        for (FlightRecorderDump d : dumps) {
            Map<Integer, FlightRecorderDump> ranks = byGroup.computeIfAbsent(d.groupId(), g -> new TreeMap<>());
            ranks.merge(d.rank(), d, (a, b) -> b.dumpedAtUs() >= a.dumpedAtUs() ? b : a);
        }
        List<Finding> findings = new ArrayList<>();
        byGroup.forEach((g, ranks) -> analyzeGroup(g, ranks, findings));
        return new Report(findings);
    }

    // ------------------------------------------------------------------ one group

    enum Status { NOT_REACHED, SCHEDULED, STARTED, FAILED, COMPLETED, EVICTED }

    static final class RankView {
        final FlightRecorderDump dump;
        final TreeMap<Long, FlightRecorderDump.Entry> bySeq = new TreeMap<>();

        RankView(FlightRecorderDump dump) {
            this.dump = dump;
            for (FlightRecorderDump.Entry e : dump.entries()) {
                if (!isPointToPoint(e.op())) {
                    FlightRecorderDump.Entry prev = bySeq.get(e.seq());
                    if (prev == null || e.id() > prev.id()) {
                        bySeq.put(e.seq(), e);
                    }
                }
            }
        }

        Status status(long seq) {
            FlightRecorderDump.Entry e = bySeq.get(seq);
            if (e != null) {
                return Status.valueOf(e.state());
            }
            if (bySeq.isEmpty() || seq > bySeq.lastKey()) {
                return Status.NOT_REACHED;
            }
            // older than what the buffer holds (evicted), or a gap: it moved past this seq
            return Status.EVICTED;
        }
    }

    private static void analyzeGroup(String group, Map<Integer, FlightRecorderDump> dumps, List<Finding> out) {
        int world = dumps.values().stream().mapToInt(FlightRecorderDump::worldSize).max().orElse(0);
        Map<Integer, RankView> views = new TreeMap<>();
        dumps.forEach((r, d) -> views.put(r, new RankView(d)));

        List<Integer> missing = new ArrayList<>();
        for (int r = 0; r < world; r++) {
            if (!views.containsKey(r)) {
                missing.add(r);
            }
        }
        if (!missing.isEmpty()) {
            out.add(new Finding(Kind.MISSING_DUMP, group, -1, missing, "no dump from " + ranks(missing)
                    + " (dumps from " + ranks(new ArrayList<>(views.keySet())) + " of " + world
                    + "); all that is known of " + (missing.size() == 1 ? "it" : "them") + " is what the others recorded"));
        }

        TreeSet<Long> allSeqs = new TreeSet<>();
        views.values().forEach(v -> allSeqs.addAll(v.bySeq.keySet()));

        for (long seq : allSeqs) {
            FlightRecorderMismatches.find(group, seq, views, out);
        }

        Long outstanding = null;
        for (long seq : allSeqs) {
            for (RankView v : views.values()) {
                Status s = v.status(seq);
                if (s != Status.COMPLETED && s != Status.EVICTED) {
                    outstanding = seq;
                    break;
                }
            }
            if (outstanding != null) {
                break;
            }
        }
        if (outstanding == null) {
            out.add(new Finding(Kind.ALL_COMPLETED, group, allSeqs.isEmpty() ? -1 : allSeqs.last(), List.of(),
                    allSeqs.isEmpty() ? "no collective recorded by " + ranks(new ArrayList<>(views.keySet()))
                            : "every rank with a dump completed every recorded collective (up to seq "
                            + allSeqs.last() + ")"));
            return;
        }
        FlightRecorderLaggards.find(group, outstanding, world, views, out);
    }

    static boolean isPointToPoint(String op) {
        return op.equals(OpType.SEND.displayName()) || op.equals(OpType.RECV.displayName())
                || op.equals(OpType.RECVANYSOURCE.displayName());
    }

    /** The most ranks or runs of ranks {@link #ranks} names. */
    static final int MOST_RANK_PARTS = 32;

    /**
     * "rank 3", "ranks 0-2", "ranks 0, 2, 4-6"; after {@value #MOST_RANK_PARTS} parts, how many
     * ranks more ("ranks 0, 2, ... (40 more)"), so that a line stays a line at hundreds of ranks.
     *
     * @param ranks the ranks
     * @return the ranks in words, consecutive ones as ranges
     */
    public static String ranks(Collection<Integer> ranks) {
        List<Integer> rs = new ArrayList<>(new TreeSet<>(ranks));
        if (rs.isEmpty()) {
            return "no rank";
        }
        if (rs.size() == 1) {
            return "rank " + rs.get(0);
        }
        List<String> parts = new ArrayList<>();
        int i = 0;
        while (i < rs.size()) {
            if (parts.size() == MOST_RANK_PARTS) {
                parts.add("... (" + (rs.size() - i) + " more)");
                break;
            }
            int j = i;
            while (j + 1 < rs.size() && rs.get(j + 1) == rs.get(j) + 1) {
                j++;
            }
            if (j == i) {
                parts.add(String.valueOf(rs.get(i)));
            } else if (j == i + 1) {
                parts.add(rs.get(i) + ", " + rs.get(j));
            } else {
                parts.add(rs.get(i) + "-" + rs.get(j));
            }
            i = j + 1;
        }
        return "ranks " + String.join(", ", parts);
    }
}
