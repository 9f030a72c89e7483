import one.profiler.AsyncProfiler;

/**
 * A Java agent that runs async-profiler in one window of a rank's life and writes collapsed stacks,
 * so that a benchmark's steady state (after its warm-up) can be profiled without touching its
 * command. async-profiler comes from Maven Central (tools.profiler:async-profiler, the jar carries
 * linux-x64/libasyncProfiler.so):
 *
 * <pre>
 *   mvn dependency:copy -Dartifact=tools.profiler:async-profiler:4.1 -DoutputDirectory=/tmp/ap
 *   (cd /tmp/ap &amp;&amp; unzip -o async-profiler-4.1.jar 'linux-x64/*' 'one/*')
 *   javac -cp /tmp/ap -d /tmp/ap perf/scripts/ProfAgent.java
 *   printf 'Premain-Class: ProfAgent\n' &gt; /tmp/ap/m.txt &amp;&amp; jar cfm /tmp/ap/profagent.jar /tmp/ap/m.txt -C /tmp/ap .
 *   VARIANTS='prof=java -javaagent:/tmp/ap/profagent.jar=62:87' perf/scripts/tcpcpu_split.sh
 *   python3 perf/scripts/profile_buckets.py /tmp/ap-cpu-*.collapsed
 * </pre>
 *
 * Arguments {@code from:to[:event[:library]]}: seconds after start, the event ({@code cpu}), the
 * library ({@code /tmp/ap/linux-x64/libasyncProfiler.so}). Writes {@code /tmp/ap-<event>-<pid>.collapsed}.
 */
public class ProfAgent {
    public static void premain(String args) {
        String[] a = args.split(":");
        long from = Long.parseLong(a[0]);
        long to = Long.parseLong(a[1]);
        String event = a.length > 2 ? a[2] : "cpu";
        String library = a.length > 3 ? a[3] : "/tmp/ap/linux-x64/libasyncProfiler.so";
        Thread t = new Thread(() -> {
            try {
                AsyncProfiler p = AsyncProfiler.getInstance(library);
                Thread.sleep(from * 1000);
                p.execute("start,event=" + event + ",interval=1000000");
                Thread.sleep((to - from) * 1000);
                p.execute("stop,collapsed,file=/tmp/ap-" + event + "-" + ProcessHandle.current().pid() + ".collapsed");
            } catch (Exception e) {
                e.printStackTrace();
            }
        }, "prof-agent");
        t.setDaemon(true);
        t.start();
    }
}
