import Foundation
import ProResOptions
import XCTest

@testable import TestSupport
@testable import prores_decode

/// What the typed declarations give the user: `-h`, the choices of an
/// enum-valued option in its words, numbers read as the docs describe.
final class OptionDeclarationTests: XCTestCase {
    /// `-h` prints the usage and one line per option: its label and short
    /// help on one line (a label wider than the column on the line above).
    func testDashHPrintsTheUsageAndOneLinePerOption() throws {
        for command in CommandLineTool.commands {
            let spec = command.spec
            let arguments = (spec.name.map { [$0] } ?? ["INPUT"]) + ["-h"]
            let result = try runTool(arguments)
            XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)")
            let lines = result.stdoutText.split(separator: "\n").map(String.init)
            for line in lines { XCTAssertLessThanOrEqual(line.count, 80, "\(arguments): too wide: '\(line)'") }
            for option in spec.options {
                let label = "  " + option.helpLabel
                guard let at = lines.firstIndex(where: { $0 == label || $0.hasPrefix(label + "  ") }) else {
                    XCTFail("\(arguments) lacks '\(option.helpLabel)'")
                    continue
                }
                let line = lines[at] == label ? lines[at + 1] : lines[at]
                XCTAssertTrue(
                    line.hasSuffix(" " + option.short),
                    "\(arguments): \(option.key)'s line is '\(line)', not its short help")
            }
            XCTAssertTrue(result.stdoutText.contains("--help: the full text"), "\(arguments) names --help")
            if spec.name != nil {
                XCTAssertTrue(result.stdoutText.hasPrefix("usage: \(spec.invocation) "), "\(arguments)")
            }
        }
    }

    /// `--decoder`'s choices come from the decoders the tool has, in the
    /// words a script is told (hand-written here).
    func testDecoderChoicesAndTheirErrorAreTheSameInEveryCommand() throws {
        for name in ["check", "play", nil] as [String?] {
            let spec = CommandLineTool.commands.first { $0.spec.name == name }!.spec
            XCTAssertEqual(
                spec.options.first { $0.key == "--decoder" }?.placeholder, "cpu|ffmpeg|gpu|auto", spec.invocation)
        }
        let result = try runTool(["Fixtures/does-not-matter.mov", "--decoder", "gpx"])
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(
            result.stderr,
            "prores-decode: error: invalid value 'gpx' for --decoder: expected cpu, ffmpeg, gpu or auto\n")
    }

    /// `--rate` takes the plain decimals the docs describe, as every other
    /// number: Double("0x10") is 16 and Int("+25") 25, and neither is a rate
    /// a user wrote.
    func testRateTakesOnlyPlainNumbers() throws {
        for text in ["0x10", "1e1", "+25", "+30000/1001", "30000/+1001", "0x7530/1001"] {
            let result = try runTool(["play", "Fixtures/does-not-matter.mov", "--rate", text])
            XCTAssertEqual(result.status, 2, "--rate \(text): \(result.stderr)")
            XCTAssertEqual(
                result.stderr,
                "prores-decode: error: invalid value '\(text)' for --rate: "
                    + "expected frames per second from 1 to 1000 (25, 29.97 or 30000/1001)\n", "--rate \(text)")
        }
    }
}
