import Glibc
import ProResTesting
import ProResCore

// The libFuzzer target of `make fuzz` (scripts/fuzz.sh): every input goes
// through `FuzzEntry.run`, the code `FuzzRegressionTests` replays. A broken
// invariant of our own code aborts, so libFuzzer saves the input as a crash;
// a crash inside FFmpeg (not instrumented) still shows as a signal.
//
// Built with `-sanitize=fuzzer,address -D FUZZING`, libFuzzer supplies
// `main`. Built plainly (`swift build`), the same file is a replay tool:
// `prores-decode-fuzz FILE...` prints each input's outcome and exits 1 if
// any broke an invariant.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let outcome = FuzzEntry.run(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
    if !outcome.violations.isEmpty {
        printError("prores-decode-fuzz: broken invariant: \(outcome.violations.joined(separator: " | "))\n")
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
            printError("usage: prores-decode-fuzz FILE...  (built with -sanitize=fuzzer it is a libFuzzer target: scripts/fuzz.sh)\n")
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
            let outcome = FuzzEntry.run(bytes)
            broken = broken || !outcome.violations.isEmpty
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
