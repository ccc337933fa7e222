import Foundation
import GPUKit
import HostSupport
import ProResCore
import ProResGPU

/// Which decoder a run uses (VideoToolbox's decoder specification):
/// `--decoder cpu|ffmpeg|gpu|auto`, `--require-hardware`, `--no-hardware`,
/// and the one owner of what they mean: the devices made for it, the
/// decoder resolved for a stream (`DecoderPlan` holds a run's resolution,
/// `DecodeSessionFactory` makes its sessions), for `decode`, `check`,
/// `play` and `bench` alike.
public struct DecoderSelection: Sendable, Equatable {
    public enum Choice: String, Sendable, CaseIterable {
        /// Our CPU decoder (ProResCPU).
        case cpu
        /// FFmpeg's libavcodec on the CPU: the reference, and a fallback.
        case ffmpeg
        /// Our Vulkan compute decoder, on any Vulkan device (lavapipe too).
        case gpu
        /// The GPU decoder on a hardware GPU, else our CPU decoder.
        case auto

        /// A decoder that runs on the CPU alone, needing no device.
        public var isCPU: Bool { self == .cpu || self == .ffmpeg }
    }

    public var choice: Choice
    /// Fail (rather than fall back) unless a hardware GPU decodes.
    public var requireHardware: Bool
    /// `--device N|NAME`.
    public var device: String?
    public var validation: Bool
    /// The command line's settings, for the devices made here and the
    /// sessions a run makes (the GPU decoder's batch, slots and
    /// timestamps, the early kernels, the read-ahead).
    public var tuning: Tuning
    /// A device already made (and shared by several runs): used instead of
    /// making one from `device`.
    public var shared: GPUDevice?
    /// That device's lanes, when consecutive runs share one decode pipeline
    /// (`check`): a GPU run without a GPU stage joins the lane of its kind
    /// as a stream instead of making a session of its own.
    package var lanes: GPUDecodeLanes?

    public init(
        choice: Choice = .auto, requireHardware: Bool = false, device: String? = nil,
        validation: Bool? = nil, shared: GPUDevice? = nil, tuning: Tuning = .defaults
    ) {
        self.choice = requireHardware ? .gpu : choice
        self.requireHardware = requireHardware
        self.device = device
        self.validation = validation ?? (tuning.validation != .off)
        self.shared = shared
        self.tuning = tuning
    }

    /// The decoder chosen for `format`: the CPU (with why, when `auto`
    /// passed over the GPU; `fellBack` when it wanted the GPU decoder but
    /// could not start it), or the device for the GPU decoder. Which CPU
    /// decoder: FFmpeg's for `.ffmpeg`, ours otherwise (`usesFFmpeg`).
    public enum Resolved {
        case cpu(reason: String?, fellBack: Bool)
        case gpu(GPUDevice)
    }

    /// Whether a run that decodes on the CPU uses FFmpeg's decoder rather than ours.
    public var usesFFmpeg: Bool { choice == .ffmpeg }

    /// The name a run's report gives the CPU decoder it used.
    package var cpuDecoderName: String { usesFFmpeg ? "ffmpeg" : "cpu" }

    /// `play`'s selection: the window's device decodes too, unless the
    /// choice is a CPU decoder.
    public static func presenting(
        on device: GPUDevice, choice: Choice, selector: String?, validation: Bool
    ) -> DecoderSelection {
        DecoderSelection(
            choice: choice, device: selector, validation: validation, shared: choice.isCPU ? nil : device,
            tuning: device.context.tuning)
    }

    /// `auto` with one device (no list, not `all`): the CPU decoder may
    /// decode the first frames while that device starts.
    public var handsOverWhileDeviceStarts: Bool {
        choice == .auto && device != Self.allDevices && Self.deviceList(device) == nil
    }

    /// `auto` on a machine with no GPU device node: no hardware Vulkan
    /// device can exist, so nothing is started, and our CPU decoder decodes
    /// (`automaticDevices` says why).
    public var cannotFindDevice: Bool { choice == .auto && !GPUDeviceNodes.present() }

    /// `--device all`: every hardware GPU of the machine.
    public static let allDevices = "all"

    /// `--device 0,1` (`check`, `bench`): several selectors, each an index
    /// or part of a name; nil for one selector or `all`.
    public static func deviceList(_ device: String?) -> [String]? {
        guard let device, device.contains(",") else { return nil }
        return device.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }

    public func resolve(for format: FormatDescription) throws -> Resolved {
        if !choice.isCPU, let reason = GPUProResDecoder.unsupportedReason(format) {
            guard choice == .gpu else { return .cpu(reason: "the GPU decoder cannot: \(reason)", fellBack: false) }
            let message = "the GPU decoder cannot decode this stream: \(reason)"
            throw requireHardware
                ? ProResDecodeError.hardwareUnavailable(.message(message))
                : ProResDecodeError.decoderUnavailable(message)
        }
        if let shared, !choice.isCPU {
            let info = shared.context.info
            if info.isHardware || choice == .gpu { return .gpu(shared) }
            return .cpu(reason: "no hardware Vulkan device (\(info.name))", fellBack: false)
        }
        if choice == .auto {
            let found = automaticDevices(limit: 1)
            return found.devices.first.map(Resolved.gpu) ?? .cpu(reason: found.reason, fellBack: found.fellBack)
        }
        return try makeDevices(limit: 1).first.map(Resolved.gpu) ?? .cpu(reason: nil, fellBack: false)
    }

    /// The devices this selection decodes on, made now, whatever the
    /// stream: one, each of a list in its order, or with `--device all`
    /// every hardware GPU (for `--decoder gpu` on a machine without one, the
    /// default device). Empty when it decodes on the CPU.
    public func makeDevices(limit: Int = .max) throws -> [GPUDevice] {
        switch choice {
        case .cpu, .ffmpeg:
            return []
        case .gpu:
            var selectors: [String?] = Self.deviceList(device) ?? [device == Self.allDevices ? nil : device]
            if device == Self.allDevices {
                let hardware = ((try? VulkanContext.devices()) ?? []).filter(\.isHardware)
                if !hardware.isEmpty { selectors = hardware.prefix(limit).map { "\($0.index)" } }
            }
            return try selectors.map(makeRequired)
        case .auto:
            return automaticDevices(limit: limit).devices
        }
    }

    /// Every device this selection decodes on, made now, and, for `auto`
    /// with none, why not (`check`'s devices).
    public func devicesWithReason() throws -> (devices: [GPUDevice], reason: String?) {
        guard choice == .auto else { return (try makeDevices(), nil) }
        let found = automaticDevices()
        return (found.devices, found.reason)
    }

    /// `auto`'s devices: the hardware GPUs (the first, or all), each that
    /// starts; when none does, why not, and whether one was there but failed.
    public func automaticDevices(limit: Int = .max) -> (devices: [GPUDevice], reason: String?, fellBack: Bool) {
        guard !cannotFindDevice else {
            return ([], "no hardware Vulkan device (no GPU device node: \(GPUDeviceNodes.described))", false)
        }
        // One device wanted: chosen and made in one Vulkan instance.
        if device != Self.allDevices && Self.deviceList(device) == nil {
            do {
                var options = VulkanContext.Options(device: device, validation: validation, tuning: tuning)
                options.hardwareOnly = true
                let context = try VulkanContext(options: options)
                return ([try GPUDevice(context: context)], nil, false)
            } catch let VulkanError.noHardwareDevice(names) {
                return ([], VulkanError.noHardwareDevice(names).description, false)
            } catch VulkanError.loaderMissing {
                return ([], "no Vulkan loader or driver", false)
            } catch {
                // `auto` means the best decoder that works: the CPU when the GPU cannot start.
                return ([], "the GPU decoder could not start: \(error)", true)
            }
        }
        // Listing devices needs only an instance: cheap enough for every run.
        guard let devices = try? VulkanContext.devices() else { return ([], "no Vulkan loader or driver", false) }
        let wanted = Self.deviceList(device)
        let hardware = devices.filter { info in
            info.isHardware
                && (device == nil || device == Self.allDevices || (wanted ?? [device!]).contains { info.matches($0) })
        }
        guard !hardware.isEmpty else {
            return ([], "no hardware Vulkan device (\(devices.map(\.name).joined(separator: ", ")))", false)
        }
        var made: [GPUDevice] = []
        var firstError: Error?
        for info in (device == Self.allDevices || wanted != nil ? hardware : [hardware[0]]).prefix(limit) {
            do {
                made.append(
                    try GPUDevice(
                        context: VulkanContext(
                            options: .init(device: "\(info.index)", validation: validation, tuning: tuning))))
            } catch {
                firstError = firstError ?? error
            }
        }
        // `auto` means the best decoder that works: the CPU when the GPU cannot start.
        if made.isEmpty { return ([], "the GPU decoder could not start: \(firstError!)", true) }
        return (made, nil, false)
    }

    /// The device `selector` names, or the default one, with `--require-hardware` enforced.
    private func makeRequired(_ selector: String?) throws -> GPUDevice {
        let made: GPUDevice
        do {
            made = try GPUDevice(
                context: VulkanContext(options: .init(device: selector, validation: validation, tuning: tuning)))
        } catch {
            if requireHardware {
                // Keep the selector data: the CLI words it with its option name.
                if case VulkanError.noMatchingDevice(let selector, let candidates) = error {
                    throw ProResDecodeError.hardwareUnavailable(
                        .noMatchingDevice(selector: selector, candidates: candidates))
                }
                throw ProResDecodeError.hardwareUnavailable(.message("no usable Vulkan device: \(error)"))
            }
            throw error
        }
        let info = made.context.info
        if requireHardware && !info.isHardware {
            throw ProResDecodeError.hardwareUnavailable(.softwareDevice(name: info.name, kind: info.kind.rawValue))
        }
        return made
    }
}
