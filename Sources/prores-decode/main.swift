import Glibc
import ProResCore
import ProResFFmpeg
import GPUKit
import ProResGPU
import ProResPipeline

// Writes to a closed pipe must surface as EPIPE errors, not kill us silently.
signal(SIGPIPE, SIG_IGN)

let arguments = Array(CommandLine.arguments.dropFirst())
let status: ExitCode
do {
    switch arguments.first {
    case nil:
        Console.write(HelpText.main + "\n" + HelpText.exitCodes + "\n")
        status = .usage
    case "--help", "-h":
        Console.standardOutput(HelpText.main + "\n" + HelpText.exitCodes + "\n")
        status = .success
    case "--version":
        Console.standardOutput("prores-decode \(ProResDecodeVersion.string)\n")
        status = .success
    case "info":
        status = try InfoCommand.run(Array(arguments.dropFirst()))
    case "roofline":
        status = try RooflineCommand.run(Array(arguments.dropFirst()))
    case "devices":
        status = try DevicesCommand.run(Array(arguments.dropFirst()))
    case "bench":
        status = try BenchCommand.run(Array(arguments.dropFirst()))
    case "check":
        status = try CheckCommand.run(Array(arguments.dropFirst()))
    default:
        status = try DecodeCommand.run(arguments)
    }
} catch {
    Console.error("\(error)")
    status = ExitCode(error)
}
exit(status.rawValue)
