import Foundation

/// A pool of identical surfaces (CVPixelBufferPool). Surfaces are allocated
/// on demand, then reused forever; never freed or reallocated per frame.
/// With `maximumCount` set, `makeBuffer` waits for a surface to come back
/// instead of allocating beyond it.
// @unchecked: the lists and counts are touched only under `condition`.
public final class PixelBufferPool: @unchecked Sendable {
    public let layout: SurfaceLayout
    public let maximumCount: Int?

    private let condition = NSCondition()
    private var all: [PixelBuffer] = []
    private var free: [PixelBuffer] = []
    private var vended = 0
    private var peakInUse = 0

    public init(layout: SurfaceLayout, maximumCount: Int? = nil) {
        precondition(maximumCount.map { $0 > 0 } ?? true)
        self.layout = layout
        self.maximumCount = maximumCount
        Self.counter.add(1)
    }

    deinit {
        for buffer in all { Glibc.free(buffer.baseAddress) }
        Self.counter.add(-1)
    }

    /// Pools alive in the process. A surface whose use is never released
    /// keeps its pool alive for good, so a run that ended (even by an error)
    /// and left this above where it started leaked a use: the leak checks of
    /// the tests and the fuzz harness read it.
    public static var liveCount: Int { counter.value }
    private static let counter = LockedCounter()

    /// A surface of `layout` from `pool`, which is made for that layout first,
    /// or replaced when the layout changed (a picture size change mid-stream).
    public static func makeBuffer(_ layout: SurfaceLayout, from pool: inout PixelBufferPool?) throws -> PixelBuffer {
        if pool?.layout != layout { pool = PixelBufferPool(layout: layout) }
        return try pool!.makeBuffer()
    }

    /// Vends a surface with a use count of 1. Throws only when memory runs out.
    public func makeBuffer() throws -> PixelBuffer {
        condition.lock()
        defer { condition.unlock() }
        while free.isEmpty, let maximumCount, all.count >= maximumCount {
            condition.wait()
        }
        let buffer: PixelBuffer
        if let reused = free.popLast() {
            buffer = reused
        } else {
            var memory: UnsafeMutableRawPointer?
            guard posix_memalign(&memory, SurfaceLayout.baseAlignment, Self.allocationSize(for: layout)) == 0,
                let memory
            else {
                throw ProResDecodeError.decoderUnavailable(
                    "out of memory allocating a \(layout.byteCount)-byte surface")
            }
            buffer = PixelBuffer(layout: layout, baseAddress: memory, identifier: all.count, pool: self)
            all.append(buffer)
        }
        buffer.markVended()
        vended += 1
        peakInUse = max(peakInUse, all.count - free.count)
        return buffer
    }

    /// Whole pages: Vulkan imports host memory only in page multiples.
    static func allocationSize(for layout: SurfaceLayout) -> Int {
        let page = SurfaceLayout.baseAlignment
        return max(1, (layout.byteCount + page - 1) / page) * page
    }

    func recycle(_ buffer: PixelBuffer) {
        condition.lock()
        free.append(buffer)
        condition.signal()
        condition.unlock()
    }

    public struct Statistics: Equatable, Sendable {
        /// Surfaces ever allocated: stays small however long the input is.
        public let allocated: Int
        /// Times a surface was handed out.
        public let vended: Int
        public let peakInUse: Int

        public init(allocated: Int, vended: Int, peakInUse: Int) {
            self.allocated = allocated
            self.vended = vended
            self.peakInUse = peakInUse
        }
    }

    public var statistics: Statistics {
        condition.lock()
        defer { condition.unlock() }
        return Statistics(allocated: all.count, vended: vended, peakInUse: peakInUse)
    }
}

/// An integer shared between threads.
final class LockedCounter: @unchecked Sendable {
    // @unchecked: `count` is only touched under `lock`.
    private let lock = NSLock()
    private var count = 0

    func add(_ delta: Int) {
        lock.lock()
        count += delta
        lock.unlock()
    }

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}
