import Glibc
import ProResCore
import ProResTesting

// The libFuzzer target of `make fuzz` (scripts/fuzz.sh): every input goes
// through one entry of ProResTesting, the code `FuzzRegressionTests` and
// `FuzzSeedReplayTests` replay. PRORES_FUZZ_TARGET picks it:
//   decode  (default) `FuzzEntry.run`: any bytes as a file or stdin
//   tables  `TableFuzzEntry.run`: a MOV/MXF clip whose sample table is the input
//   options `OptionFuzzEntry.run`: NUL-separated arguments, `--rate` included
// A broken invariant of our own code aborts, so libFuzzer saves the input as
// a crash; a crash inside FFmpeg (not instrumented) still shows as a signal.
//
// Built with `-sanitize=fuzzer,address -D FUZZING`, libFuzzer supplies
// `main`. Built plainly (`swift build`), the same file is a replay tool:
// `prores-decode-fuzz FILE...` prints each input's outcome and exits 1 if
// any broke an invariant.

/// The entry PRORES_FUZZ_TARGET names; the table templates come from
/// PRORES_FUZZ_FIXTURES (default `Fixtures`, the repository's).
enum Mode {
    case decode
    case tables([TableFuzzEntry.Template])
    case options

    static let current: Mode = {
        let name = getenv("PRORES_FUZZ_TARGET").map { String(cString: $0) } ?? "decode"
        switch name {
        case "decode": return .decode
        case "options": return .options
        case "tables":
            let fixtures = getenv("PRORES_FUZZ_FIXTURES").map { String(cString: $0) } ?? "Fixtures"
            do { return .tables(try TableFuzzEntry.templates(fixtures: fixtures)) } catch {
                printError("prores-decode-fuzz: \(error)\n")
                exit(2)
            }
        default:
            printError("prores-decode-fuzz: PRORES_FUZZ_TARGET must be decode, tables or options, not '\(name)'\n")
            exit(2)
        }
    }()

    /// The input's outcome in words, and its broken invariants.
    func run(_ bytes: UnsafeRawBufferPointer) -> (String, [String]) {
        switch self {
        case .decode:
            let outcome = FuzzEntry.run(bytes)
            return ("\(outcome)", outcome.violations)
        case .tables(let templates):
            guard let outcome = TableFuzzEntry.run(bytes, templates: templates) else { return ("skipped", []) }
            return ("\(outcome)", outcome.violations)
        case .options:
            let violations = OptionFuzzEntry.run(bytes)
            return (violations.isEmpty ? "ok" : "VIOLATIONS: " + violations.joined(separator: " | "), violations)
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let (_, violations) = Mode.current.run(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
    if !violations.isEmpty {
        printError("prores-decode-fuzz: broken invariant: \(violations.joined(separator: " | "))\n")
        abort()
    }
    return 0
}

#if FUZZING
    // SwiftPM links every executable with `--defsym main=<module>_main` (so tests
    // can link it), which replaces libFuzzer's own `main`; this entry point does
    // what that one does.
    @_silgen_name("LLVMFuzzerRunDriver")
    private func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    @_cdecl("prores_decode_fuzz_main")
    public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
        var count = argc
        var arguments = argv
        return runFuzzerDriver(&count, &arguments, fuzzOneInput)
    }
#else
    @main
    enum Replay {
        static func main() {
            let paths = CommandLine.arguments.dropFirst()
            guard !paths.isEmpty else {
                printError(
                    "usage: prores-decode-fuzz FILE...  (built with -sanitize=fuzzer it is a libFuzzer target: scripts/fuzz.sh)\n"
                )
                exit(2)
            }
            var broken = false
            for path in paths {
                guard let file = fopen(path, "rb") else {
                    printError("prores-decode-fuzz: cannot open '\(path)'\n")
                    exit(3)
                }
                var bytes: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 1 << 16)
                while true {
                    let n = fread(&chunk, 1, chunk.count, file)
                    if n <= 0 { break }
                    bytes += chunk[0..<n]
                }
                fclose(file)
                let (outcome, violations) = bytes.withUnsafeBytes { Mode.current.run($0) }
                broken = broken || !violations.isEmpty
                print("\(path): \(outcome)")
            }
            exit(broken ? 1 : 0)
        }
    }
#endif

/// Writes to standard error (the C `stderr` global is not concurrency-safe
/// to name in Swift 6).
private func printError(_ text: String) {
    _ = text.withCString { write(STDERR_FILENO, $0, strlen($0)) }
}
