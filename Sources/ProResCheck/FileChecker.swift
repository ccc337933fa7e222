import Foundation
import GPUKit
import HostSupport
import ProResCore
import ProResFFmpeg
import ProResGPU
import ProResPipeline

/// Checks one file: open it, decode every frame (or the `--sample`) in the
/// native planar format through `DecodeRun` into a `CheckSink`, then judge.
/// Never throws for anything the file does; only a batch interrupt escapes.
enum FileChecker {
    /// `decoder`: the batch's selection, with this worker's device shared.
    /// `opened`: the file opened ahead, while the one before was checked; a
    /// failure there is not reported, the file is opened again here (so
    /// that FFmpeg's reason is read on this thread, for this file alone).
    /// `inputEnded`: called once the decode queues no more of this file's
    /// samples (`DecodeRun.Options.inputEnded`). `deviceStarting`: the GPU
    /// decoder's device being made; the CPU decoder decodes until it is there.
    static func check(
        _ input: CheckInput, options: CheckOptions, decoder: DecoderSelection, threads: Int,
        cancellation: CheckCancellation, opened: Deferred<SampleSource>? = nil,
        inputEnded: (@Sendable () -> Void)? = nil, deviceStarting: Deferred<GPUDevice?>? = nil
    ) throws -> FileCheckResult {
        // With --jobs N, FFmpeg's lines from N files interleave: name the file.
        try FFmpegLog.withContext(input.path) {
            try checkWithoutContext(
                input, options: options, decoder: decoder, threads: threads, cancellation: cancellation, opened: opened,
                inputEnded: inputEnded, deviceStarting: deviceStarting)
        }
    }

    private static func checkWithoutContext(
        _ input: CheckInput, options: CheckOptions, decoder: DecoderSelection, threads: Int,
        cancellation: CheckCancellation, opened: Deferred<SampleSource>?,
        inputEnded: (@Sendable () -> Void)?, deviceStarting: Deferred<GPUDevice?>?
    ) throws -> FileCheckResult {
        // A local file's state before it is read: a file changed while it is checked is checked again by
        // a --resume. A URL's, from the replies whose bodies were read (the same object throughout, or none).
        let isURL = CheckInput.isURL(input.location)
        let local = input.problem != nil || isURL ? nil : FileSource.of(input)
        let activity = isURL ? HTTPActivity(isStopped: { cancellation.reason != nil }) : nil
        var result = try verdict(
            input, options: options, decoder: decoder, threads: threads, cancellation: cancellation, opened: opened,
            activity: activity, inputEnded: inputEnded, deviceStarting: deviceStarting)
        result.source =
            local
            ?? activity?.validators.map { FileSource(etag: $0.etag, lastModified: $0.lastModified, length: $0.length) }
        // Previews come after the verdict and cannot change it.
        if let previews = options.previews {
            if result.status == .error {
                result.previews = .skipped
            } else {
                let damaged = Set(result.errors.compactMap(\.frame))
                let delivered = result.hashes.map(\.index)
                result.previews = try FilePreviews.make(
                    input, clean: delivered.filter { !damaged.contains($0) },
                    damaged: delivered.filter(damaged.contains), options: previews,
                    decoder: decoder, threads: threads, cancellation: cancellation)
            }
        }
        return result
    }

    /// The check itself: the same with or without `--previews`.
    private static func verdict(
        _ input: CheckInput, options: CheckOptions, decoder: DecoderSelection, threads: Int,
        cancellation: CheckCancellation, opened: Deferred<SampleSource>?, activity: HTTPActivity?,
        inputEnded: (@Sendable () -> Void)?, deviceStarting: Deferred<GPUDevice?>?
    ) throws -> FileCheckResult {
        // The file's own time: not the decoder's earlier files still on it.
        func elapsed() -> Double { cancellation.elapsed }
        func timedOut(_ format: FormatDescription?) throws -> FileCheckResult? {
            switch cancellation.reason {
            case .interrupted?: throw ProResDecodeError.interrupted
            case .timedOut?:
                // For a URL waited on, what the server had not done by then.
                let cause = activity?.stall.map { ": " + $0 } ?? ""
                return .error(
                    input, "timed out after \(JSON.number(options.timeout, digits: 3)) s\(cause)", format: format,
                    seconds: elapsed())
            case nil: return nil
            }
        }
        if let problem = input.problem {
            return input.problemFails
                ? .failure(input, problem, seconds: elapsed())
                : .error(input, "cannot read: \(problem)", seconds: elapsed())
        }

        let source: SampleSource
        let retries = RetryNotes()
        do {
            source = try Trace.span("source opened") {
                if let ahead = try? opened?.get() { return ahead }
                let location = input.location
                let readAhead = decoder.tuning.readAhead
                return try cancellation.bounded(label: input.path, cpus: decoder.shared?.placement.cpus) {
                    let source = try openSampleSource(location, retried: { retries.add($0) }, activity: activity)
                    if let readAhead { source.readAhead(samples: readAhead) }
                    return source
                }
            }
        } catch ProResDecodeError.truncatedRecording {
            // A recording cut short is a deliverable that fails, not a file
            // that could not be checked.
            return try timedOut(nil) ?? .failure(input, ProResDecodeError.truncatedRecordingReason, seconds: elapsed())
        } catch {
            if let stopped = try timedOut(nil) { return stopped }
            var result = FileCheckResult.error(input, describe(error), seconds: elapsed(), failedToOpen: true)
            result.retries = retries.list
            return result
        }
        let format = source.format
        if let stopped = try timedOut(format) { return stopped }

        var sampled: [Int]?
        if let n = options.sample, let count = format.frameCount {
            sampled = FrameSampling.indices(count: count, samples: n)
        }
        // The sound is measured on a thread of its own while the frames decode.
        let audio =
            options.measuresAudio
            ? AudioMeasurement.start(input: input.location, format: format, cancellation: cancellation) : nil
        let (request, lightNote) = AnalysisRequest.check(format)
        let light = request.statistics?.light
        // Hashes and statistics are measured where the frame lives; only a v1
        // (md5) golden file needs the frames' bytes on the host.
        let needsMD5 = options.golden?.algorithm == .md5
        let sink = CheckSink(md5: needsMD5)
        // Every frame's header, as it goes to the decoder: its own description.
        let described = DescribedSource(sampled.map { SampledSource(source, frames: $0) } ?? source)
        let report: DecodeRun.Report
        do {
            var runOptions = DecodeRun.Options(output: .native, threads: threads, decoder: decoder, analysis: request)
            runOptions.inputEnded = inputEnded
            runOptions.deviceStarting = deviceStarting
            let run = try DecodeRun(
                source: described, options: runOptions, sinks: needsMD5 ? [sink] : [], analysisSink: sink)
            if let counter = options.frameProgress {
                counter.opened(frames: sampled?.count ?? format.frameCount)
                run.progress = { _ in counter.frameChecked() }
            }
            cancellation.attach(run)
            report = try Trace.span("decode run") {
                try cancellation.run(run, label: input.path, cpus: decoder.shared?.placement.cpus)
            }
        } catch {
            if let stopped = try timedOut(format) { return stopped }
            let shared = error as? GPULaneFailure
            var result = FileCheckResult.error(
                input, describe(shared?.underlying ?? error), format: format, seconds: elapsed())
            result.failedWithSharedDecoder = shared != nil
            result.retries = retries.list
            return result
        }
        if let stopped = try timedOut(format) { return stopped }
        let audioFacts = try audio?.get()

        // Frame problems, in frame order; missing frames as runs.
        var errors =
            (report.damaged.map { (frame: $0.index, reason: "damaged: \($0.reason)") }
            + report.failed.map { (frame: $0.index, reason: "not decoded: \($0.reason)") })
            .sorted { $0.frame < $1.frame }.map { FileCheckResult.FrameProblem(frame: $0.frame, reason: $0.reason) }
        let seen = Set(report.damaged.map(\.index) + report.failed.map(\.index) + sink.hashes.map(\.index))
        // Never an array of the claimed count: the frames not seen, as runs.
        let missing =
            sampled.map { FrameRanges(wanted: $0, seen: seen) }
            ?? FrameRanges(wanted: 0..<(format.frameCount ?? 0), seen: seen)
        for (n, run) in missing.runs.enumerated() {
            let which = run.count == 1 ? "missing" : "missing (frames \(run.lowerBound)–\(run.upperBound))"
            // The source's own words name the frames it ran out of.
            errors.append(
                .init(
                    frame: run.lowerBound, reason: n == 0 ? report.shortfall.map { "missing: \($0)" } ?? which : which))
        }
        if missing.count == 0, let shortfall = report.shortfall { errors.append(.init(frame: nil, reason: shortfall)) }

        let damaged = Set(report.damaged.map(\.index))
        var statistics = FrameStatistics(
            bitDepth: format.nativeFormat.bitDepth, range: format.colorTags.range.value,
            hasAlpha: format.nativeFormat.hasAlpha, measuresLight: light != nil,
            framesPerSecond: format.framesPerSecond)
        var series = FrameSeries(light: light != nil, alpha: format.nativeFormat.hasAlpha)
        for frame in sink.measurements where !damaged.contains(frame.index) {
            statistics.add(frame)
            series.add(frame)
        }
        for index in damaged.sorted() { series.damaged.add(index) }
        for index in Set(report.failed.map(\.index)).sorted() { series.notDecoded.add(index) }
        series.missing = missing
        series.frameCount = format.frameCount

        let frameCount = sampled == nil ? report.framesRead : format.frameCount
        let runs = described.runs
        let findings = CheckFinding.of(format, decoded: sampled == nil ? report.framesRead : nil)
        var facts = ExpectRule.Facts(
            format: format, frames: frameCount ?? report.framesRead, maxNits: statistics.maxNits, runs: runs.runs,
            findings: findings, statistics: statistics)
        facts.audio = audioFacts
        // A sound track that cannot be decoded to its end is damage, as a frame is.
        errors += (audioFacts?.tracks ?? []).compactMap { track in
            track.problem.map { .init(frame: nil, reason: "audio track \(track.track.index): \($0)") }
        }
        let failedRules = options.rules.compactMap { rule in rule.violation(facts).map { (rule: rule.text, actual: $0) }
        }
        let warnedRules = options.warningRules.compactMap { rule in
            rule.violation(facts).map { (rule: rule.text, actual: $0) }
        }
        let hashes = sink.hashes
        // A sample of every frame (N at least the file's count) is a complete check.
        let complete = sampled.map { $0.count == format.frameCount } ?? true
        let comparison = options.golden?.compare(
            key: input.key, hashes: needsMD5 ? sink.md5s : hashes, complete: complete,
            frames: format.frameCount, damaged: damaged,
            decoder: GoldenFile.decoderFamily(report.decoder), mayDiffer: Set(report.decodersMayDiffer))
        let golden = comparison?.verdict
        let passed = errors.isEmpty && failedRules.isEmpty && (golden ?? .match) == .match
        var result = FileCheckResult(
            input: input, verdict: passed ? .pass : .fail, format: format, framesDecoded: hashes.count,
            sampled: sampled, errors: errors, failedRules: failedRules, golden: golden,
            statistics: statistics, lightNote: lightNote, hashes: hashes, seconds: elapsed(), failedToOpen: false)
        result.warnedRules = warnedRules
        result.decoder = report.decoder
        result.findings = findings
        result.descriptionChanges = runs.changes
        result.decodersMayDiffer = report.decodersMayDiffer
        result.goldenAcrossDecoders = comparison?.acrossDecoders ?? []
        result.retries = retries.list
        if options.keepsFrameSeries { result.series = series }
        result.audio = audioFacts
        return result
    }

    /// The error in words, without repeating the path the report line already shows.
    private static func describe(_ error: Error) -> String {
        switch error {
        case ProResDecodeError.inputUnreadable(_, let reason): return "cannot read: \(reason)"
        case ProResDecodeError.notProRes(_, let reason): return "not ProRes: \(reason)"
        default: return "\(error)"
        }
    }
}

/// The tries of an http(s) open that failed and were made again, in words,
/// for the report; said from the opening thread.
final class RetryNotes: @unchecked Sendable {
    // @unchecked: `notes` is touched only under `lock`.
    private let lock = NSLock()
    private var notes: [String] = []

    func add(_ note: String) {
        lock.lock()
        notes.append(note)
        lock.unlock()
    }

    var list: [String] {
        lock.lock()
        defer { lock.unlock() }
        return notes
    }
}
