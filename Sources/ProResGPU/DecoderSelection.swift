import Foundation
import ProResCore
import GPUKit

/// Which decoder a run uses (VideoToolbox's decoder specification):
/// `--decoder cpu|gpu|auto`, `--require-hardware`, `--no-hardware`.
public struct DecoderSelection: Sendable, Equatable {
    public enum Choice: String, Sendable, CaseIterable {
        /// FFmpeg's libavcodec on the CPU.
        case cpu
        /// Our Vulkan compute decoder, on any Vulkan device (lavapipe too).
        case gpu
        /// The GPU decoder on a hardware GPU, else the CPU.
        case auto
    }

    public var choice: Choice
    /// Fail (rather than fall back) unless a hardware GPU decodes.
    public var requireHardware: Bool
    /// `--device N|NAME`.
    public var device: String?
    public var validation: Bool

    public init(choice: Choice = .auto, requireHardware: Bool = false, device: String? = nil,
                validation: Bool = VulkanContext.Options().validation) {
        self.choice = requireHardware ? .gpu : choice
        self.requireHardware = requireHardware
        self.device = device
        self.validation = validation
    }

    /// The decoder chosen for `format`: the CPU (with why, when `auto`
    /// passed over the GPU; `fellBack` when it wanted the GPU decoder but
    /// could not start it), or a Vulkan context for the GPU decoder.
    public enum Resolved {
        case cpu(reason: String?, fellBack: Bool)
        case gpu(VulkanContext)
    }

    public func resolve(for format: FormatDescription) throws -> Resolved {
        switch choice {
        case .cpu:
            return .cpu(reason: nil, fellBack: false)
        case .gpu:
            if let reason = GPUProResDecoder.unsupportedReason(format) {
                let message = "the GPU decoder cannot decode this stream: \(reason)"
                throw requireHardware ? ProResDecodeError.hardwareUnavailable(.message(message)) : ProResDecodeError.decoderUnavailable(message)
            }
            let context: VulkanContext
            do {
                context = try VulkanContext(options: .init(device: device, validation: validation))
            } catch {
                if requireHardware {
                    // Keep the selector data: the CLI words it with its option name.
                    if case let VulkanError.noMatchingDevice(selector, candidates) = error {
                        throw ProResDecodeError.hardwareUnavailable(.noMatchingDevice(selector: selector, candidates: candidates))
                    }
                    throw ProResDecodeError.hardwareUnavailable(.message("no usable Vulkan device: \(error)"))
                }
                throw error
            }
            if requireHardware && !context.info.isHardware {
                throw ProResDecodeError.hardwareUnavailable(.softwareDevice(name: context.info.name, kind: context.info.kind.rawValue))
            }
            return .gpu(context)
        case .auto:
            if let reason = GPUProResDecoder.unsupportedReason(format) { return .cpu(reason: "the GPU decoder cannot: \(reason)", fellBack: false) }
            // Listing devices needs only an instance: cheap enough for every run.
            guard let devices = try? VulkanContext.devices() else { return .cpu(reason: "no Vulkan loader or driver", fellBack: false) }
            let candidates = device == nil ? devices : devices.filter { $0.matches(device!) }
            guard candidates.contains(where: \.isHardware) else {
                return .cpu(reason: "no hardware Vulkan device (\(devices.map(\.name).joined(separator: ", ")))", fellBack: false)
            }
            do {
                return .gpu(try VulkanContext(options: .init(device: device ?? "\(candidates.first(where: \.isHardware)!.index)",
                                                             validation: validation)))
            } catch {
                return .cpu(reason: "the GPU decoder could not start: \(error)", fellBack: true)
            }
        }
    }
}
