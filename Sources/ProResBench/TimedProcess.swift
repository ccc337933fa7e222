import Glibc
import HostSupport
import ProResCore

/// One run of a command line as a whole process, timed from just before the
/// spawn to the reaped exit: start-up, the work, and the teardown a user
/// waits for. stdin reads /dev/null (ffmpeg would otherwise read keys from
/// it), stdout goes to /dev/null, stderr to `stderrPath`, kept for the
/// failure's words.
struct TimedProcess {
    let argv: [String]
    let stderrPath: String

    enum Outcome {
        case exited(Int32)
        case signalled(Int32)
    }

    /// Wall seconds, how the process ended, and when (monotonic ns) it was
    /// spawned and reaped; throws only when it could not start.
    func run() throws -> (seconds: Double, outcome: Outcome, spawned: UInt64, reaped: UInt64) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        var pid: pid_t = 0
        let start = monotonicNanoseconds()
        let spawned = posix_spawnp(&pid, argv[0], &actions, nil, &cArguments, environ)
        guard spawned == 0 else {
            throw WholeProcessBenchmark.Failure.cannotStart(command: argv, reason: String(cString: strerror(spawned)))
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else {
                throw WholeProcessBenchmark.Failure.cannotStart(command: argv, reason: "waitpid failed")
            }
        }
        let reaped = monotonicNanoseconds()
        let seconds = Double(reaped &- start) / 1e9
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift cannot import as macros.
        let outcome: Outcome = status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signalled(status & 0x7f)
        return (seconds, outcome, start, reaped)
    }

    /// The last non-empty line the process wrote on stderr, for the failure's message.
    func lastErrorLine() -> String {
        guard let file = fopen(stderrPath, "r") else { return "" }
        defer { fclose(file) }
        var last = ""
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        while getline(&line, &capacity, file) > 0, let line {
            let text = String(cString: line).trimmingSpaces()
            if !text.isEmpty { last = text }
        }
        free(line)
        return last
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
