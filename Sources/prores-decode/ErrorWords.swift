import ProResCore
import GPUKit
import ProResPipeline
import ProResDisplay
import ProResCheck

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
        case let DisplayError.noDisplay(why): return "play: no display: \(why)"
        case let DisplayError.lost(why): return "play: the display went away: \(why)"
        default: return "\(error)"
        }
    }

    static func render(_ error: ProResDecodeError) -> String {
        switch error {
        case let .badRequest(request): return render(request)
        case let .hardwareUnavailable(shortfall): return "no hardware decoder: " + render(shortfall)
        case let .outputExists(path): return "cannot write '\(path)': already exists (pass --overwrite to replace it)"
        case let .previewDirectory(path, reason): return "cannot write '\(path)': --previews: \(reason)"
        default: return error.description
        }
    }

    static func render(_ request: BadRequest) -> String {
        switch request {
        case let .startPastEnd(start, frames, container):
            return "--start \(start) is past the last frame (the \(container.rawValue) has \(frames) frames)"
        case let .noFrame(at): return "--start \(at): the input has no frame \(at)"
        case let .noSuchTrack(requested, path, streams, summary):
            return "--track \(requested): '\(path)' has \(streams) stream(s) (\(summary))"
        case let .elementaryStreamHasOneTrack(requested):
            return "--track \(requested): a raw ProRes elementary stream has only track 0"
        case let .invalidEffect(spec, why): return "invalid --effect '\(spec)': \(why)"
        case .conversionNeedsPackedLayout:
            return "--vulkan converts y416 or v216 surfaces; --format native is the decoder's planar output"
        case .saveNeedsConversion: return "--save needs --vulkan (frames are saved as converted on the GPU)"
        case .noFrames, .message: return request.description
        }
    }

    static func render(_ shortfall: HardwareShortfall) -> String {
        switch shortfall {
        case let .softwareDevice(name, kind):
            return "\(name) is a \(kind) device, not hardware; drop --require-hardware to run the GPU decoder on it anyway"
        case let .noMatchingDevice(selector, candidates):
            return "no usable Vulkan device: " + VulkanError.noMatchingDevice(selector: selector, candidates: candidates).cliWords
        case .message: return shortfall.description
        }
    }

    static func render(_ error: VulkanError) -> String {
        if case .noMatchingDevice = error { return "no usable Vulkan device: " + error.cliWords }
        return error.description
    }

    static func render(_ error: ExpectRule.ParseError) -> String {
        switch error {
        case let .emptyRuleInList(list): return "--expect '\(list)': empty rule (a doubled or trailing comma?)"
        case let .invalidRule(rule, why): return "--expect rule '\(rule)': \(why)"
        }
    }
}

private extension VulkanError {
    /// The reason part of `noMatchingDevice`, naming `--device`.
    var cliWords: String {
        guard case let .noMatchingDevice(selector, candidates) = self else { return description }
        return "--device \(selector) matches none of: " + candidates.joined(separator: ", ")
    }
}
