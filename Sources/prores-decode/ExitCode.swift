import GPUKit
import ProResBench
import ProResCore
import ProResDisplay
import ProResFFmpeg
import ProResGPU
import ProResOptions
import ProResPipeline

/// The documented exit codes (docs/formats.md, `--help`). All are below 124 so they
/// never collide with timeout(1) or the shell's own codes.
enum ExitCode: Int32, CaseIterable {
    case success = 0
    case internalError = 1
    case usage = 2
    case inputUnreadable = 3
    case notProRes = 4
    case damagedFrames = 5
    case outputFailed = 6
    case decoderUnavailable = 7
    case vulkanUnavailable = 8
    case interrupted = 9
    case checkFailed = 10
    case checkErrors = 11
    case badEffectFile = 12
    case hardwareUnavailable = 13
    case noDisplay = 14
    case checkWarnings = 15

    /// What the code means, worded as docs/formats.md's exit-code table words it
    /// (a test holds the two, and `--help`, to the same text).
    var meaning: String {
        switch self {
        case .success: return "success: every frame decoded cleanly"
        case .internalError: return "internal error (a bug: please report it)"
        case .usage:
            return
                "usage error: unknown or malformed option, impossible request (--start past the end, --track out of range)"
        case .inputUnreadable: return "input missing, unreadable, empty, or not a media file"
        case .notProRes: return "input readable but has no usable ProRes video track (or no valid ProRes frame header)"
        case .damagedFrames:
            return
                "some frames were damaged, undecodable or missing (truncated input, a frame header the data contradicts); the rest of the output is complete and kept, and each bad frame is listed on stderr"
        case .outputFailed: return "an output could not be written (nothing partial is left)"
        case .decoderUnavailable:
            return
                "the decoder could not be set up, or the picture size, chroma format or alpha channel changed mid-stream (nothing partial is left)"
        case .vulkanUnavailable:
            return
                "--vulkan/devices/roofline: no Vulkan loader, no usable device, a missing feature, or a shader that would not compile"
        case .interrupted: return "interrupted by SIGINT/SIGTERM/SIGHUP (nothing partial is left)"
        case .checkFailed: return "check: at least one file failed"
        case .checkErrors: return "check: no file failed, but at least one could not be checked"
        case .badEffectFile:
            return
                "--effect lut:FILE.cube: the file is missing, unreadable or malformed (one line with the file and line number; nothing is written)"
        case .hardwareUnavailable:
            return "--require-hardware: no hardware Vulkan device can decode the input (lavapipe is not hardware)"
        case .noDisplay:
            return
                "play: no display to show frames on (DISPLAY unset, no X server, or no Vulkan surface or queue that can present to it), or the display went away while playing"
        case .checkWarnings:
            return
                "check, merge: every file passed, at least one with warnings (WARN); --on-warning pass makes it 0, --on-warning fail 10"
        }
    }

    init(_ error: Error) {
        switch error {
        case let error as ProResDecodeError:
            switch error {
            case .inputUnreadable, .truncatedRecording: self = .inputUnreadable
            case .notProRes: self = .notProRes
            case .badRequest: self = .usage
            case .decoderUnavailable: self = .decoderUnavailable
            case .hardwareUnavailable: self = .hardwareUnavailable
            case .output, .outputExists, .previewDirectory: self = .outputFailed
            case .interrupted: self = .interrupted
            }
        case is UsageError: self = .usage
        case is BenchmarkDamagedInput: self = .damagedFrames
        case is DisplayError, VulkanError.noPresentation: self = .noDisplay
        case is VulkanError: self = .vulkanUnavailable
        case is CubeLUTError: self = .badEffectFile
        // A timed command of `bench --whole-process` that fails: the decoder under test could not run.
        case is WholeProcessBenchmark.Failure: self = .decoderUnavailable
        default: self = .internalError
        }
    }
}
