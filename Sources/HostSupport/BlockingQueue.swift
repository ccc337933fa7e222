import Foundation

/// A bounded FIFO shared by one producer and one consumer thread. `push`
/// blocks while the queue is full: that is the pipeline's back-pressure, which
/// keeps memory independent of the input's length. A popped element is
/// dropped from the ring at once, so the queue never extends its lifetime
/// (a decoded frame holds a pooled surface).
// @unchecked: every stored value is touched only under its condition's lock.
package final class BlockingQueue<Element>: @unchecked Sendable {
    private let condition = NSCondition()
    private var ring: [Element?]
    private var head = 0
    private var count = 0
    private var closed = false

    package init(capacity: Int) {
        precondition(capacity > 0)
        ring = Array(repeating: nil, count: capacity)
    }

    /// Returns false when the queue was closed and the element was not taken.
    @discardableResult
    package func push(_ element: Element) -> Bool {
        push(element, unless: { false })
    }

    /// As `push`, but gives up (false) once `abandon` holds: a producer
    /// that shares the queue with others stops waiting for room when its
    /// own work was cancelled (`GPUDecodeLane`'s streams). `abandon` is
    /// asked under the queue's lock, again after each pop and `wake`.
    @discardableResult
    package func push(_ element: Element, unless abandon: () -> Bool) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while count == ring.count && !closed && !abandon() { condition.wait() }
        if closed || abandon() { return false }
        ring[(head + count) % ring.count] = element
        count += 1
        condition.broadcast()
        return true
    }

    /// Pushes `elements` together, once there is room for all of them, so
    /// that a consumer never sees only some (a GPU batch's frames); at
    /// most the capacity. Returns false when the queue was closed and they
    /// were not taken.
    @discardableResult
    package func push(contentsOf elements: [Element]) -> Bool {
        precondition(elements.count <= ring.count)
        condition.lock()
        defer { condition.unlock() }
        while count + elements.count > ring.count && !closed { condition.wait() }
        if closed { return false }
        for element in elements {
            ring[(head + count) % ring.count] = element
            count += 1
        }
        condition.broadcast()
        return true
    }

    /// Blocks until an element arrives; nil once the queue is closed and drained.
    package func pop() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while count == 0 && !closed { condition.wait() }
        guard count > 0 else { return nil }
        let element = ring[head].take()
        head = (head + 1) % ring.count
        count -= 1
        condition.broadcast()
        return element
    }

    /// Blocks until an element arrives, then also takes up to `limit - 1`
    /// more that are already queued; empty once closed and drained. A batch
    /// grows with the backlog instead of waiting for stragglers, except
    /// while `waitForFullBatch` says so (the GPU still has other work: a
    /// fuller batch costs no latency then, and small batches waste it). It
    /// is asked under the queue's lock, again after each push and `wake`.
    /// Otherwise a batch that is not full still waits up to `patience`
    /// seconds from when its first element is there, for the rest, unless
    /// `morePending` says no more is coming soon (also asked under the lock).
    package func popBatch(
        limit: Int, patience: Double = 0, morePending: () -> Bool = { true },
        waitForFullBatch: () -> Bool = { false }
    ) -> [Element] {
        condition.lock()
        defer { condition.unlock() }
        var deadline: Date?
        while !closed {
            if count == 0 {
                condition.wait()
            } else if count >= min(limit, ring.count) {
                break
            } else if waitForFullBatch() {
                condition.wait()
            } else if patience > 0 && morePending() {
                let until = deadline ?? Date(timeIntervalSinceNow: patience)
                deadline = until
                if !condition.wait(until: until) { break }
            } else {
                break
            }
        }
        var batch: [Element] = []
        while count > 0 && batch.count < limit {
            batch.append(ring[head].take()!)
            head = (head + 1) % ring.count
            count -= 1
        }
        condition.broadcast()
        return batch
    }

    /// Wakes a consumer waiting in `popBatch`, to ask its condition again.
    package func wake() {
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    /// The elements queued now.
    package var queued: Int {
        condition.lock()
        defer { condition.unlock() }
        return count
    }

    /// No more pushes; consumers drain what is left, then see nil.
    package func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Close and drop whatever is queued (cancellation).
    package func closeAndDrain() {
        condition.lock()
        closed = true
        for i in ring.indices { ring[i] = nil }
        count = 0
        condition.broadcast()
        condition.unlock()
    }
}
