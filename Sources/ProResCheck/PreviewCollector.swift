import GPUKit
import ProResCore
import ProResFFmpeg
import ProResGPU
import ProResPipeline

/// The GPU sink of a preview pass: keeps a thumbnail of every frame it
/// receives and a full-size copy of the clean one (not in `damaged`)
/// nearest `middle` (ties: the earlier), so at most two full frames are in memory at once, whatever the
/// clip's length. Runs on the GPU completion thread, one frame at a time;
/// read it only after the run has finished.
///
/// The thumbnails are made on the device (`PreviewThumbnailPass`): a frame
/// comes back to the host only when it is kept at full size.
final class PreviewCollector: ConvertedFrameSink {
    let thumbnailWidth: Int
    let middle: Int
    let damaged: Set<Int>
    private(set) var thumbnails: [(index: Int, image: PreviewImage)] = []
    private(set) var full: (index: Int, image: PreviewImage)?
    /// Made with the first frame, on its device.
    private var pass: PreviewThumbnailPass?

    init(thumbnailWidth: Int, middle: Int, damaged: Set<Int> = []) {
        self.thumbnailWidth = thumbnailWidth
        self.middle = middle
        self.damaged = damaged
    }

    var readsPixels: Bool { false }

    func consume(_ frame: ConvertedFrame) throws {
        guard frame.width > 0, frame.height > 0 else {
            throw ProResDecodeError.badRequest(.message("the GPU delivered frame \(frame.index) without its pixels"))
        }
        let pass = try self.pass ?? PreviewThumbnailPass(context: frame.context, kernels: frame.kernels)
        self.pass = pass
        let size = PreviewImage.thumbnailSize(
            width: frame.width, height: frame.height, forWidth: min(thumbnailWidth, frame.width))
        // A thumbnail as large as the frame is the frame itself (as `downscaled` returns it).
        let whole = size == (frame.width, frame.height)
        let keep =
            !damaged.contains(frame.index) && (full.map { abs(frame.index - middle) < abs($0.index - middle) } ?? true)
        let result = try pass.run(
            frame.device, width: frame.width, height: frame.height, target: whole ? nil : size, copyFull: keep || whole)
        let image = result.full.map { PreviewImage(width: frame.width, height: frame.height, copying: $0) }
        let thumbnail =
            whole
            ? image!
            : PreviewImage(width: size.width, height: size.height, values: result.thumbnail.map { Float16($0) })
        thumbnails.append((frame.index, thumbnail))
        if keep { full = (frame.index, image!) }
    }
}
