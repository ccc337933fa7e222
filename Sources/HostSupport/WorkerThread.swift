import Foundation

/// Starts a named thread that runs `body`, lets go of it, and only then calls
/// `finished`. Foundation's `Thread` keeps its closure until the thread has
/// exited, which is after `finished`: whoever waits for `finished` and then
/// expects the objects `body` captured to be released (a decode run per file
/// in `check`) would otherwise race the thread's exit.
package func startWorkerThread(
    _ name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void,
    finished: @escaping @Sendable () -> Void
) {
    let work = WorkBox(body)
    let thread = Thread {
        work.run()
        finished()
    }
    thread.name = name
    if let stackSize { thread.stackSize = stackSize }
    thread.start()
}

// @unchecked: `body` is set once and cleared by the one thread that runs it.
private final class WorkBox: @unchecked Sendable {
    private var body: (@Sendable () -> Void)?

    init(_ body: @escaping @Sendable () -> Void) { self.body = body }

    func run() {
        body?()
        body = nil
    }
}
