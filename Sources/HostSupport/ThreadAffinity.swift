import Foundation

/// Pins the calling thread to `cpus` with sched_setaffinity (pid 0 is the
/// calling thread on Linux). Glibc declares it only under _GNU_SOURCE,
/// which Swift's Glibc module does not set, so it is looked up in libc at
/// run time. Returns false when it is missing or the kernel refuses (none
/// of `cpus` is allowed to this process, e.g. by a cgroup cpuset).
package func pinCurrentThread(to cpus: [Int]) -> Bool {
    guard let setAffinity = schedSetAffinity, let highest = cpus.max(), cpus.allSatisfy({ $0 >= 0 }) else {
        return false
    }
    // The kernel's mask: a bit per CPU, in whole 64-bit words.
    var mask = [UInt64](repeating: 0, count: highest / 64 + 1)
    for cpu in cpus { mask[cpu / 64] |= 1 << UInt64(cpu % 64) }
    return mask.withUnsafeBytes { setAffinity(0, $0.count, $0.baseAddress!) } == 0
}

private typealias SchedSetAffinity = @convention(c) (Int32, Int, UnsafeRawPointer) -> Int32

private let schedSetAffinity = libcFunction("sched_setaffinity", as: SchedSetAffinity.self)

/// Runs `body` on a new thread pinned to `cpus` and returns its result;
/// with nil, on the calling thread. Memory that `body` allocates and first
/// touches (a session's pinned staging buffers) then comes from the node
/// of those CPUs under Linux's default first-touch policy.
package func onPinnedThread<T>(_ cpus: [Int]?, _ body: () throws -> T) throws -> T {
    guard let cpus else { return try body() }
    return try withoutActuallyEscaping(body) { body in
        // Handed to one thread and read back after it ended (the semaphore orders the accesses).
        let box = UncheckedSendable(PinnedCall(body))
        let done = DispatchSemaphore(value: 0)
        startWorkerThread(
            "prores-decode.pinned",
            {
                _ = pinCurrentThread(to: cpus)
                box.value.run()
            }, finished: { done.signal() })
        done.wait()
        return try box.value.result!.get()
    }
}

private final class PinnedCall<T> {
    let body: () throws -> T
    var result: Result<T, Error>?
    init(_ body: @escaping () throws -> T) { self.body = body }
    func run() { result = Result { try body() } }
}
