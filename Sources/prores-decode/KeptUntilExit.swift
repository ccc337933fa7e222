import Foundation
import ProResCheck
import ProResGPU
import ProResPipeline

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

    /// Waits until every kept device has finished its work. Called just
    /// before exit: a run that stopped on an error may leave submissions
    /// running, and exiting under them crashed lavapipe's queue thread
    /// (signal 11 in CI, a full disk under `--decoder gpu --framehash`).
    static func quiesce() {
        lock.lock()
        let kept = objects
        lock.unlock()
        for object in kept {
            if let device = object as? GPUDevice { device.context.waitUntilIdle() }
            if let batch = object as? BatchCheck { batch.devices.forEach { $0.context.waitUntilIdle() } }
        }
    }
}
