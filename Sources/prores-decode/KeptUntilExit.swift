import Foundation

/// Objects the command line keeps until the process exits, never releasing
/// them: GPU devices and the decoders they hold. Releasing them frees every
/// buffer, unpins every imported region and destroys the Vulkan device and
/// instance — work the kernel does anyway when the process ends, which a
/// short run would otherwise wait for before exiting. Only the command line
/// does this; the library (and the tests, which make many devices in one
/// process) release what they make.
enum KeptUntilExit {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var objects: [AnyObject] = []

    static func keep(_ object: AnyObject) {
        lock.lock()
        objects.append(object)
        lock.unlock()
    }
}
