import Foundation

/// A pooled surface (CVPixelBuffer over an IOSurface). Its memory belongs to
/// the pool; a use count says how many parties still read or write it, and
/// the surface returns to the pool only when the last one lets go. That is
/// what keeps a surface from being recycled while a GPU may still read it.
// @unchecked: the use count and owning pool are touched only under `lock`; the bytes are the users' to order.
public final class PixelBuffer: @unchecked Sendable {
    public let layout: SurfaceLayout
    public let baseAddress: UnsafeMutableRawPointer
    /// Stable per pool, for logs and for caches keyed by surface.
    public let identifier: Int

    private unowned let poolReference: PixelBufferPool
    /// Keeps the pool (and so this memory) alive while the surface is out,
    /// without a reference cycle while it sits idle in the pool.
    private var owningPool: PixelBufferPool?
    private let lock = NSLock()
    private var uses = 0

    init(layout: SurfaceLayout, baseAddress: UnsafeMutableRawPointer, identifier: Int, pool: PixelBufferPool) {
        self.layout = layout
        self.baseAddress = baseAddress
        self.identifier = identifier
        self.poolReference = pool
    }

    /// The number of current users; 0 means the surface sits in the pool.
    public var useCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return uses
    }

    /// Registers one more user.
    public func retainUse() {
        lock.lock()
        precondition(uses > 0, "retainUse() on a surface that is back in its pool")
        uses += 1
        lock.unlock()
    }

    /// Drops one user; the last release hands the surface back to its pool.
    public func releaseUse() {
        lock.lock()
        precondition(uses > 0, "releaseUse() without a matching use")
        uses -= 1
        let idle = uses == 0
        let keepAlive = idle ? owningPool.take() : nil
        lock.unlock()
        if idle { poolReference.recycle(self) }
        withExtendedLifetime(keepAlive) {}
    }

    func markVended() {
        lock.lock()
        precondition(uses == 0, "a surface was vended while still in use")
        uses = 1
        owningPool = poolReference
        lock.unlock()
    }

    /// The pool this surface belongs to.
    public var pool: PixelBufferPool { poolReference }

    /// Bytes actually allocated: the layout rounded up to whole pages, so
    /// the GPU can import the surface as it is.
    public var allocationSize: Int { PixelBufferPool.allocationSize(for: layout) }

    public func plane(_ index: Int) -> UnsafeMutableRawPointer {
        baseAddress + layout.planes[index].offset
    }

    /// The visible bytes, as the fewest contiguous spans: whole planes when
    /// rows are tight, row by row otherwise. Sinks write or hash these in
    /// place, so output never needs a compacting copy.
    public func visibleSpans() -> [UnsafeRawBufferPointer] {
        var spans: [UnsafeRawBufferPointer] = []
        for plane in layout.planes {
            let start = UnsafeRawPointer(baseAddress + plane.offset)
            if plane.isTight {
                spans.append(UnsafeRawBufferPointer(start: start, count: plane.bytesPerRow * plane.visibleRows))
            } else {
                for row in 0..<plane.visibleRows {
                    spans.append(
                        UnsafeRawBufferPointer(start: start + row * plane.bytesPerRow, count: plane.visibleBytesPerRow))
                }
            }
        }
        return spans
    }
}
