import GPUKit
import ProResCheck
import ProResCore
import ProResDisplay
import ProResPipeline

/// The CLI's words for an error: the library describes problems as data in
/// words that name no option; here the cases that concern a command-line
/// option are worded with its name (`--start`, `--track`…). Every message
/// the CLI printed before the library errors became data is kept exactly,
/// because scripts and tests read them.
enum ErrorWords {
    static func render(_ error: Error) -> String {
        switch error {
        case let error as ProResDecodeError: return render(error)
        case let error as VulkanError: return render(error)
        case let error as ExpectRule.ParseError: return render(error)
        case DisplayError.noDisplay(let why): return "play: no display: \(why)"
        case DisplayError.lost(let why): return "play: the display went away: \(why)"
        default: return "\(error)"
        }
    }

    static func render(_ error: ProResDecodeError) -> String {
        switch error {
        case .badRequest(let request): return render(request)
        case .hardwareUnavailable(let shortfall): return "no hardware decoder: " + render(shortfall)
        case .outputExists(let path): return "cannot write '\(path)': already exists (pass --overwrite to replace it)"
        case .previewDirectory(let path, let reason): return "cannot write '\(path)': --previews: \(reason)"
        default: return error.description
        }
    }

    static func render(_ request: BadRequest) -> String {
        switch request {
        case .startPastEnd(let start, let frames, let container):
            return "--start \(start) is past the last frame (the \(container.rawValue) has \(frames) frames)"
        case .noFrame(let at): return "--start \(at): the input has no frame \(at)"
        case .noSuchTrack(let requested, let path, let streams, let summary):
            return "--track \(requested): '\(path)' has \(streams) stream(s) (\(summary))"
        case .elementaryStreamHasOneTrack(let requested):
            return "--track \(requested): a raw ProRes elementary stream has only track 0"
        case .invalidEffect(let spec, let why): return "invalid --effect '\(spec)': \(why)"
        case .conversionNeedsPackedLayout:
            return "--vulkan converts y416 or v216 surfaces; --format native is the decoder's planar output"
        case .saveNeedsConversion: return "--save needs --vulkan (frames are saved as converted on the GPU)"
        case .noFrames, .message: return request.description
        }
    }

    static func render(_ shortfall: HardwareShortfall) -> String {
        switch shortfall {
        case .softwareDevice(let name, let kind):
            return
                "\(name) is a \(kind) device, not hardware; drop --require-hardware to run the GPU decoder on it anyway"
        case .noMatchingDevice(let selector, let candidates):
            return "no usable Vulkan device: "
                + VulkanError.noMatchingDevice(selector: selector, candidates: candidates).cliWords
        case .message: return shortfall.description
        }
    }

    static func render(_ error: VulkanError) -> String {
        if case .noMatchingDevice = error { return "no usable Vulkan device: " + error.cliWords }
        return error.description
    }

    static func render(_ error: ExpectRule.ParseError) -> String {
        switch error {
        case .emptyRuleInList(let list): return "--expect '\(list)': empty rule (a doubled or trailing comma?)"
        case .invalidRule(let rule, let why): return "--expect rule '\(rule)': \(why)"
        }
    }
}

extension VulkanError {
    /// The reason part of `noMatchingDevice`, naming `--device`.
    fileprivate var cliWords: String {
        guard case .noMatchingDevice(let selector, let candidates) = self else { return description }
        return "--device \(selector) matches none of: " + candidates.joined(separator: ", ")
    }
}
