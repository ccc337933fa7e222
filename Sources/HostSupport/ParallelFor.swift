import Dispatch

/// Runs `body(i)` for every i in 0..<count on all cores and returns when
/// all are done. `body` is not `@Sendable`: each index must touch only its
/// own part of shared state (its element of an array, its span of a staging
/// buffer), which is what every caller does and what the compiler cannot
/// check across `concurrentPerform`.
package func parallelFor(_ count: Int, _ body: (Int) -> Void) {
    withoutActuallyEscaping(body) { body in
        let shared = UncheckedSendable(body)
        DispatchQueue.concurrentPerform(iterations: count) { shared.value($0) }
    }
}

/// A value handed to other threads by code that orders the accesses itself.
// @unchecked: the holder promises the ordering (see each use).
package struct UncheckedSendable<Value>: @unchecked Sendable {
    package let value: Value
    package init(_ value: Value) { self.value = value }
}
