import Dispatch
import Foundation
import Glibc
import ProResCore
import ProResPipeline

/// Turns SIGINT/SIGTERM/SIGHUP into a clean cancellation (SIGHUP: the
/// terminal or SSH session went away; by default it would kill us and leave
/// the temporary outputs behind).
///
/// The handlers go in first thing in `main` (`installProcessHandlers`), so
/// a signal during start-up or argument parsing ends the process with exit 9
/// like any other, not by the default action; a command then registers what
/// cancelling its run means by holding a `SignalTrap`. If the run has not
/// wound down two seconds after the signal (blocked reading a pipe, say), or
/// a second signal comes, temporary outputs are removed and the process
/// exits at once.
final class SignalTrap {
    private static let state = TrapState()

    /// Installs the process's handlers; call once, before anything else.
    static func installProcessHandlers() {
        state.install()
    }

    init(onSignal: @escaping @Sendable () -> Void) {
        Self.state.setHandler(onSignal)
    }

    // Dropping the handler at once releases the run it captured (and its
    // Vulkan device): NVIDIA's driver crashes when a process exits with a
    // live device.
    deinit {
        Self.state.setHandler(nil)
    }
}

private final class TrapState: @unchecked Sendable {
    private let lock = NSLock()
    private var handler: (@Sendable () -> Void)?
    private var count = 0
    private var sources: [DispatchSourceSignal] = []

    func install() {
        for number in [SIGINT, SIGTERM, SIGHUP] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in received() }
            source.resume()
            sources.append(source)
        }
    }

    func setHandler(_ newHandler: (@Sendable () -> Void)?) {
        lock.withLock { handler = newHandler }
    }

    private func received() {
        let (current, first) = lock.withLock { () -> ((@Sendable () -> Void)?, Bool) in
            count += 1
            return (handler, count == 1)
        }
        guard first, let current else { Self.exitInterrupted() }
        current()
        DispatchQueue.global().asyncAfter(deadline: .now() + 2) { Self.exitInterrupted() }
    }

    private static func exitInterrupted() -> Never {
        TemporaryFiles.shared.removeAll()
        Console.error("interrupted")
        _exit(ExitCode.interrupted.rawValue)
    }
}
