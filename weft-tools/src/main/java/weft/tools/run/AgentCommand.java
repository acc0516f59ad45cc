package weft.tools.run;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The command line that starts a PE on another host through a launch agent: {@code AGENT... HOST
 * sh -c SCRIPT}, where SCRIPT reads the job secret from standard input into
 * {@code WEFT_JOB_SECRET}, changes to the launcher's working directory if it exists there, and
 * {@code exec}s the PE with its environment.
 *
 * <p>Agents take {@code HOST COMMAND...} either exec-style (the words are the program and its
 * arguments, as {@code ip netns exec}, {@code docker exec}, {@code chroot}) or, for {@code ssh} and
 * {@code rsh}, as words joined into one line for the remote shell; for those every word is
 * shell-quoted so that the remote shell sees the same words.
 */
final class AgentCommand {
    private AgentCommand() {
    }

    static List<String> build(final List<String> agent, final String host, final Map<String, String> env,
                              final List<String> peCommand, final String workDir) {
        final StringBuilder script = new StringBuilder();
        script.append("IFS= read -r ").append("WEFT_JOB_SECRET")
            .append(" || { echo 'weft: no job secret on standard input' >&2; exit 97; }; export WEFT_JOB_SECRET; ")
            .append("cd ").append(quote(workDir)).append(" 2>/dev/null; exec env");
        env.forEach((k, v) -> script.append(' ').append(quote(k + "=" + v)));
        for (final String w : peCommand) {
            script.append(' ').append(quote(w));
        }
        final List<String> remote = List.of("sh", "-c", script.toString());
        final boolean joinsWords = joinsWords(agent.getFirst());
        final List<String> out = new ArrayList<>(agent);
        out.add(host);
        for (final String w : remote) {
            out.add(joinsWords ? quote(w) : w);
        }
        return out;
    }

    /** ssh and rsh hand the remote shell one line made of their words. */
    static boolean joinsWords(final String agentExe) {
        final String name = Path.of(agentExe).getFileName().toString();
        return name.equals("ssh") || name.equals("rsh");
    }

    /** POSIX shell single quoting. */
    static String quote(final String word) {
        if (!word.isEmpty() && word.matches("[A-Za-z0-9_@%+=:,./-]+")) {
            return word;
        }
        return "'" + word.replace("'", "'\\''") + "'";
    }
}
