import Foundation
import XCTest

import ProResCore
@testable import ProResOptions
@testable import TestSupport
@testable import prores_decode

/// Every numeric option declares its range once (`OptionSpec.range`): the
/// parser takes both ends, refuses just outside them (and non-numbers) with
/// the range in the message, and `--help` shows it; the ranges of the
/// options that reach pixels give finite EXR samples at both ends (read back
/// by the ffmpeg CLI), with the effects' own ranges at theirs.
final class OptionRangeTests: XCTestCase {
    /// Placeholders that stand for a number: each such option must declare a range.
    static let numericPlaceholders: Set<String> = ["N", "K", "SECONDS", "NITS", "FPS"]

    /// `value` read by the option's own declaration, as the command reads it.
    private func parse(_ spec: CommandSpec, _ option: OptionSpec, _ value: String) throws -> Double? {
        let parsed = try ParsedArguments([option.key, value], for: spec)
        switch spec.declarations.first(where: { $0.spec.key == option.key }) {
        case let declared as Option<Int>: return try parsed[declared].map(Double.init)
        case let declared as Option<Double>: return try parsed[declared]
        case let declared as Option<FrameRate>: return try parsed[declared]?.framesPerSecond
        default:
            XCTFail("\(spec.invocation) \(option.key) declares a range but reads no number")
            return nil
        }
    }

    private func assertRefused(
        _ spec: CommandSpec, _ option: OptionSpec, _ value: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        // A rate's own reader words its refusals in frames per second, with the same ends.
        let words = option.key == "--rate" ? String(option.range!.helpNote.dropFirst().dropLast()) : option.range!.words
        XCTAssertThrowsError(
            try parse(spec, option, value), "\(spec.invocation) \(option.key) \(value)", file: file, line: line
        ) { error in
            XCTAssertTrue("\(error)".contains(words), "\(error)", file: file, line: line)
        }
    }

    /// `value` as a plain decimal, with digits enough to read back the same
    /// double (5e-324 is 0.000…00494…, 330 places).
    static func plainDecimal(_ value: Double) -> String {
        var text = String(format: "%.330f", value)
        while text.hasSuffix("0") { text.removeLast() }
        return text.hasSuffix(".") ? String(text.dropLast()) : text
    }

    func testEveryNumericOptionHoldsItsRangeAtBothEnds() throws {
        var checked = 0
        for command in CommandLineTool.commands {
            let spec = command.spec
            let help = HelpFormatter.help(for: spec)
            for option in spec.options {
                if let placeholder = option.placeholder, Self.numericPlaceholders.contains(placeholder) {
                    XCTAssertNotNil(
                        option.range, "\(spec.invocation) \(option.key) takes a number but declares no range")
                }
                guard let range = option.range else { continue }
                checked += 1
                XCTAssertTrue(
                    help.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(
                        of: #" +"#, with: " ", options: .regularExpression
                    )
                    .contains(range.helpNote),
                    "\(spec.invocation) --help does not show \(option.key)'s range \(range.helpNote)")
                for junk in ["", "x", "nan", "inf", "-inf", "1e400", "0x10"] { assertRefused(spec, option, junk) }
                switch range {
                case .integer(let bounds):
                    for end in [bounds.lowerBound, bounds.upperBound] {
                        XCTAssertEqual(try parse(spec, option, "\(end)"), Double(end), "\(option.key) \(end)")
                    }
                    assertRefused(spec, option, "\(bounds.lowerBound - 1)")
                    if bounds.upperBound < Int.max { assertRefused(spec, option, "\(bounds.upperBound + 1)") }
                    assertRefused(spec, option, "\(bounds.lowerBound).5")
                case .real(let lower, let upper, let excluded):
                    XCTAssertEqual(try parse(spec, option, "\(upper)"), upper, "\(option.key) \(upper)")
                    assertRefused(spec, option, "\(upper.nextUp)")
                    if excluded {
                        assertRefused(spec, option, "\(lower)")
                        XCTAssertEqual(try parse(spec, option, Self.plainDecimal(lower.nextUp)), lower.nextUp)
                        assertRefused(spec, option, "\(lower.nextUp)".contains("e") ? "\(lower.nextUp)" : "1e400")
                    } else {
                        XCTAssertEqual(try parse(spec, option, "\(lower)"), lower, "\(option.key) \(lower)")
                        assertRefused(spec, option, "\(lower.nextDown)")
                    }
                    // A subnormal: NaN through a division, unless the range holds it.
                    if !range.contains(1e-46) { assertRefused(spec, option, "1e-46") }
                }
            }
        }
        // 17: every option whose value is a plain number; --start and
        // --frames take a POSITION or LENGTH (frames, seconds or time code),
        // held by FFmpegConventionsTests.
        XCTAssertGreaterThanOrEqual(checked, 17, "the numeric options of every command")
    }

    /// The commands themselves (not only the parser) hold each declared
    /// range: a value just outside is exit 2, one line stating the range.
    func testEveryCommandRefusesJustOutsideItsRanges() throws {
        let input = Repo.fixture("hq.mov")
        for command in CommandLineTool.commands {
            let spec = command.spec
            let lead = (spec.name.map { [$0] } ?? []) + (spec.operands.isEmpty ? [] : [input])
            for option in spec.options {
                guard let range = option.range else { continue }
                let bounds = String(range.helpNote.dropFirst().dropLast())
                var outside: [String]
                switch range {
                case .integer(let r):
                    outside = ["\(r.lowerBound - 1)"] + (r.upperBound < Int.max ? ["\(r.upperBound + 1)"] : [])
                case .real(let lower, let upper, let excluded):
                    outside = [excluded ? "\(lower)" : "\(lower.nextDown)", "\(upper.nextUp)"]
                }
                for value in outside {
                    let result = try runTool(lead + [option.key, value], timeout: 30)
                    let what = "\(spec.invocation) \(option.key) \(value)"
                    Hostile.assertExit(result, 2, what)
                    assertSingleError(result, mentions: [bounds], what)
                }
            }
        }
    }

    /// The EXR samples of `arguments` on pq.mov and hlg.mov: all finite.
    private func assertFiniteEXR(
        _ arguments: [String], context: String = "", file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let dir = try makeTemporaryDirectory(self)
        for clip in ["pq.mov", "hlg.mov"] {
            let out = dir.appendingPathComponent(clip).path
            let result = try runTool(
                [Repo.fixture(clip), "--frames", "1", "--save", out, "--quiet"] + arguments, timeout: 120)
            XCTAssertEqual(
                result.status, 0, "\(clip) \(arguments) \(context): \(result.stderr)", file: file, line: line)
            let planes = try exrPlanes(out + "/frame-000000.exr")
            let samples = planes.r + planes.g + planes.b + planes.a
            XCTAssertFalse(samples.isEmpty, file: file, line: line)
            XCTAssertEqual(
                samples.filter { !$0.isFinite }.count, 0,
                "\(clip) \(arguments) \(context): samples that are not finite",
                file: file, line: line)
        }
    }

    /// Inside the ranges, not only at their ends: values drawn at random
    /// (a fresh seed each run, named in any failure) for the reference white
    /// and a chain of every effect, all giving finite EXR samples.
    func testValuesDrawnInsideTheRangesGiveFiniteEXRs() throws {
        let seed = UInt64(Date().timeIntervalSince1970 * 1000)
        var generator = KernelRandom(seed: seed)
        // Six decimal places, no exponent: a number the options parse.
        func draw(_ range: ClosedRange<Double>) -> String {
            String(format: "%.6f", Double.random(in: range, using: &generator))
        }
        for _ in 0..<4 {
            let arguments = [
                "--reference-white", draw(1...10000),
                "--effect", "exposure:" + draw(-20...20), "--effect", "saturation:" + draw(0...10),
                "--effect", "sepia:" + draw(0...1),
                "--effect",
                "chroma-key:color=\(draw(0...1)),\(draw(0...1)),\(draw(0...1)),"
                    + "tolerance=\(draw(0...2)),softness=\(draw(0...2))",
            ]
            try assertFiniteEXR(arguments, context: "seed \(seed)")
        }
    }

    func testReferenceWhiteAndEffectEndsGiveFiniteEXRs() throws {
        for white in ["1", "10000"] { try assertFiniteEXR(["--reference-white", white]) }
        for effect in [
            "exposure:20", "exposure:-20", "saturation:10", "saturation:0", "sepia:0", "sepia:1",
            "chroma-key:color=0,1,0,tolerance=2,softness=2", "chroma-key:color=1,0,1,tolerance=0,softness=0",
        ] {
            try assertFiniteEXR(["--reference-white", "1", "--effect", effect])
        }
        // Just outside: refused in words, nothing written.
        for (arguments, words) in [
            (["--reference-white", "0.99"], "from 1 to 10000"), (["--effect", "exposure:20.5"], "from -20 to 20"),
        ] {
            let dir = try makeTemporaryDirectory(self)
            let result = try runTool(
                [Repo.fixture("pq.mov"), "--save", dir.appendingPathComponent("x").path] + arguments, timeout: 60)
            Hostile.assertExit(result, 2, "\(arguments)")
            assertSingleError(result, mentions: [words], "\(arguments)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("x").path))
        }
    }
}
