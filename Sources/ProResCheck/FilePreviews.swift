import Foundation
import GPUKit
import HostSupport
import ProResCore
import ProResFFmpeg
import ProResGPU
import ProResPipeline

/// Makes one file's `--previews` once its check has a verdict.
///
/// Which frames: K (`--preview-frames`) evenly spaced among the frames the
/// check decoded cleanly (`FrameSampling` over that list, so the first and
/// last clean frames are included; with `--sample` only sampled frames
/// qualify), and up to K of the damaged frames it delivered (concealed;
/// evenly spaced the same way), all on the sheet in frame order, the damaged
/// ones marked (PreviewRenderer): a damaged file's previews show what is
/// wrong, not only what is right. The full frame is the middle clean one,
/// `chosen[chosen.count / 2]` (the later of the two middle ones for an even count).
///
/// How: a second, short `DecodeRun` over just those frames, packed to the
/// profile's native y416/v216 and converted by `GPUFrameConverter` to
/// RGBA16F linear Display P3 (each frame with its own colour tags), into a
/// `PreviewCollector`. Why a second pass rather than the check's own decode:
/// the check decodes to the native planar format for its md5s and
/// statistics, on the CPU only; this way that decode is exactly the same
/// with or without `--previews`, and the previews cost K frames, not the clip.
///
/// Never changes the verdict: any failure here (no Vulkan, a write error,
/// the `--timeout` running out) becomes `.failed(reason)`; only an interrupt
/// of the whole batch escapes.
enum FilePreviews {
    /// `clean`: the frame indices the check decoded cleanly, ascending;
    /// `damaged`: those it delivered concealed, ascending.
    static func make(
        _ input: CheckInput, clean: [Int], damaged: [Int], options: PreviewOptions, decoder: DecoderSelection,
        threads: Int, cancellation: CheckCancellation
    ) throws -> PreviewOutcome {
        guard !clean.isEmpty else { return .failed("no frame decoded cleanly") }
        let chosenClean = FrameSampling.indices(count: clean.count, samples: options.frames).map { clean[$0] }
        let chosenDamaged =
            damaged.isEmpty
            ? [] : FrameSampling.indices(count: damaged.count, samples: options.frames).map { damaged[$0] }
        let chosen = (chosenClean + chosenDamaged).sorted()
        var format: FormatDescription?
        let collector = PreviewCollector(
            thumbnailWidth: options.thumbnailWidth, middle: chosenClean[chosenClean.count / 2],
            damaged: Set(chosenDamaged))
        do {
            let source = try openSampleSource(input.location)
            if let readAhead = decoder.tuning.readAhead { source.readAhead(samples: readAhead) }
            format = source.format
            let run = try DecodeRun(
                source: SampledSource(source, frames: chosen),
                options: .init(
                    output: .packed(source.format.nativePackedLayout), threads: threads, gpu: options.gpu,
                    decoder: decoder),
                sinks: [], gpuSinks: [collector])
            cancellation.attach(run)
            _ = try run.run()
        } catch {
            switch cancellation.reason {
            case .interrupted?: throw ProResDecodeError.interrupted
            case .timedOut?:
                return .failed(
                    "the timeout of \(JSON.number(cancellation.timeout, digits: 3)) s ran out while making previews")
            case nil: return .failed("\(error)")
            }
        }
        guard let full = collector.full else { return .failed("the GPU conversion delivered no frame") }
        // Colour and pixel shape only: previews are not frames of a sequence.
        var tags = ImageFileTags()
        tags.sampleAspectRatio = format?.sampleAspectRatio

        let sheetPath = options.sheetPath(key: input.key)
        let framePath = options.framePath(key: input.key)
        do {
            let marked = Set(
                collector.thumbnails.indices.filter { collector.damaged.contains(collector.thumbnails[$0].index) })
            let sheet = PreviewRenderer.sheet(
                collector.thumbnails.map(\.image), columns: options.columns, marked: marked)
            let sheetBytes = try tags.taggedPNG(
                StillImageEncoder.png16(
                    sheet.samples, width: sheet.width, height: sheet.height, channels: 3,
                    errorPath: sheetPath), errorPath: sheetPath)
            let frame = PreviewRenderer.frame(full.image)
            let frameBytes = try tags.taggedPNG(
                StillImageEncoder.png16(
                    frame.samples, width: frame.width, height: frame.height, channels: 3,
                    errorPath: framePath), errorPath: framePath)
            // Both written under temporary names first, then renamed (into the
            // staging directory, published when the check ends): an error
            // leaves neither of this run's files half-written.
            let sheetFile = try OutputFile(path: options.writePath(sheetPath), overwrite: true)
            let frameFile = try OutputFile(path: options.writePath(framePath), overwrite: true)
            try sheetBytes.withUnsafeBytes { try sheetFile.write([$0]) }
            try frameBytes.withUnsafeBytes { try frameFile.write([$0]) }
            try sheetFile.commit()
            do { try frameFile.commit() } catch {
                // Listed means written: take the sheet back rather than report half a pair.
                _ = PathBytes.withCString(options.writePath(sheetPath)) { unlink($0) }
                throw error
            }
        } catch {
            return .failed("\(error)")
        }
        let sheetFrames = collector.thumbnails.map(\.index)
        return .written(
            sheet: sheetPath, frame: framePath, sheetFrames: sheetFrames,
            damagedFrames: sheetFrames.filter(collector.damaged.contains), fullFrame: full.index)
    }
}
