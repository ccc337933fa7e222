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
            input = try parsed.input(SharedOptions.input)
            start = try parsed[Options.start] ?? .frame(0)
            frames = try parsed[Options.frames]
            paused = parsed[Options.paused]
            loop = parsed[Options.loop]
            rate = try parsed[Options.rate]
            fullscreen = parsed[Options.fullscreen]
            hud = parsed[Options.hud]
            json = parsed[Options.json]
            silent = try parsed[Options.audio] == SoundChoice.none
            mute = parsed[Options.mute]
            verbose = parsed[Options.verbose]
            decoderChoice = try parsed[Options.decoder] ?? .auto
            device = try parsed[SharedOptions.device]
            try SharedOptions.checkSingleDevice(device)
            effectSpecs = try parsed.every(Options.effect)
            referenceWhite = try parsed[SharedOptions.referenceWhite] ?? TransferFunction.defaultReferenceWhite
            validationFlag = parsed[SharedOptions.validate]
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
