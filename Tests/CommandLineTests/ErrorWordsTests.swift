import GPUKit
import ProResCore
import ProResPipeline
import XCTest

@testable import ProResCheck
@testable import TestSupport
@testable import prores_decode

/// Library errors are data in words that name no CLI option; the CLI's
/// `ErrorWords` turns them back into the exact messages it has always printed.
final class ErrorWordsTests: XCTestCase {
    /// One representative value of every case that names an option in the
    /// CLI, with the CLI's exact words for it (the text from before the
    /// library errors became data).
    static let cliWords: [(Error, String)] = [
        (
            ProResDecodeError.badRequest(.startPastEnd(start: 5, frames: 3, container: .track)),
            "--start 5 is past the last frame (the track has 3 frames)"
        ),
        (
            ProResDecodeError.badRequest(.startPastEnd(start: 9, frames: 2, container: .stream)),
            "--start 9 is past the last frame (the stream has 2 frames)"
        ),
        (ProResDecodeError.badRequest(.noFrame(at: 4)), "--start 4: the input has no frame 4"),
        (ProResDecodeError.badRequest(.noFrames), "the input has no frames"),
        (
            ProResDecodeError.badRequest(
                .noSuchTrack(requested: 3, path: "a.mov", streams: 2, summary: "0: prores video, 1: aac audio")),
            "--track 3: 'a.mov' has 2 stream(s) (0: prores video, 1: aac audio)"
        ),
        (
            ProResDecodeError.badRequest(.elementaryStreamHasOneTrack(requested: 1)),
            "--track 1: a raw ProRes elementary stream has only track 0"
        ),
        (
            ProResDecodeError.badRequest(.invalidEffect(spec: "blur", why: "unknown effect 'blur'")),
            "invalid --effect 'blur': unknown effect 'blur'"
        ),
        (
            ProResDecodeError.badRequest(.conversionNeedsPackedLayout),
            "--vulkan converts y416 or v216 surfaces; --format native is the decoder's planar output"
        ),
        (
            ProResDecodeError.badRequest(.saveNeedsConversion),
            "--save needs --vulkan (frames are saved as converted on the GPU)"
        ),
        (
            ProResDecodeError.badRequest(.message("'x.mov' has no frames to benchmark")),
            "'x.mov' has no frames to benchmark"
        ),
        (
            ProResDecodeError.hardwareUnavailable(
                .softwareDevice(name: "llvmpipe (LLVM 15.0.6, 256 bits)", kind: "cpu")),
            "no hardware decoder: llvmpipe (LLVM 15.0.6, 256 bits) is a cpu device, not hardware; drop --require-hardware to run the GPU decoder on it anyway"
        ),
        (
            ProResDecodeError.hardwareUnavailable(
                .noMatchingDevice(selector: "nv", candidates: ["0: llvmpipe", "1: other"])),
            "no hardware decoder: no usable Vulkan device: --device nv matches none of: 0: llvmpipe, 1: other"
        ),
        (
            ProResDecodeError.hardwareUnavailable(.message("the GPU decoder cannot decode this stream: 4:4:4")),
            "no hardware decoder: the GPU decoder cannot decode this stream: 4:4:4"
        ),
        (
            ProResDecodeError.outputExists(path: "out.raw"),
            "cannot write 'out.raw': already exists (pass --overwrite to replace it)"
        ),
        (
            ProResDecodeError.previewDirectory(path: "p", reason: "exists and is not a directory"),
            "cannot write 'p': --previews: exists and is not a directory"
        ),
        (ProResDecodeError.output(path: "o", reason: "is a directory"), "cannot write 'o': is a directory"),
        (
            VulkanError.noMatchingDevice(selector: "no-such-gpu", candidates: ["0: llvmpipe"]),
            "no usable Vulkan device: --device no-such-gpu matches none of: 0: llvmpipe"
        ),
        (
            VulkanError.noDevice("the Vulkan loader found no devices"),
            "no usable Vulkan device: the Vulkan loader found no devices"
        ),
        (
            ExpectRule.ParseError.emptyRuleInList(list: "frames=3,"),
            "--expect 'frames=3,': empty rule (a doubled or trailing comma?)"
        ),
        (
            ExpectRule.ParseError.invalidRule(rule: "frames", why: "no comparison (=, !=, >=, <=, >, <)"),
            "--expect rule 'frames': no comparison (=, !=, >=, <=, >, <)"
        ),
    ]

    func testTheCLIWordsEveryCaseAsItAlwaysHas() {
        for (error, words) in Self.cliWords {
            XCTAssertEqual(ErrorWords.render(error), words)
        }
    }

    func testNoLibraryErrorDescriptionNamesAnOption() {
        for (error, _) in Self.cliWords {
            let description = "\(error)"
            XCTAssertFalse(description.contains("--"), description)
            XCTAssertFalse(description.isEmpty)
        }
    }

    /// Errors thrown by the library itself, not only built here, carry data.
    func testParsersThrowData() {
        XCTAssertThrowsError(try ExpectRule.parseList("frames=3,")) { error in
            XCTAssertEqual(error as? ExpectRule.ParseError, .emptyRuleInList(list: "frames=3,"))
        }
        XCTAssertThrowsError(try ExpectRule("frames")) { error in
            guard case .invalidRule(let rule, _)? = error as? ExpectRule.ParseError else { return XCTFail("\(error)") }
            XCTAssertEqual(rule, "frames")
        }
    }
}
