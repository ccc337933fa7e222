import Foundation
import GPUKit
import ProResCore
import ProResGPU
import ProResOptions
import ProResPipeline
import ProResPlayback

extension PlayCommand {
    struct Arguments: CommandArguments {
        let input: String
        let start: FramePosition
        let frames: FramePosition?
        let paused: Bool
        let loop: Bool
        let rate: FrameRate?
        let fullscreen: Bool
        let hud: Bool
        let json: Bool
        /// `--audio none`: no sound.
        let silent: Bool
        let mute: Bool
        let verbose: Bool
        let decoderChoice: DecoderSelection.Choice
        let device: String?
        let effectSpecs: [String]
        let referenceWhite: Double
        let validationFlag: Bool

        init(_ parsed: ParsedArguments) throws {
            input = try parsed.input()
            start = try FramePosition.parse(parsed, "--start") ?? .frame(0)
            frames = try FramePosition.parse(parsed, "--frames")
            paused = parsed.flag("--paused")
            loop = parsed.flag("--loop")
            if let text = parsed.string("--rate"), let problem = FrameRate.problem(parsing: text) {
                throw UsageError("invalid value '\(text)' for --rate: \(problem)")
            }
            rate = try parsed.value(
                "--rate", expected: "frames per second from 1 to 1000 (25, 29.97 or 30000/1001)",
                FrameRate.init(parsing:))
            fullscreen = parsed.flag("--fullscreen")
            hud = parsed.flag("--hud")
            json = parsed.flag("--json")
            silent =
                try parsed.value("--audio", expected: "play or none") { ["play": false, "none": true][$0] } ?? false
            mute = parsed.flag("--mute")
            verbose = parsed.flag("--verbose")
            decoderChoice =
                try parsed.value(
                    "--decoder", expected: "cpu, ffmpeg, gpu or auto", DecoderSelection.Choice.init(rawValue:)) ?? .auto
            device = parsed.string("--device")
            try OptionSpec.checkSingleDevice(device)
            effectSpecs = parsed.strings("--effect")
            referenceWhite = try parsed.real("--reference-white") ?? TransferFunction.defaultReferenceWhite
            validationFlag = parsed.flag("--validate")
        }

        /// --validate, or PRORES_DECODE_VALIDATION=1 in the environment.
        var validation: Bool { validationFlag || ProcessSettings.tuning.validation != .off }

        /// What the play session itself reads.
        var session: PlaySession.Arguments {
            PlaySession.Arguments(
                paused: paused, loop: loop, hud: hud, decoderChoice: decoderChoice, device: device,
                validation: validation,
                referenceWhite: referenceWhite)
        }

        func files() -> CommandFiles {
            var files = CommandFiles()
            files.input("the input", input)
            return files
        }
    }
}
