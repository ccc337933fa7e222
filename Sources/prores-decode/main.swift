import Glibc
import ProResCore

// Start-up is measured from here.
_ = ProcessClock.start

// Writes to a closed pipe must surface as EPIPE errors, not kill us silently.
signal(SIGPIPE, SIG_IGN)

let status: ExitCode
do {
    status = try CommandLineTool.run(Array(CommandLine.arguments.dropFirst()))
} catch {
    Console.error(ErrorWords.render(error))
    status = ExitCode(error)
}
exit(status.rawValue)
