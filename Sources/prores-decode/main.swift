import Glibc
import HostSupport
import ProResCore
import ProResPipeline

// Start-up is measured from here.
_ = ProcessClock.start
// Before anything else: a signal during start-up is an interruption (exit 9).
SignalTrap.installProcessHandlers()

// The PRORES_DECODE_* settings, read once; a misspelt name is said, not ignored.
let tuning = ProcessSettings.tuning
for warning in tuning.warnings { Console.warning(warning) }
// A setting's number outside its range is a usage error, as an option's is: one line, exit 2.
if let problem = tuning.numberProblems.first {
    Console.error(problem)
    ProcessExit.now(ExitCode.usage.rawValue)
}
// The process-wide settings, before any thread records a span or reads a sample.
Trace.keepSpans(forFile: tuning.tracePath)
ReadThreads.size(
    tuning.readThreads
        ?? ReadThreads.defaultCount(readsAhead: tuning.readAhead ?? SampleSourcePrefetch.readsAheadOfOneFile))

// Writes to a closed pipe must surface as EPIPE errors, not kill us silently.
signal(SIGPIPE, SIG_IGN)

let status: ExitCode
do {
    // The raw argv, not CommandLine.arguments: that decodes lossily, and a
    // file name that is not UTF-8 would name another file (PathBytes).
    let arguments = (1..<Int(CommandLine.argc)).map { PathBytes.string(cString: CommandLine.unsafeArgv[$0]!) }
    status = try CommandLineTool.run(arguments)
} catch {
    // An output opened before the one that failed may still be held by a
    // sink (a hashing thread keeps it alive past the throw): its temporary
    // must go all the same, or `-n` would leave a `.part` file behind.
    TemporaryFiles.shared.removeAll()
    Console.error(ErrorWords.render(error))
    status = ExitCode(error)
}
Trace.span("trace written") { OutputSafety.writeTrace() }
Trace.span("devices idle at exit") { KeptUntilExit.quiesce() }
// Last: the report covers everything above.
PhasesAtExit.write()
ProcessExit.now(status.rawValue)
