import ProResCore
import ProResFFmpeg
import GPUKit
import ProResGPU

/// The GPU sink of a preview pass: keeps a thumbnail of every frame it
/// receives and a full-size copy of the clean one (not in `damaged`)
/// nearest `middle` (ties: the earlier), so at most two full frames are in memory at once, whatever the
/// clip's length. Runs on the GPU completion thread, one frame at a time;
/// read it only after the run has finished.
final class PreviewCollector: ConvertedFrameSink {
    let thumbnailWidth: Int
    let middle: Int
    let damaged: Set<Int>
    private(set) var thumbnails: [(index: Int, image: PreviewImage)] = []
    private(set) var full: (index: Int, image: PreviewImage)?

    init(thumbnailWidth: Int, middle: Int, damaged: Set<Int> = []) {
        self.thumbnailWidth = thumbnailWidth
        self.middle = middle
        self.damaged = damaged
    }

    func consume(_ frame: ConvertedFrame) throws {
        guard frame.width > 0, frame.height > 0, frame.pixels.count == frame.width * frame.height * 8 else {
            throw ProResDecodeError.badRequest(.message("the GPU delivered frame \(frame.index) without its pixels"))
        }
        let image = PreviewImage(frame)
        thumbnails.append((frame.index, image.downscaled(toWidth: min(thumbnailWidth, image.width))))
        if !damaged.contains(frame.index), full.map({ abs(frame.index - middle) < abs($0.index - middle) }) ?? true {
            full = (frame.index, image)
        }
    }
}
