import Foundation
import GPUKit
import ProResCore

/// The device-local surfaces one GPU decode batch wrote (the hardware path's
/// IOSurfaces): one buffer, a frame every `stride` bytes. It is written again
/// only once no `DeviceSurface` of it is alive, so a consumer on the GPU (the
/// converter) can read a frame while later batches decode into other buffers.
final class DeviceSurfaceBatch: @unchecked Sendable {
    let buffer: VulkanBuffer
    private let lock = NSLock()
    private var uses = 0

    init(buffer: VulkanBuffer) { self.buffer = buffer }

    var inUse: Bool {
        lock.lock()
        defer { lock.unlock() }
        return uses > 0
    }

    fileprivate func retainUse() {
        lock.lock()
        uses += 1
        lock.unlock()
    }

    fileprivate func releaseUse() {
        lock.lock()
        uses -= 1
        lock.unlock()
    }
}

/// One decoded frame in device-local memory, in the stream's native packed
/// layout (`layout`, at `offset` in the batch's buffer). Holding it holds
/// one use of its batch.
public final class DeviceSurface: DeviceFrame, @unchecked Sendable {
    let batch: DeviceSurfaceBatch
    let offset: Int
    public let layout: SurfaceLayout

    init(batch: DeviceSurfaceBatch, offset: Int, layout: SurfaceLayout) {
        self.batch = batch
        self.offset = offset
        self.layout = layout
        batch.retainUse()
    }

    deinit { batch.releaseUse() }

    var buffer: VulkanBuffer { batch.buffer }
}
