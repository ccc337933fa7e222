import HostSupport

/// Why no hardware device can run the GPU decoder, as data (see `BadRequest`
/// for why: the CLI words some cases with its own options).
public enum HardwareShortfall: Equatable, Sendable {
    /// The chosen device is a software one (lavapipe): the GPU decoder
    /// would run on it if asked for explicitly, but it is not hardware.
    case softwareDevice(name: String, kind: String)
    /// The device selector matched none of the devices `candidates`
    /// ("INDEX: NAME" each).
    case noMatchingDevice(selector: String, candidates: [String])
    /// Anything else, in words that need no front-end vocabulary.
    case message(String)

    public var description: String {
        switch self {
        case .softwareDevice(let name, let kind):
            return "\(name) is a \(kind) device, not hardware; choose the GPU decoder explicitly to run it there anyway"
        case .noMatchingDevice(let selector, let candidates):
            return "no usable Vulkan device: " + Self.noMatchWords(selector: selector, candidates: candidates)
        case .message(let text): return text
        }
    }

    /// Shared with `VulkanError.noMatchingDevice`, so both read alike.
    public static func noMatchWords(selector: String, candidates: [String]) -> String {
        DeviceSelectorWords.noMatch(selector: selector, candidates: candidates)
    }
}
