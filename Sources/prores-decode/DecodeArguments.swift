import GPUKit
import Glibc
import ProResCheck
import ProResCore
import ProResFFmpeg
import ProResGPU
import ProResOptions
import ProResPipeline

/// `prores-decode INPUT [options]` read from the command line: each value
/// checked on its own, then every rule between options in `validate()`.
struct DecodeArguments: CommandArguments {
    let input: String
    let output: OutputSelection?
    let rawPath: String?
    /// `--container`, when given; otherwise `-o`'s extension decides (`container`).
    let forcedContainer: OutputContainer?
    let md5Path: String?
    let hashPath: String?
    let timingPath: String?
    /// `--phases`: where the phase report goes at exit.
    let phasesPath: String?
    let json: Bool
    /// `--start` and `--frames` as given; frames once the input's rate and
    /// time code are known (`start(for:)`, `frames(for:)`).
    let startPosition: FramePosition
    let framesPosition: FramePosition?
    let threads: Int
    let track: Int?
    let overwrite: Bool
    /// `-n`: today's default made explicit, so it can contradict `-y`.
    let noOverwrite: Bool
    let quiet: Bool
    let verbose: Bool
    let decoderChoice: DecoderSelection.Choice?
    let requireHardware: Bool
    let noHardware: Bool
    /// `--no-cpu-start`: `auto`'s first frame waits for the GPU decoder's device.
    let noCPUStart: Bool
    let vulkanFlag: Bool
    let device: String?
    let referenceWhite: Double?
    let savePath: String?
    let saveFormat: FrameSaver.Format?
    let validationFlag: Bool
    let playback: PlaybackArguments
    /// `--audio none`: -o carries no sound, and says nothing of it.
    let dropsAudio: Bool
    private let parsedAudio: Bool
    /// `--assume-primaries/-transfer/-matrix`: H.273 codes for untagged colour.
    let assumed: (primaries: Int?, transfer: Int?, matrix: Int?)

    init(_ parsed: ParsedArguments) throws {
        typealias Options = DecodeCommand.Options
        input = try parsed.input(SharedOptions.input)
        output = try parsed[Options.format]
        rawPath = try parsed[Options.output]
        forcedContainer = try parsed[Options.container]
        parsedAudio = parsed.gives(Options.audio)
        dropsAudio = try parsed[Options.audio] == .drop
        md5Path = try parsed[Options.frameMD5]
        hashPath = try parsed[Options.frameHash]
        timingPath = try parsed[Options.timing]
        phasesPath = try parsed[Options.phases]
        json = parsed[Options.json]
        startPosition = try parsed[SharedOptions.start] ?? .frame(0)
        framesPosition = try parsed[SharedOptions.frames]
        threads = try parsed[SharedOptions.threads] ?? 0
        track = try parsed[SharedOptions.track]
        overwrite = parsed[SharedOptions.overwrite]
        noOverwrite = parsed[SharedOptions.noOverwrite]
        quiet = parsed[SharedOptions.quiet]
        verbose = parsed[Options.verbose]
        decoderChoice = try parsed[SharedOptions.decoder]
        requireHardware = parsed[SharedOptions.requireHardware]
        noHardware = parsed[Options.noHardware]
        noCPUStart = parsed[Options.noCPUStart]
        vulkanFlag = parsed[Options.vulkan]
        device = try parsed[SharedOptions.device]
        savePath = try parsed[Options.save]
        saveFormat = try parsed[Options.saveFormat]
        referenceWhite = try parsed[Options.referenceWhite]
        validationFlag = parsed[Options.validate]
        playback = try PlaybackArguments(parsed)
        assumed = (
            try parsed[Options.assumePrimaries], try parsed[Options.assumeTransfer], try parsed[Options.assumeMatrix]
        )
    }

    func validate() throws {
        // An empty name is a mistake (an unset shell variable), not "here":
        // taken as a folder, `--save ""` would fill the current one with frames.
        for (option, path) in [
            ("--save", savePath), ("-o", rawPath), ("--framemd5", md5Path), ("--timing", timingPath),
            ("--phases", phasesPath),
        ] where path == "" {
            throw UsageError("\(option) needs a \(option == "--save" ? "directory" : "file") name, not an empty string")
        }
        if forcedContainer != nil && rawPath == nil { throw UsageError("--container needs -o PATH") }
        if parsedAudio && rawPath == nil { throw UsageError("--audio needs -o PATH") }
        if overwrite && noOverwrite { throw UsageError("-y/--overwrite and -n/--no-overwrite contradict each other") }
        if saveFormat != nil && savePath == nil { throw UsageError("--save-format needs --save DIR") }
        if requireHardware && noHardware {
            throw UsageError("--require-hardware and --no-hardware contradict each other")
        }
        if requireHardware, let decoderChoice, decoderChoice != .gpu {
            throw UsageError("--require-hardware needs the GPU decoder, not --decoder \(decoderChoice.rawValue)")
        }
        if noHardware && decoderChoice == .gpu { throw UsageError("--no-hardware contradicts --decoder gpu") }
        if noCPUStart && decoder.choice.isCPU { throw UsageError("--no-cpu-start needs --decoder auto or gpu") }
        if !useVulkan {
            if referenceWhite != nil { throw UsageError("--reference-white needs --vulkan") }
            if decoder.choice.isCPU {
                for (option, given) in [("--device", device != nil), ("--validate", validationFlag)] where given {
                    throw UsageError("\(option) needs --vulkan or the GPU decoder")
                }
            }
        }
        try playback.validate(vulkan: useVulkan)
        try SharedOptions.checkSingleDevice(device)
        if stdoutUsers.count > 1 {
            throw UsageError("\(stdoutUsers.joined(separator: " and ")) cannot both write to stdout")
        }
    }

    func files() -> CommandFiles {
        var files = CommandFiles()
        files.input("the input", input)
        for path in playback.lutPaths { files.input("--effect lut:", path) }
        for (option, path) in [
            ("-o", rawPath), ("--framemd5", md5Path), ("--framehash", hashPath), ("--timing", timingPath),
            ("--phases", phasesPath), ("--save", savePath),
        ] {
            files.output(option, path)
        }
        let format = saveFormat ?? .exr
        files.folder("--save", savePath) { FrameSaver.isFrameFileName($0, format: format) }
        return files
    }

    /// What `-o` is wrapped in: `--container`, else by `-o`'s extension.
    var container: OutputContainer { forcedContainer ?? rawPath.map(OutputContainer.init(path:)) ?? .raw }

    /// --save reads converted frames back from the GPU, so it implies --vulkan.
    var useVulkan: Bool { vulkanFlag || savePath != nil }

    /// --validate, or PRORES_DECODE_VALIDATION=1 in the environment.
    var validation: Bool { validationFlag || ProcessSettings.tuning.validation != .off }

    var decoder: DecoderSelection {
        DecoderSelection(
            choice: noHardware ? .cpu : decoderChoice ?? .auto, requireHardware: requireHardware,
            device: device, validation: validation, tuning: ProcessSettings.tuning)
    }

    /// The outputs that write to stdout, by the option that names them.
    var stdoutUsers: [String] {
        [
            ("-o", rawPath), ("--framemd5", md5Path), ("--framehash", hashPath), ("--timing", timingPath),
            ("--phases", phasesPath),
        ]
        .filter { $0.1 == "-" }.map(\.0)
    }

    func start(for format: FormatDescription) throws -> Int { try FramePosition.start(startPosition, format) }
    func frames(for format: FormatDescription) throws -> Int? { try FramePosition.frames(framesPosition, format) }
}
