import Foundation
import GPUKit
import HostSupport
import ProResCore
import ProResDisplay
import ProResFFmpeg
import ProResGPU
import ProResOptions
import ProResPipeline
import ProResPlayback

/// `prores-decode play INPUT`: the clip in a window with its sound, paced by the sound heard (else by the clock).
enum PlayCommand: Command {
    static func run(_ arguments: Arguments) throws -> ExitCode {
        FFmpegLog.configure(verbose: arguments.verbose)
        let effects = try arguments.effectSpecs.map {
            try EffectParser.parse($0, referenceWhite: arguments.referenceWhite)
        }
        let source = try openSampleSource(arguments.input)
        if let readAhead = ProcessSettings.tuning.readAhead { source.readAhead(samples: readAhead) }
        let format = source.format
        let rate =
            try arguments.rate ?? format.frameRate.flatMap {
                FrameRate(numerator: $0.numerator, denominator: $0.denominator)
            }
            ?? { throw UsageError("play: the input states no frame rate; give --rate FPS (1 to 1000)") }()
        let name = URL(fileURLWithPath: arguments.input).lastPathComponent
        // The window opens at the display size: 720×576 at 16:15 is 768 wide.
        var windowSize = format.displaySize
        let window = try X11Window(
            title: "prores-decode — \(name)", display: ProcessSettings.tuning.display, fullscreen: arguments.fullscreen
        ) { screen in
            windowSize = WindowSize.initial(frame: format.displaySize, screen: screen)
            return windowSize
        }
        // The surface and swapchain go before the window they show in, and
        // before the validation layer's messages are counted.
        let context = try VulkanContext(
            options: .init(
                device: arguments.device, validation: arguments.validation, presentation: true,
                tuning: ProcessSettings.tuning))
        var silence: String?
        let (outcome, choice) = try withExtendedLifetime(window) {
            () throws -> (PlaySession.Outcome, DisplayColourChoice) in
            let device = try GPUDevice(context: context)
            let surface = try PresentationSurface(
                context: context, connection: window.connectionHandle, window: window.windowHandle)
            let presenter = try FramePresenter(
                device: device, surface: surface, size: windowSize, referenceWhite: arguments.referenceWhite,
                mastering: format.masteringDisplay, contentLight: format.contentLightLevel,
                pixelAspect: format.sampleAspectRatio.map { Double($0.numerator) / Double($0.denominator) } ?? 1)
            if arguments.verbose {
                Console.note(
                    "display: \(presenter.choice.path.rawValue) in \(presenter.choice.format) (\(presenter.choice.reason)); "
                        + "pacing by "
                        + (presenter.knowsWhenShown ? "VK_KHR_present_wait" : "the clock (no VK_KHR_present_wait)"))
            }
            let start = try FramePosition.start(arguments.start, format)
            let available = format.frameCount ?? Int.max
            let end = min(available, try FramePosition.frames(arguments.frames, format).map { start + $0 } ?? available)
            let sound = openSound(arguments, format: format, rate: rate)
            silence = sound.silence
            let session = try PlaySession(
                source: source, format: format, name: name, rate: rate, start: start, end: end,
                arguments: arguments.session, effects: effects, device: device, presenter: presenter,
                window: window, sound: sound.player)
            return (try session.run(), presenter.choice)
        }
        let messages = context.validation?.messages ?? []
        let summary = JSON.object([
            ("input", JSON.string(URLCredentials.shown(arguments.input))), ("decoder", JSON.string(outcome.decoder)),
            (
                "display",
                JSON.object([
                    ("path", JSON.string(choice.path.rawValue)), ("format", JSON.string(choice.format.description)),
                ])
            ),
            ("presented", "\(outcome.presented)"), ("skipped_late", "\(outcome.skippedLate)"),
            ("validation_messages", "\(messages.count)"),
            ("realtime", outcome.pacing?.json ?? "null"),
            ("audio", outcome.sound?.json ?? SoundReport.silentJSON(reason: silence ?? "no sound")),
        ])
        if arguments.json {
            try Console.standardOutput(summary + "\n")
        } else {
            Console.write(
                "play: \(outcome.presented) frames presented, \(outcome.skippedLate) skipped before decoding (late)"
                    + (outcome.pacing.map { "; " + $0.text } ?? "") + (outcome.sound.map { "; " + $0.text } ?? "")
                    + "\n")
        }
        return .success
    }

    /// The first sound track through the sound server, or why there is no
    /// sound; a server or track that cannot play is said in one line, and
    /// play goes on without sound.
    private static func openSound(_ arguments: Arguments, format: FormatDescription, rate: FrameRate) -> (
        player: SoundPlayer?, silence: String?
    ) {
        if arguments.silent { return (nil, "--audio none") }
        guard let track = format.audioTracks.first else { return (nil, "no sound track") }
        let own = format.frameRate.flatMap { FrameRate(numerator: $0.numerator, denominator: $0.denominator) }
        if let own, own != rate {
            Console.warning("play: --rate \(rate) is not the clip's \(own) fps: playing without sound")
            return (nil, "--rate is not the clip's rate")
        }
        switch SoundPlayer.open(input: arguments.input, track: track, muted: arguments.mute) {
        case .success(let player): return (player, nil)
        case .failure(let why):
            Console.warning("play: \(why): playing without sound")
            return (nil, why.reason)
        }
    }
}
