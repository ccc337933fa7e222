import Foundation
import GPUKit
import HostSupport
import ProResCore
import ProResFFmpeg
import ProResGPU

/// Checks a list of files, `jobs` at a time, and hands back the results in
/// list order whatever the order they finish in.
///
/// Why at most `jobs` files open at once: each worker thread takes the next
/// file only when done with its last, so memory and descriptors stay bounded
/// by `jobs`. Each file's decoder gets max(1, cores / jobs) threads.
///
/// On the GPU decoder the devices are made once, before any file, and
/// worker w decodes on device w mod N for the whole batch: every file on a
/// device shares its context and compiled kernels. With one file at a time
/// a device (the default), consecutive files share its decode session too
/// (`DeviceFeed`, `GPUDecodeLanes`): two threads take turns, the next
/// file's samples queued right behind the last one's, whose frames are
/// still on the GPU and being measured.
public final class BatchCheck: @unchecked Sendable {
    public let inputs: [CheckInput]
    public let options: CheckOptions
    /// Called with each final result, in list order, on a worker thread.
    public var onResult: ((FileCheckResult) -> Void)?

    private let lock = NSLock()
    private var results: [FileCheckResult?]
    private var final: [Bool]
    private var next = 0
    /// The device each file was checked on (nil: the CPU decoder).
    private var devicesUsed: [GPUDevice?]
    private var delivered = 0
    private let deliveryLock = NSLock()
    private var active: [ObjectIdentifier: CheckCancellation] = [:]
    /// Every file's cancellation since the last `waitForStoppedRuns`.
    private var started: [CheckCancellation] = []
    private var interrupted = false

    public init(inputs: [CheckInput], options: CheckOptions) {
        self.inputs = inputs
        self.options = options
        results = Array(repeating: nil, count: inputs.count)
        final = Array(repeating: false, count: inputs.count)
        devicesUsed = Array(repeating: nil, count: inputs.count)
    }

    /// The devices the GPU decoder runs on (empty: the CPU decoder), made by `run()`.
    public private(set) var devices: [GPUDevice] = []
    /// Why `--decoder auto` chose the CPU decoder.
    public private(set) var decoderNote: String?
    /// The first file, opened and reading while the devices are made (~0.17 s
    /// on the H200, every file waiting); taken by the one worker, whichever
    /// decoder `--decoder auto` ends up with, so a CPU run reads it once.
    private var firstOpened: Deferred<SampleSource>?
    /// The file `firstOpened` holds.
    private var firstOpenedIndex = 0
    /// `--decoder auto` with one device and one file at a time: the device
    /// being made while the first file is checked, on the CPU decoder
    /// until the device is there, on the GPU decoder after (`HandoverSession`).
    private var devicesStarting: Deferred<(devices: [GPUDevice], reason: String?)>?
    /// Tests: makes `auto`'s devices instead of `automaticDevices` (lavapipe, as if hardware).
    package var automaticDeviceMaker: (@Sendable () -> (devices: [GPUDevice], reason: String?))?

    /// Files in flight: `--jobs`, else 1, or one per device on the GPU (two
    /// with `--previews`). Why not more on one device: each GPU file already
    /// parses and stages on every core, and on the H200 20 4K files take
    /// 0.95 s in a run with one at a time, 1.23 s with two, 1.78 s with 4.
    /// Previews are drawn and compressed on the CPU, one file's while the
    /// next decodes: 25.8 s with two at once, 48.1 with one.
    public var jobs: Int {
        options.jobs > 0 ? options.jobs : max(1, devices.count) * (options.previews != nil && !devices.isEmpty ? 2 : 1)
    }

    public var threadsPerFile: Int {
        options.threadsPerFile > 0
            ? options.threadsPerFile : max(1, ProcessInfo.processInfo.activeProcessorCount / max(1, jobs))
    }

    /// What decodes: "cpu" (ours), "ffmpeg", or the GPU decoder and its devices.
    public var decoderDescription: String {
        devices.isEmpty
            ? options.decoder.cpuDecoderName : "gpu (" + devices.map(\.context.info.name).joined(separator: ", ") + ")"
    }

    /// Stops every file being checked and starts no more; `run()` then
    /// throws `.interrupted`.
    public func cancel() {
        lock.lock()
        interrupted = true
        let running = Array(active.values)
        lock.unlock()
        for cancellation in running { cancellation.stop(.interrupted) }
    }

    /// Whether the first file is checked while `auto`'s device is made:
    /// one device (no list, not `all`), one file at a time, no previews
    /// (they need the device before the first frame).
    private var handsOverFirstFile: Bool {
        options.decoder.handsOverWhileDeviceStarts && options.jobs <= 1 && options.previews == nil
            && !inputs.isEmpty
    }

    /// Makes the decoder's devices (unless `run()` already did); throws what
    /// `--decoder gpu` / `--require-hardware` cannot have. `auto`'s one
    /// device is only started, unless `waitingForThem` (the first file is
    /// checked meanwhile); `run()` takes it after that file.
    public func prepareDevices(waitingForThem: Bool = false) throws {
        guard devices.isEmpty, !options.decoder.choice.isCPU, !inputs.isEmpty else { return }
        // As with `--decoder cpu` (no file opened ahead for a device), and the note says why.
        if options.decoder.cannotFindDevice && automaticDeviceMaker == nil {
            decoderNote = try options.decoder.devicesWithReason().reason
            return
        }
        // Several workers take files in any order: none waits for file 0 in particular.
        if firstOpened == nil, options.jobs <= 1 { firstOpened = openAhead(0) }
        if options.decoder.choice == .auto {
            let selection = options.decoder
            let maker = automaticDeviceMaker
            let starting =
                devicesStarting
                ?? Deferred("prores-decode.device-setup") { () -> (devices: [GPUDevice], reason: String?) in
                    return Trace.span("device made") { () -> (devices: [GPUDevice], reason: String?) in
                        if let maker { return maker() }
                        return (try? selection.devicesWithReason()) ?? ([], nil)
                    }
                }
            guard waitingForThem || !handsOverFirstFile else {
                devicesStarting = starting
                return
            }
            devicesStarting = nil
            let found = (try? starting.get()) ?? (devices: [], reason: nil)
            devices = found.devices
            decoderNote = found.reason
        } else {
            devices = try options.decoder.makeDevices()
        }
    }

    public func run() throws -> [FileCheckResult] {
        try prepareDevices()
        if let starting = devicesStarting {
            devicesStarting = nil
            try checkFirstFile(whileStarting: starting)
            if isInterrupted { throw ProResDecodeError.interrupted }
            // A batch of one file ends without waiting for the device.
            if inputs.count == 1 && !starting.isReady(waitingUpTo: 0) { return finishedResults() }
            let found = (try? starting.get()) ?? (devices: [], reason: nil)
            devices = found.devices
            decoderNote = found.reason
            if inputs.count == 1 { return finishedResults() }
        }
        let workers = max(1, min(jobs, inputs.count))
        let sharesSessions = sharesDecodeSessions(workers: workers)
        let group = DispatchGroup()
        var feeds: [DeviceFeed] = []
        for worker in 0..<workers {
            let feed = DeviceFeed(
                device: devices.isEmpty ? nil : devices[worker % devices.count], sharesSession: sharesSessions)
            feed.lanes?.streamOpened = sharedStreamOpened
            feeds.append(feed)
            // One file at a time on a device: the next one opens and starts
            // reading while this one decodes.
            let opensAhead = feed.device != nil && workers == 1
            if workers == 1, let first = firstOpened { feed.ahead = (firstOpenedIndex, first) }
            // With a shared session, a second thread feeds the next file
            // while the first one's is still on the device.
            for _ in 0..<(feed.lanes == nil ? 1 : 2) {
                group.enter()
                startWorkerThread(
                    "prores-decode.check", stackSize: 8 << 20, { [self] in work(feed, opensAhead: opensAhead) },
                    finished: group.leave)
            }
        }
        firstOpened = nil
        group.wait()
        waitForStoppedRuns()
        for feed in feeds { feed.lanes?.close() }
        sharedSessionStatistics = feeds.compactMap { $0.lanes?.statistics }.reduce(.init(), +)
        // Open failures quote FFmpeg's last logged error, which is global:
        // with other files decoding at the same time it may be theirs. Open
        // those files again, alone, for a reason that is truly theirs. A
        // file whose shared decode session failed is checked again alone too.
        for index in inputs.indices where !isInterrupted {
            let again =
                results[index]?.failedWithSharedDecoder == true || (workers > 1 && results[index]?.failedToOpen == true)
            guard again else { continue }
            filesCheckedAgain += 1
            store(
                index, try? checkOne(index, feed: DeviceFeed(device: devicesUsed[index], sharesSession: false)),
                final: true)
        }
        waitForStoppedRuns()
        if isInterrupted { throw ProResDecodeError.interrupted }
        return finishedResults()
    }

    /// Every file's result: each is stored before the batch ends.
    private func finishedResults() -> [FileCheckResult] { results.map { $0! } }

    /// The first file, on the CPU decoder while `starting` makes the device
    /// and on the GPU decoder once it is there: the device's start-up
    /// (~0.15 s on the H200) overlaps that file's first frames.
    private func checkFirstFile(whileStarting starting: Deferred<(devices: [GPUDevice], reason: String?)>) throws {
        lock.lock()
        next = 1
        lock.unlock()
        let device = Deferred("prores-decode.first-file-device") { () throws -> GPUDevice? in
            try starting.get().devices.first
        }
        let feed = DeviceFeed(device: nil, sharesSession: false)
        let opened = firstOpened
        // The second file opens while the first is checked.
        firstOpened = options.jobs <= 1 ? openAhead(1) : nil
        firstOpenedIndex = 1
        // Unless --threads says: the decode's default, half the cores for the
        // CPU decoder while the other half makes the device and reads ahead.
        let threads = options.threadsPerFile > 0 ? options.threadsPerFile : 0
        let result = try Trace.span("file checked") {
            try checkOne(0, feed: feed, opened: opened, deviceStarting: device, threads: threads)
        }
        store(0, result, final: true)
        waitForStoppedRuns()
    }

    /// Runs stopped at their deadline may still be draining the decoder:
    /// its sessions close, and the process exits, only after them.
    private func waitForStoppedRuns() {
        lock.lock()
        let checked = started
        started = []
        lock.unlock()
        for cancellation in checked { cancellation.waitUntilEnded() }
    }

    /// Files checked a second time, alone, once `run()` returned (tests).
    package private(set) var filesCheckedAgain = 0

    /// Tests: `GPUDecodeLanes.streamOpened` for every device's shared session.
    package var sharedStreamOpened: ((GPUDecodeStream) -> Void)?

    /// What the shared decode sessions did (`CheckOptions.sharesDecodeSessions`),
    /// once `run()` returned; zero without them.
    package private(set) var sharedSessionStatistics = GPUDecodeLane.Statistics()

    /// Whether consecutive files on a device share one decode session: on
    /// the GPU decoder with one file at a time a device, without previews
    /// (whose files take turns on the CPU), unless turned off.
    private func sharesDecodeSessions(workers: Int) -> Bool {
        options.sharesDecodeSessions && !devices.isEmpty && workers <= devices.count && options.previews == nil
    }

    private var isInterrupted: Bool {
        lock.lock()
        defer { lock.unlock() }
        return interrupted
    }

    private func work(_ feed: DeviceFeed, opensAhead: Bool) {
        // On the device's NUMA node (where it has one): the file's reading and the session's
        // staging memory, first touched by this thread when the session is made, are then local to it.
        if let cpus = feed.device?.placement.cpus { _ = pinCurrentThread(to: cpus) }
        let retryOpenFailures = min(jobs, inputs.count) > 1
        while true {
            // The turn first, then the file: a device's files feed in list order.
            let turn = feed.takeTurn()
            lock.lock()
            guard !interrupted, next < inputs.count else {
                lock.unlock()
                turn.end()
                return
            }
            let index = next
            next += 1
            devicesUsed[index] = feed.device
            lock.unlock()
            let opened = feed.ahead?.index == index ? feed.ahead?.source : nil
            feed.ahead = opensAhead ? openAhead(index + 1).map { (index + 1, $0) } : nil
            let result = try? Trace.span("file checked") {
                try checkOne(index, feed: feed, opened: opened, inputEnded: turn.end)
            }
            turn.end()
            guard let result else { return }
            store(index, result, final: !(retryOpenFailures && result.failedToOpen) && !result.failedWithSharedDecoder)
        }
    }

    /// File `index` opened on a thread of its own, its first samples read
    /// (unless only some frames are checked: those are sought). Why: on the
    /// H200 a 48-frame 4K file decodes in ~10 ms, and opening it and reading
    /// its first batch took a few more, with the GPU idle.
    private func openAhead(_ index: Int) -> Deferred<SampleSource>? {
        // A URL opens in its own check, where the tries it took are recorded.
        guard index < inputs.count, inputs[index].problem == nil, !CheckInput.isURL(inputs[index].location) else {
            return nil
        }
        let path = inputs[index].path
        let location = inputs[index].location
        let prefetches = options.sample == nil
        let readAhead = options.decoder.tuning.readAhead
        return Deferred("prores-decode.open-ahead") {
            try FFmpegLog.withContext(path) {
                let source = try openSampleSource(location)
                if let readAhead { source.readAhead(samples: readAhead) }
                if prefetches { source.prefetch(frames: SampleSourcePrefetch.framesBeforeTheDecoder) }
                return source
            }
        }
    }

    /// Nil only when interrupted.
    private func checkOne(
        _ index: Int, feed: DeviceFeed, opened: Deferred<SampleSource>? = nil,
        inputEnded: (@Sendable () -> Void)? = nil, deviceStarting: Deferred<GPUDevice?>? = nil,
        threads: Int? = nil
    ) throws -> FileCheckResult {
        let cancellation = CheckCancellation(timeout: options.timeout, after: feed.last)
        feed.last = cancellation
        let id = ObjectIdentifier(cancellation)
        lock.lock()
        active[id] = cancellation
        started.append(cancellation)
        if interrupted { cancellation.stop(.interrupted) }
        lock.unlock()
        defer {
            cancellation.finish()
            lock.lock()
            active[id] = nil
            lock.unlock()
        }
        var decoder = options.decoder
        decoder.shared = feed.device
        decoder.lanes = feed.lanes
        if feed.device == nil && !decoder.choice.isCPU && deviceStarting == nil { decoder.choice = .cpu }
        return try FileChecker.check(
            inputs[index], options: options, decoder: decoder, threads: threads ?? threadsPerFile,
            cancellation: cancellation, opened: opened, inputEnded: inputEnded, deviceStarting: deviceStarting)
    }

    private func store(_ index: Int, _ result: FileCheckResult?, final isFinal: Bool) {
        guard let result else { return }
        lock.lock()
        results[index] = result
        final[index] = isFinal
        lock.unlock()
        // One deliverer at a time keeps the callbacks in list order.
        deliveryLock.lock()
        defer { deliveryLock.unlock() }
        while true {
            lock.lock()
            let ready = delivered < inputs.count && final[delivered] ? results[delivered] : nil
            if ready != nil { delivered += 1 }
            lock.unlock()
            guard let ready else { return }
            onResult?(ready)
        }
    }
}
