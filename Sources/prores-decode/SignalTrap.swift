import Dispatch
import Glibc
import ProResCore
import ProResFFmpeg
import GPUKit
import ProResGPU
import ProResPipeline

/// Turns SIGINT/SIGTERM/SIGHUP into a clean cancellation (SIGHUP: the
/// terminal or SSH session went away; by default it would kill us and leave
/// the temporary outputs behind). If the run has not wound
/// down two seconds later (blocked reading a pipe, say), or a second signal
/// comes, temporary outputs are removed and the process exits at once.
final class SignalTrap {
    private var sources: [DispatchSourceSignal] = []
    private var count = 0

    init(onSignal: @escaping () -> Void) {
        for number in [SIGINT, SIGTERM, SIGHUP] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [unowned self] in
                count += 1
                if count > 1 {
                    TemporaryFiles.shared.removeAll()
                    Console.error("interrupted")
                    _exit(ExitCode.interrupted.rawValue)
                }
                onSignal()
                DispatchQueue.global().asyncAfter(deadline: .now() + 2) {
                    TemporaryFiles.shared.removeAll()
                    Console.error("interrupted")
                    _exit(ExitCode.interrupted.rawValue)
                }
            }
            source.resume()
            sources.append(source)
        }
    }

    // Dropping the handlers at once releases the run they captured (and its
    // Vulkan device): a cancelled source would keep them until its queue
    // gets round to it, possibly past exit(), and NVIDIA's driver crashes
    // when a process exits with a live device.
    deinit {
        for source in sources {
            source.setEventHandler(handler: nil)
            source.cancel()
        }
    }
}
