import ProResCore
import ProResOptions

/// `--start` and `--frames` as people write them, from ffmpeg and mpv: a
/// frame number (`120`), seconds with a unit or as a clock (`12.5s`,
/// `00:00:12.5`, `1:30`), or for `--start` the source's time code
/// (`10:00:01:00`, `;` before the frames for drop-frame). Seconds and time
/// codes become frames once the stream's rate and first time code are known.
enum FramePosition: Equatable, Sendable {
    case frame(Int)
    case seconds(Double)
    /// `HH:MM:SS:FF` or `HH:MM:SS;FF` as written.
    case timecode(String)

    /// The forms a value may take, for error messages.
    static let forms = "a frame number, seconds (12.5s or 00:00:12.5) or a time code (10:00:01:00, ; for drop-frame)"

    init?(_ text: String) {
        if let number = PlainNumber.integer(text, in: 0...Int.max) {
            self = .frame(number)
        } else if text.hasSuffix("s"), let seconds = Self.decimal(String(text.dropLast())) {
            self = .seconds(seconds)
        } else if let timecode = Self.parsedTimecode(text) {
            self = timecode
        } else if let seconds = Self.clock(text) {
            self = .seconds(seconds)
        } else {
            return nil
        }
    }

    /// The frame a `--start` names, in a stream of `rate` frames per second
    /// whose first frame has time code `firstTimecode`.
    func startFrame(option: String, rate: (numerator: Int, denominator: Int)?, firstTimecode: String?) throws -> Int {
        switch self {
        case .frame(let index): return index
        case .seconds(let seconds):
            // The first frame at or after that time, as `ffmpeg -ss` starts.
            let rate = try Self.rate(option, rate)
            return try Self.whole(
                option, (seconds * Double(rate.numerator) / Double(rate.denominator) - 1e-9).rounded(.up))
        case .timecode(let text):
            let rate = try Self.rate(option, rate)
            guard let firstTimecode, let first = SMPTETimecode(firstTimecode, rate: rate) else {
                throw UsageError("\(option) \(text): the input has no time code; give a frame number or seconds")
            }
            guard let wanted = SMPTETimecode(text, rate: rate), wanted.dropFrame == first.dropFrame else {
                throw UsageError(
                    "\(option) \(text): not a time code of this input (\(firstTimecode) at \(first.framesPerSecond) frames a second)"
                )
            }
            guard wanted.frameNumber >= first.frameNumber else {
                throw UsageError("\(option) \(text): before the input's first frame (time code \(firstTimecode))")
            }
            return wanted.frameNumber - first.frameNumber
        }
    }

    /// How many frames a `--frames` names.
    func frameCount(option: String, rate: (numerator: Int, denominator: Int)?) throws -> Int {
        switch self {
        case .frame(let count): return count
        case .seconds(let seconds):
            let rate = try Self.rate(option, rate)
            // The frames that start before that time, as `ffmpeg -t` keeps.
            return try Self.whole(
                option, (seconds * Double(rate.numerator) / Double(rate.denominator) - 1e-9).rounded(.up))
        case .timecode:
            throw UsageError(
                "\(option) is a length: a number of frames or seconds (12.5s or 00:00:12.5), not a time code")
        }
    }

    private static func rate(_ option: String, _ rate: (numerator: Int, denominator: Int)?) throws -> (
        numerator: Int, denominator: Int
    ) {
        guard let rate, rate.numerator > 0, rate.denominator > 0 else {
            throw UsageError("\(option): the input's frame rate is unknown; give a frame number")
        }
        return rate
    }

    /// Frames as a whole number a run can count to.
    private static func whole(_ option: String, _ frames: Double) throws -> Int {
        guard frames.isFinite, frames < Double(Int32.max) else {
            throw UsageError("\(option): more frames than a stream can hold")
        }
        return max(0, Int(frames))
    }

    private static func decimal(_ text: String) -> Double? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let value = Double(text),
            value.isFinite
        else { return nil }
        return value
    }

    /// `[[HH:]MM:]SS[.fff]` with at least one colon.
    private static func clock(_ text: String) -> Double? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard (2...3).contains(parts.count), let last = parts.last, let seconds = decimal(last), seconds < 60 else {
            return nil
        }
        let whole = parts.dropLast().compactMap { $0.allSatisfy(\.isASCII) ? Int($0) : nil }.filter {
            (0..<1_000_000).contains($0)
        }
        guard whole.count == parts.count - 1, whole.count == 1 || whole[1] < 60 else { return nil }
        return Double(whole.reduce(0) { $0 * 60 + $1 } * 60) + seconds
    }

    /// `HH:MM:SS:FF`, or `HH:MM:SS;FF` for drop-frame: four whole numbers.
    private static func parsedTimecode(_ text: String) -> FramePosition? {
        let separators = String(text.filter { $0 == ":" || $0 == ";" })
        guard separators == ":::" || separators == "::;" else { return nil }
        let fields = text.split(whereSeparator: { $0 == ":" || $0 == ";" })
        guard fields.count == 4,
            fields.allSatisfy({ !$0.isEmpty && $0.count <= 6 && $0.allSatisfy { $0.isASCII && $0.isNumber } })
        else { return nil }
        return FramePosition.timecode(text)
    }
}

extension FramePosition {
    /// The first frame `--start` names in a stream of `format`.
    static func start(_ position: FramePosition, _ format: FormatDescription) throws -> Int {
        let start = try position.startFrame(option: "--start", rate: format.frameRate, firstTimecode: format.timecode)
        guard start <= Int(Int32.max) else { throw UsageError("--start \(position): past any frame a stream can hold") }
        return start
    }

    /// The frames `--frames` asks for in a stream of `format`; nil: all.
    static func frames(_ position: FramePosition?, _ format: FormatDescription) throws -> Int? {
        guard let position else { return nil }
        let count = try position.frameCount(option: "--frames", rate: format.frameRate)
        guard count >= 1 else { throw UsageError("--frames \(position): less than one frame") }
        return count
    }
}

extension FramePosition: CustomStringConvertible {
    var description: String {
        switch self {
        case .frame(let index): return "\(index)"
        case .seconds(let seconds): return "\(seconds)s"
        case .timecode(let text): return text
        }
    }
}
