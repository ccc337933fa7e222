import Foundation
import GPUKit
import HostSupport
import ProResCore
import ProResFFmpeg
import ProResGPU

/// The one owner of a run's decoder: `--decoder auto|cpu|gpu` resolved for
/// the stream, the GPU decoder's device started before the stream is open,
/// a CPU decoder first while that device starts and the handover to the GPU
/// decoder after, the CPU decoder again when the GPU decoder cannot start,
/// and the decoder's name for the summary. The CPU decoder is ours, or
/// FFmpeg's for `--decoder ffmpeg`; `DecodeSessionFactory` makes the sessions.
///
/// The command line makes a plan first (`startingDevice`), opens the stream,
/// then `settle`s it; a `DecodeRun` resolves it for its stream and makes its
/// session through it.
///
/// Thread-safety: made, settled and resolved on one thread; a handover's
/// successor is made on the feeding thread, and the name is read after the
/// session finished (which orders the two).
public final class DecoderPlan: @unchecked Sendable {
    public private(set) var selection: DecoderSelection
    /// The device being made since the plan began, while no stream is known.
    private let earlyDevice: Deferred<GPUDevice?>?
    /// The stream's kernels being built once that device is there (`prepareKernels`).
    private(set) var earlyKernels: Deferred<Void>?
    private let readyTime = ReadyTime()
    /// Whether the early kernels may still begin building (`endDeviceStart`).
    private let kernelGate = KernelGate()
    /// The CPU decoder decodes first while this device starts (`HandoverSession`).
    package private(set) var deviceStarting: Deferred<GPUDevice?>?
    /// What decodes: set by `resolve`, after a handover by its successor.
    private var resolved: DecoderSelection.Resolved = .cpu(reason: nil, fellBack: false)
    /// With a handover, what decodes after it, once the device is there.
    private var handoverResolution: Deferred<DecoderSelection.Resolved>?

    /// "cpu" (ours), "ffmpeg", "gpu (device)", or "gpu (starting)" until a handover is decided.
    public private(set) var name = "cpu"
    /// Why `auto` chose the CPU.
    public private(set) var note: String?
    /// `auto` wanted the GPU decoder but it failed to start: worth telling.
    public private(set) var fellBack = false

    /// A plan for a run whose device, if any, is made when it is resolved,
    /// or is already `deviceStarting` (a handover).
    package init(selection: DecoderSelection, deviceStarting: Deferred<GPUDevice?>? = nil) {
        self.selection = selection
        self.deviceStarting = deviceStarting
        earlyDevice = nil
        name = selection.cpuDecoderName
    }

    /// Starts making the GPU decoder's device now, unless the choice is the
    /// CPU or there is no GPU to make one on: on a discrete GPU, instance and device creation are most of
    /// start-up, and they run while the stream opens. `made` gets the device
    /// on the thread that made it.
    public init(startingDeviceFor selection: DecoderSelection, made: @escaping @Sendable (GPUDevice) -> Void) {
        self.selection = selection
        name = selection.cpuDecoderName
        let ready = readyTime
        earlyDevice =
            selection.choice.isCPU || selection.cannotFindDevice
            ? nil
            : Deferred("prores-decode.device-setup") { () throws -> GPUDevice? in
                let device = try Trace.span("device made") {
                    selection.choice == .auto
                        ? selection.automaticDevices(limit: 1).devices.first : try selection.makeDevices(limit: 1).first
                }
                device.map(made)
                ready.mark()
                return device
            }
    }

    /// Whether a device is being made (the stream is then read ahead for it).
    public var startsDevice: Bool { earlyDevice != nil }
    /// When the early device was ready.
    public var deviceReadyAt: UInt64? { readyTime.at }
    /// The device the plan made or was given, once there.
    public var device: GPUDevice? { selection.shared ?? (try? earlyDevice?.get()) ?? nil }

    /// Once the stream is open: `auto` (the best decoder that works, frame
    /// by frame) decodes on the CPU while the device starts when
    /// `allowsHandover` (the run needs no device before its first frame),
    /// the GPU decoder can decode `format`, and the device is not ready yet.
    /// Otherwise the run waits for the device (`auto` without one then
    /// resolves again, to say why). `--decoder gpu` asks for the GPU decoder
    /// on every frame.
    public func settle(for format: FormatDescription, allowsHandover: Bool) throws {
        guard let earlyDevice else { return }
        if selection.choice == .auto, allowsHandover, GPUProResDecoder.unsupportedReason(format) == nil,
            !earlyDevice.isReady(waitingUpTo: 0)
        {
            deviceStarting = earlyDevice
        } else {
            selection.shared = try Trace.span("wait for device") { try earlyDevice.get() }
        }
    }

    /// Once the stream is open: the kernels its GPU decoder will ask for
    /// (and, `converting`, the conversion of its frames) are built as soon
    /// as the device is made, all at once, on threads of their own, while
    /// the run is set up; the session then finds them built, or waits for
    /// the one still building, instead of building them one after the
    /// other. Not where `auto` decodes on the CPU (no hardware device).
    /// `PRORES_DECODE_EARLY_KERNELS=0` leaves them to the session.
    public func prepareKernels(for format: FormatDescription, converting: Bool) {
        guard let earlyDevice, selection.tuning.earlyKernels else { return }
        let choice = selection.choice
        let gate = kernelGate
        earlyKernels = Deferred("prores-decode.kernels") {
            guard let device = try earlyDevice.get(), choice == .gpu || device.context.info.isHardware else { return }
            // A run that ended while the device was made needs no kernels.
            guard gate.begin() else { return }
            defer { gate.end() }
            Trace.span("kernels prepared") { device.prepareKernels(decoding: format, converting: converting) }
        }
    }

    /// The run is over and the process about to exit: a device still being
    /// made is left to the exit (nothing needs it, and its making touches
    /// nothing of the run's: no file, no output), while kernels being built
    /// are waited for, since they write the shader and pipeline caches.
    /// Kernels not begun yet never begin. Returns whether the device start
    /// was left running.
    public func endDeviceStart() -> Bool {
        if kernelGate.close() { _ = try? earlyKernels?.get() }
        guard let earlyDevice else { return false }
        return !earlyDevice.isReady(waitingUpTo: 0)
    }

    // MARK: - The run's side

    /// Decides the decoder for `format`: now, or, with a device starting,
    /// the CPU decoder until the device is there (`makeSession` hands over then).
    func resolve(for format: FormatDescription) throws {
        if deviceStarting != nil {
            resolved = .cpu(reason: nil, fellBack: false)
            name = "gpu (starting)"
            return
        }
        resolved = try selection.resolve(for: format)
        switch resolved {
        case .cpu(let reason, let fellBack): use(cpu: reason, fellBack: fellBack)
        case .gpu(let device): name = "gpu (\(device.context.info.name))"
        }
    }

    /// The CPU decoder's frames, as made, are the run's (no handover to wait for).
    var decodesOnCPUAlone: Bool {
        if deviceStarting != nil { return false }
        if case .cpu = resolved { return true }
        return false
    }

    /// The GPU decoder's device, when it decodes (or, before a handover, nil).
    var gpuDevice: GPUDevice? {
        if case .gpu(let device) = resolved { return device }
        return nil
    }

    /// Whether a handover's next decoder is known: the next sample goes to it.
    var handoverIsDue: Bool { handoverResolution?.isReady(waitingUpTo: 0) ?? false }

    /// The session that decodes `format`: the CPU decoder's, the GPU decoder's (a
    /// stream of `lanes` when given), or the CPU decoder's first and the one chosen
    /// when the device is there after it (returned as `handover` too).
    func makeSession(
        format: FormatDescription, threads: Int, configuration: GPUDecodeSession.Configuration, lanes: GPUDecodeLanes?,
        cpuPacking: PackedLayout? = nil, outputHandler: @escaping FrameOutputHandler,
        outputIdleHandler: OutputIdleHandler?
    )
        throws -> (session: FrameDecoding, handover: HandoverSession?)
    {
        if let starting = deviceStarting {
            // Half the cores: the other half makes the device, reads ahead
            // and parses (with all of them, the device comes ~20 ms later).
            let firstThreads = threads > 0 ? threads : max(1, ProcessInfo.processInfo.activeProcessorCount / 2)
            let selection = self.selection
            let first: HandoverSession.Maker = { handler, idle in
                try DecodeSessionFactory.cpu(
                    for: selection, format: format, threads: firstThreads, slicesOnly: true, packing: cpuPacking,
                    outputHandler: handler, outputIdleHandler: idle)
            }
            let resolution = Deferred("prores-decode.handover") { () throws -> DecoderSelection.Resolved in
                var resolving = selection
                resolving.shared = try starting.get()
                return try resolving.resolve(for: format)
            }
            handoverResolution = resolution
            let handover = try DecodeSessionFactory.handover(
                first: first,
                successor: { [self] in
                    guard resolution.isReady(waitingUpTo: 0) else { return nil }
                    let resolved = try resolution.get()
                    return { handler, idle in
                        try self.session(
                            resolved, format: format, threads: threads, configuration: configuration, lanes: nil,
                            cpuPacking: cpuPacking, handler, idle)
                    }
                }, outputHandler: outputHandler, outputIdleHandler: outputIdleHandler)
            return (handover, handover)
        }
        return (
            try session(
                resolved, format: format, threads: threads, configuration: configuration, lanes: lanes,
                cpuPacking: cpuPacking, outputHandler, outputIdleHandler), nil
        )
    }

    /// A stream that ended before the handover: the CPU decoded every frame,
    /// and why the GPU decoder did not. Never waits for the device: a short
    /// job ends, and its process exits, while the driver is still starting.
    func stayedOnCPU() {
        if let resolution = handoverResolution, resolution.isReady(waitingUpTo: 0),
            case .cpu(let reason, let fellBack)? = try? resolution.get()
        {
            use(cpu: reason, fellBack: fellBack)
        } else {
            use(cpu: "the stream ended before the GPU decoder's device was ready", fellBack: false)
        }
    }

    /// The run ended: the device goes with the session, even if the run lives on.
    func release() { resolved = .cpu(reason: nil, fellBack: false) }

    /// The session for a resolved decoder; `auto` falls back to the CPU when
    /// the GPU decoder cannot start (the best decoder that works).
    private func session(
        _ resolved: DecoderSelection.Resolved, format: FormatDescription, threads: Int,
        configuration: GPUDecodeSession.Configuration, lanes: GPUDecodeLanes?, cpuPacking: PackedLayout?,
        _ handler: @escaping FrameOutputHandler, _ idle: OutputIdleHandler?
    ) throws -> FrameDecoding {
        guard case .gpu(let device) = resolved else {
            if case .cpu(let reason, let fellBack) = resolved { use(cpu: reason, fellBack: fellBack) }
            return try DecodeSessionFactory.cpu(
                for: selection, format: format, threads: threads, packing: cpuPacking, outputHandler: handler,
                outputIdleHandler: idle)
        }
        do {
            let session = try Trace.span("session made") {
                try DecodeSessionFactory.gpu(
                    format: format, device: device, configuration: configuration, lanes: lanes,
                    outputHandler: handler, outputIdleHandler: idle)
            }
            self.resolved = .gpu(device)
            name = "gpu (\(device.context.info.name))"
            return session
        } catch  where selection.choice == .auto && !selection.requireHardware {
            use(cpu: "the GPU decoder could not start: \(error)", fellBack: true)
            return try DecodeSessionFactory.cpu(
                for: selection, format: format, threads: threads, packing: cpuPacking, outputHandler: handler,
                outputIdleHandler: idle)
        }
    }

    /// The CPU decoder's session for frames that claim a picture larger than they
    /// hold and than the device can hold: it rejects them one by one, as
    /// `--decoder cpu` does, instead of the whole file failing.
    func forgedPictureSession(
        _ why: String, format: FormatDescription, threads: Int, _ handler: @escaping FrameOutputHandler,
        _ idle: OutputIdleHandler?
    ) throws -> FrameDecoding {
        use(
            cpu: "the GPU decoder could not start (\(why)); the frames claim a picture larger than they hold",
            fellBack: true)
        return try DecodeSessionFactory.cpu(
            for: selection, format: format, threads: threads, outputHandler: handler, outputIdleHandler: idle)
    }

    private func use(cpu reason: String?, fellBack: Bool) {
        name = selection.cpuDecoderName
        note = reason
        self.fellBack = fellBack
    }

}

/// When the early device was ready (the JSON summary's `device_ready`),
/// marked on the thread that made it.
private final class ReadyTime: @unchecked Sendable {
    // @unchecked: `time` is touched only under `lock`.
    private let lock = NSLock()
    private var time: UInt64?

    func mark() { lock.withLock { time = monotonicNanoseconds() } }

    var at: UInt64? { lock.withLock { time } }
}

/// Whether the early kernels may begin building: closed once the run is
/// over, so that a device made after it builds nothing; a build under way
/// when it closes is waited for.
private final class KernelGate: @unchecked Sendable {
    // @unchecked: both fields are touched only under `lock`.
    private let lock = NSLock()
    private var closed = false
    private var building = false

    /// False once closed: the kernels are not built.
    func begin() -> Bool {
        lock.withLock {
            building = !closed
            return building
        }
    }

    func end() { lock.withLock { building = false } }

    /// Closes the gate; true when a build is under way (the caller waits for it).
    func close() -> Bool {
        lock.withLock {
            closed = true
            return building
        }
    }
}
