import Foundation
import GPUKit
import HostSupport
import ProResCore
import ProResDisplay
import ProResFFmpeg
import ProResGPU
import ProResPipeline

/// The player's state machine: plays runs of frames through a `DecodeRun`
/// (paced by `FramePacer`) on a worker thread while this thread watches the
/// window's keys; paused, it shows one frame at a time. Each run decodes
/// from the frame it starts at (ProRes is intra-only: seeking is exact).
/// With sound, each run starts it at its first frame and the pacer ticks on
/// the clock of the sound heard (`SoundClock`); without, on the host's.
public final class PlaySession {
    public struct Outcome {
        public let presented: Int
        public let decoder: String
        /// The last run played at the clock (nil if only paused frames were shown).
        public let pacing: PacingReport?
        /// Frames skipped before decoding, their tick gone, over every run.
        public let skippedLate: Int
        /// What the sound did; nil when none played.
        public let sound: SoundReport?
    }

    /// What `play` asked of the whole session.
    public struct Arguments: Sendable {
        public let paused: Bool
        public let loop: Bool
        public let hud: Bool
        public let decoderChoice: DecoderSelection.Choice
        public let device: String?
        public let validation: Bool
        public let referenceWhite: Double

        public init(
            paused: Bool, loop: Bool, hud: Bool, decoderChoice: DecoderSelection.Choice, device: String?,
            validation: Bool,
            referenceWhite: Double
        ) {
            self.paused = paused
            self.loop = loop
            self.hud = hud
            self.decoderChoice = decoderChoice
            self.device = device
            self.validation = validation
            self.referenceWhite = referenceWhite
        }
    }

    private let source: SampleSource
    private let name: String
    private let rate: FrameRate
    private let arguments: Arguments
    private let effects: [Effect]
    private let device: GPUDevice
    private let window: X11Window
    private let sink: PresentSink
    private let shown = ShownFrames()
    private let sound: SoundPlayer?
    private let meter = SyncMeter()
    private let path: DisplayColourPath
    /// The clip's own start time code (`tmcd`, MXF), else 00:00:00:00 at the rounded rate.
    private let startTimecode: SMPTETimecode?
    private let first: Int
    /// One past the last frame to play.
    private let end: Int
    private var hud: Bool
    private var pacing: PacingReport?
    private var skippedLate = 0
    private var decoder = "cpu"

    /// Plays frames `start` up to `end` (one past the last) of `source`.
    public init(
        source: SampleSource, format: FormatDescription, name: String, rate: FrameRate, start: Int, end: Int,
        arguments: Arguments,
        effects: [Effect], device: GPUDevice, presenter: FramePresenter, window: X11Window, sound: SoundPlayer?
    ) throws {
        self.sound = sound
        self.source = source
        self.name = name
        self.rate = rate
        self.arguments = arguments
        self.effects = effects
        self.device = device
        self.window = window
        path = presenter.choice.path
        first = start
        self.end = end
        hud = arguments.hud
        startTimecode =
            format.frameRate.flatMap { rate in format.timecode.flatMap { SMPTETimecode($0, rate: rate) } }
            ?? SMPTETimecode(
                hours: 0, minutes: 0, seconds: 0, frames: 0,
                framesPerSecond: max(1, Int(rate.framesPerSecond.rounded())),
                dropFrame: false)
        let shown = self.shown
        let meter = self.meter
        sink = try PresentSink(presenter: presenter, context: device.context) {
            shown.record($0)
            meter.record($0)
        }
    }

    public func run() throws -> Outcome {
        var position = first
        var paused = arguments.paused
        var needsFrame = true
        while true {
            if paused {
                if needsFrame {
                    _ = try play(from: position, count: 1, paced: false)
                    needsFrame = false
                }
                for event in window.pendingEvents() {
                    switch event {
                    case .key(.quit), .close: return outcome
                    case .displayLost(let why): throw DisplayError.lost(why)
                    case .key(.space): paused = false
                    case .key(.right):
                        if position + 1 < end {
                            position += 1
                            needsFrame = true
                        }
                    case .key(.left):
                        if position > first {
                            position -= 1
                            needsFrame = true
                        }
                    case .key(.home):
                        position = first
                        needsFrame = true
                    case .key(.fullscreen): window.toggleFullscreen()
                    case .key(.hud): hud.toggle()
                    case .key(.mute): sound?.toggleMute()
                    case .key(.louder): sound?.changeVolume(louder: true)
                    case .key(.softer): sound?.changeVolume(louder: false)
                    case .resized(let width, let height):
                        sink.resize(to: (width, height))
                        needsFrame = true
                    case .exposed: needsFrame = true
                    }
                }
                updateTitle()
                if !paused { position = min(position + 1, end - 1) } else { usleep(10_000) }
                continue
            }
            switch try play(from: position, count: end - position, paced: true) {
            case .quit: return outcome
            case .paused:
                paused = true
                position = shown.last ?? position
            case .restart:
                position = first
            case .finished:
                guard arguments.loop else { return outcome }
                position = first
            }
        }
    }

    private enum RunEnd { case finished, paused, restart, quit }

    private var outcome: Outcome {
        Outcome(
            presented: shown.count, decoder: decoder, pacing: pacing, skippedLate: skippedLate, sound: finishSound())
    }

    /// Stops the sound, if any, and says what it did.
    private func finishSound() -> SoundReport? {
        guard let sound else { return nil }
        sound.stop()
        let totals = sound.totals
        return SoundReport(
            server: sound.serverName, track: sound.track.index, heardSeconds: totals.heardSeconds,
            underruns: totals.underruns, offsetMilliseconds: Percentiles(meter.milliseconds.map(abs)),
            problem: totals.problem)
    }

    /// Decodes and shows `count` frames from `start` on a worker thread,
    /// watching the keys meanwhile; paced runs go at the clock's rate.
    private func play(from start: Int, count: Int, paced: Bool) throws -> RunEnd {
        let selection = DecoderSelection.presenting(
            on: device, choice: arguments.decoderChoice, selector: arguments.device, validation: arguments.validation)
        // A run after another starts where it is told: rewind explicitly
        // (DecodeRun seeks only to a start past 0).
        try source.seek(toFrame: start)
        let gpu = DecodeRun.GPUOptions(
            context: .init(device: arguments.device, validation: arguments.validation, tuning: device.context.tuning),
            referenceWhite: arguments.referenceWhite, effects: effects, device: device)
        var options = DecodeRun.Options(
            start: start, frames: count, gpu: gpu, decoder: selection, realtime: paced ? rate : nil)
        // Playing, the window shows what the pacer presents, at its tick, and
        // a frame already too late is not decoded at all.
        let sink = self.sink
        sink.paced = paced
        if paced {
            options.present = { @Sendable index in sink.present(index) }
            options.skipLateFrames = true
        }
        let clock = paced ? sound?.start(atSeconds: Double(rate.nanoseconds(ticks: start)) / 1e9) : nil
        if let clock {
            options.pacingClock = clock
            meter.begin(clock: clock, firstIndex: start, rate: rate)
        }
        let run: DecodeRun
        do {
            run = try DecodeRun(source: source, options: options, sinks: [], gpuSinks: [sink])
        } catch {
            endSound(clock)
            throw error
        }
        decoder = run.decoderName
        let worker = Deferred("prores-decode.play") { try run.run() }
        // A key that ends the run silences its sound first, and lets the
        // pacer's clock run on without it so the pacer can stop.
        let stop = { [sound] in
            sound?.pause()
            clock?.release()
            run.cancel()
        }
        var ending = RunEnd.finished
        var lost: String?
        repeat {
            for event in window.pendingEvents() {
                switch event {
                case .key(.quit), .close:
                    ending = .quit
                    stop()
                case .displayLost(let why):
                    lost = why
                    ending = .quit
                    stop()
                case .key(.space):
                    if paused(ending) {
                        ending = .paused
                        stop()
                    }
                case .key(.home):
                    ending = .restart
                    stop()
                case .key(.fullscreen): window.toggleFullscreen()
                case .key(.hud): hud.toggle()
                case .key(.mute): sound?.toggleMute()
                case .key(.louder): sound?.changeVolume(louder: true)
                case .key(.softer): sound?.changeVolume(louder: false)
                case .resized(let width, let height): sink.resize(to: (width, height))
                case .key(.left), .key(.right), .exposed: break
                }
            }
            if lost == nil { updateTitle() }
        } while !worker.isReady(waitingUpTo: 10)
        if ending == .finished, let clock, (try? worker.get()) != nil {
            // The last frame stays on screen for its sound (not after a failure: that is said at once).
            clock.sleep(until: rate.nanoseconds(ticks: count))
        }
        endSound(clock)
        // Whatever the run made of it (a failed present, most likely), the display is why it stopped.
        if let lost { throw DisplayError.lost(lost) }
        do {
            let report = try worker.get()
            if paced { pacing = report.pacing }
            skippedLate += report.skippedLate.count
        } catch ProResDecodeError.interrupted where ending != .finished {
            // Stopped by a key: what was shown stays on screen.
        } catch {
            // The window went while a frame was on its way to it: quit, as asked.
            if try ending == .quit || windowClosed() { return .quit }
            throw error
        }
        if let failure = sink.takeFailure() {
            if try ending == .quit || windowClosed() { return .quit }
            throw failure
        }
        return ending
    }

    /// The run's sound stops, and frames shown from here on are not measured against it.
    private func endSound(_ clock: SoundClock?) {
        guard clock != nil else { return }
        meter.end()
        sound?.stop()
    }

    /// Whether the window was closed (a present to it may have failed
    /// first); throws if the display itself went away.
    private func windowClosed() throws -> Bool {
        let events = window.pendingEvents()
        for case .displayLost(let why) in events { throw DisplayError.lost(why) }
        return events.contains(.close)
    }

    /// Space while playing pauses, unless another key already ended the run.
    private func paused(_ ending: RunEnd) -> Bool { ending == .finished }

    /// `prores-decode — NAME`, with the HUD (`h`) after it.
    private func updateTitle() {
        var title = "prores-decode — \(name)"
        if hud, let index = shown.last {
            title +=
                "  frame \(index)  \(startTimecode?.advanced(by: index).text ?? "")  \(rate) fps  dropped \(pacing?.dropped ?? 0)  "
                + "\(decoder)  \(path.rawValue)" + (sound.map { "  " + $0.volumeText } ?? "")
        }
        if title != lastTitle {
            window.setTitle(title)
            lastTitle = title
        }
    }
    private var lastTitle = ""
}

/// Which frames the window showed, from the GPU stage's completion thread.
// @unchecked: both fields are touched only under `lock`.
final class ShownFrames: @unchecked Sendable {
    private let lock = NSLock()
    private var lastIndex: Int?
    private var total = 0

    func record(_ index: Int) {
        lock.lock()
        lastIndex = index
        total += 1
        lock.unlock()
    }

    var last: Int? {
        lock.lock()
        defer { lock.unlock() }
        return lastIndex
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return total
    }
}
