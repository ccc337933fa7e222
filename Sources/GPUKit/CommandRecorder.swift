import CVulkan
import Foundation
import HostSupport

/// A command pool with one primary command buffer per slot and a timeline
/// semaphore: record, submit with the next timeline value, wait for it.
/// Its submissions go to the compute queue, or to the transfer queue when
/// the context has one and it is asked for.
///
/// Thread-safety: one thread records and submits at a time (each user owns
/// its recorder); `wait(for:)` and `completedValue` may be called from any.
public final class CommandRecorder: @unchecked Sendable {
    public enum Queue: Sendable { case compute, transfer }

    let context: VulkanContext
    let queueKind: Queue
    private let buffers: [VkCommandBuffer]
    private let queue: VkQueue
    private var pool: VkCommandPool?
    private var timeline: VkSemaphore?
    public private(set) var submittedValue: UInt64 = 0
    private let completedLock = NSLock()
    private var completed: UInt64 = 0
    /// Each slot's last submission, which keeps what it uses alive until the
    /// slot is begun again (after its work completed) or the recorder goes.
    private var submitted: [Int: CommandBuffer] = [:]
    /// The job its submissions are for (`QueueOrder`); under `completedLock`.
    private var ledger: WaitLedger?
    private var order: QueueOrder { queueKind == .compute ? context.computeOrder : context.transferOrder }

    public init(context: VulkanContext, count: Int, queue kind: Queue = .compute) throws {
        self.context = context
        queueKind = kind
        let vk = context.vk
        let device = context.device
        switch kind {
        case .compute: queue = context.computeQueue
        case .transfer:
            guard let transfer = context.transferQueue else { preconditionFailure("the context has no transfer queue") }
            queue = transfer
        }
        var poolInfo = VkCommandPoolCreateInfo()
        poolInfo.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO
        poolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT.rawValue
        poolInfo.queueFamilyIndex = kind == .transfer ? context.transferFamily! : context.computeFamily
        try check(vk.vkCreateCommandPool(device, &poolInfo, nil, &pool), "vkCreateCommandPool")
        var typeInfo = VkSemaphoreTypeCreateInfo()
        typeInfo.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO
        typeInfo.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE
        var semaphoreInfo = VkSemaphoreCreateInfo()
        semaphoreInfo.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO
        var allocated = [VkCommandBuffer?](repeating: nil, count: count)
        var semaphore: VkSemaphore?
        let commandPool = pool
        do {
            try withUnsafePointer(to: &typeInfo) { typePointer in
                semaphoreInfo.pNext = UnsafeRawPointer(typePointer)
                try check(vk.vkCreateSemaphore(device, &semaphoreInfo, nil, &semaphore), "vkCreateSemaphore(timeline)")
            }
            var allocate = VkCommandBufferAllocateInfo()
            allocate.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO
            allocate.commandPool = commandPool
            allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY
            allocate.commandBufferCount = UInt32(count)
            try check(vk.vkAllocateCommandBuffers(device, &allocate, &allocated), "vkAllocateCommandBuffers")
        } catch {
            vk.vkDestroySemaphore(device, semaphore, nil)
            vk.vkDestroyCommandPool(device, commandPool, nil)
            throw error
        }
        timeline = semaphore
        buffers = allocated.map { $0! }
        ledger = SharedWaits.currentLedger
    }

    /// Its submissions from now on are for the job of `ledger` (nil: no
    /// job's): a recorder made for one job and kept for the next one.
    public func chargeQueueWaits(to ledger: WaitLedger?) {
        completedLock.lock()
        self.ledger = ledger
        completedLock.unlock()
    }

    /// Runs `body`, which may wait for other jobs' work on the device (a
    /// driver that waits for the whole device, as lavapipe's query reads
    /// do), off the clock of this recorder's job (`QueueOrder`).
    public func offTheClock<T>(_ body: () throws -> T) rethrows -> T {
        guard let ledger = currentLedger else { return try body() }
        return try ledger.waiting(body)
    }

    private var currentLedger: WaitLedger? {
        completedLock.lock()
        defer { completedLock.unlock() }
        return ledger
    }

    deinit {
        let vk = context.vk
        let device = context.device
        // Neither this recorder's submissions nor other recorders' that wait
        // on its timeline may be pending when the semaphore goes, and seeing
        // a value signalled is not the driver being done with it: Mesa's
        // emulated timelines (lavapipe) release a submission's wait points
        // on its submit thread after the signal, and a destroy in between
        // crashed that thread (CheckSharedSessionTests' failed-lane test: 3
        // runs in 110 with MESA_VK_ENABLE_SUBMIT_THREAD=1, none in 264 with
        // this wait). An idle device has finished and let go of both.
        // Other jobs' work on the device is not this recorder's job's time.
        if let waits = ledger ?? SharedWaits.currentLedger {
            waits.waiting { context.waitUntilIdle() }
        } else {
            context.waitUntilIdle()
        }
        submitted = [:]
        vk.vkDestroySemaphore(device, timeline, nil)
        vk.vkDestroyCommandPool(device, pool, nil)
    }

    /// Whether the submission of `value` has completed, asking the device
    /// when no wait has seen it yet.
    func hasCompleted(_ value: UInt64) -> Bool {
        guard completedValue < value else { return true }
        let reached = counter(of: timeline)
        guard reached >= value, reached != .max else { return false }
        completedLock.lock()
        completed = max(completed, reached)
        completedLock.unlock()
        return true
    }

    /// The highest value a `wait(for:)` has seen complete.
    var completedValue: UInt64 {
        completedLock.lock()
        defer { completedLock.unlock() }
        return completed
    }

    /// Starts recording into command buffer `index` (whose previous
    /// submission must have completed).
    public func begin(_ index: Int) throws -> CommandBuffer {
        let cb = buffers[index]
        try check(context.vk.vkResetCommandBuffer(cb, 0), "vkResetCommandBuffer")
        var begin = VkCommandBufferBeginInfo()
        begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO
        begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT.rawValue
        try check(context.vk.vkBeginCommandBuffer(cb, &begin), "vkBeginCommandBuffer")
        submitted[index] = nil
        return CommandBuffer(raw: cb, recorder: self, slot: index)
    }

    /// Ends and submits `commands`; returns the timeline value that signals
    /// its completion. It first waits, at the stage of their first use, for
    /// the work on other queues that wrote or read what it uses.
    @discardableResult
    public func submit(_ commands: CommandBuffer) throws -> UInt64 {
        try submit(commands, swapchainImage: nil)
    }

    /// As `submit`; `swapchainImage`, for a frame written into a swapchain
    /// image: the binary semaphore its acquisition signals (waited for at
    /// the transfer stage, where the image is first written) and the one
    /// the present waits for (signalled too).
    @discardableResult
    func submit(_ commands: CommandBuffer, swapchainImage: (acquired: VkSemaphore, rendered: VkSemaphore)?) throws
        -> UInt64
    {
        precondition(commands.recorder === self)
        commands.makeWritesVisibleToHost()
        let vk = context.vk
        var cb: VkCommandBuffer? = commands.raw
        try check(vk.vkEndCommandBuffer(cb), "vkEndCommandBuffer")
        let value = submittedValue + 1
        var signalSemaphores: [VkSemaphore?] = [timeline] + (swapchainImage.map { [$0.rendered] } ?? [])
        // A binary semaphore's value is ignored, but the arrays must match.
        var signalValues = [value] + (swapchainImage.map { _ in [0] } ?? [])
        // One wait per other timeline: its latest value implies the earlier ones.
        var latest: [ObjectIdentifier: (recorder: CommandRecorder, value: UInt64, stages: VkPipelineStageFlags)] = [:]
        for (submission, stage) in commands.waits {
            guard let recorder = submission.recorder else { continue }
            let key = ObjectIdentifier(recorder)
            let known = latest[key]
            latest[key] = (recorder, max(known?.value ?? 0, submission.value), (known?.stages ?? 0) | stage.flags)
        }
        var waitSemaphores: [VkSemaphore?] =
            latest.values.map(\.recorder.timeline) + (swapchainImage.map { [$0.acquired] } ?? [])
        let waitValues = latest.values.map(\.value) + (swapchainImage.map { _ in [0] } ?? [])
        var waitStages =
            latest.values.map(\.stages) + (swapchainImage.map { _ in [PipelineStage.transfer.flags] } ?? [])
        var place: UInt64 = 0
        var timelineInfo = VkTimelineSemaphoreSubmitInfo()
        timelineInfo.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO
        timelineInfo.signalSemaphoreValueCount = UInt32(signalValues.count)
        timelineInfo.waitSemaphoreValueCount = UInt32(waitValues.count)
        let status: VkResult = signalValues.withUnsafeMutableBufferPointer { valuePointer in
            timelineInfo.pSignalSemaphoreValues = UnsafePointer(valuePointer.baseAddress)
            return waitValues.withUnsafeBufferPointer { waitValuePointer in
                timelineInfo.pWaitSemaphoreValues = waitValuePointer.baseAddress
                return withUnsafePointer(to: &timelineInfo) { timelinePointer in
                    withUnsafePointer(to: &cb) { bufferPointer in
                        signalSemaphores.withUnsafeMutableBufferPointer { semaphorePointer in
                            waitSemaphores.withUnsafeMutableBufferPointer { waitPointer in
                                waitStages.withUnsafeMutableBufferPointer { stagePointer in
                                    var submit = VkSubmitInfo()
                                    submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO
                                    submit.pNext = UnsafeRawPointer(timelinePointer)
                                    submit.commandBufferCount = 1
                                    submit.pCommandBuffers = bufferPointer
                                    submit.signalSemaphoreCount = UInt32(semaphorePointer.count)
                                    submit.pSignalSemaphores = UnsafePointer(semaphorePointer.baseAddress)
                                    submit.waitSemaphoreCount = UInt32(waitPointer.count)
                                    submit.pWaitSemaphores = UnsafePointer(waitPointer.baseAddress)
                                    submit.pWaitDstStageMask = UnsafePointer(stagePointer.baseAddress)
                                    context.submitLock.lock()
                                    defer { context.submitLock.unlock() }
                                    place = order.place()
                                    return vk.vkQueueSubmit(queue, 1, &submit, nil)
                                }
                            }
                        }
                    }
                }
            }
        }
        try check(status, "vkQueueSubmit")
        if let ledger = currentLedger { order.record(self, value: value, place: place, owner: ledger) }
        submittedValue = value
        commands.submission.value = value
        submitted[commands.slot] = commands
        return value
    }

    /// A batch the GPU has not finished in this long is reported, not waited
    /// for forever: a hung device must not hang the tool.
    static let timeoutNanoseconds: UInt64 = 60_000_000_000

    public func wait(for value: UInt64) throws {
        if let ledger = currentLedger, completedValue < value {
            let ahead = order.ahead(of: self, value: value)
            if !ahead.isEmpty { try ledger.waiting { try waitWhile(ahead, areAheadOf: value) } }
        }
        var semaphore = timeline
        var target = value
        var info = VkSemaphoreWaitInfo()
        info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO
        info.semaphoreCount = 1
        try withUnsafePointer(to: &semaphore) { semaphorePointer in
            try withUnsafePointer(to: &target) { valuePointer in
                info.pSemaphores = semaphorePointer
                info.pValues = valuePointer
                let result = context.vk.vkWaitSemaphores(context.device, &info, Self.timeoutNanoseconds)
                if result == VK_TIMEOUT {
                    throw VulkanError.call(
                        "vkWaitSemaphores: the GPU did not finish a batch within \(Self.timeoutNanoseconds / 1_000_000_000) s",
                        result.rawValue)
                }
                try check(result, "vkWaitSemaphores")
            }
        }
        completedLock.lock()
        completed = max(completed, value)
        completedLock.unlock()
    }

    /// Waits until every submission of `ahead` has completed, or this
    /// recorder's `value` has (on a GPU that overlapped them).
    private func waitWhile(_ ahead: [(recorder: CommandRecorder, value: UInt64)], areAheadOf value: UInt64) throws {
        let vk = context.vk
        var pending = ahead
        while !pending.isEmpty {
            let semaphores = [timeline] + pending.map(\.recorder.timeline)
            let values = [value] + pending.map(\.value)
            var info = VkSemaphoreWaitInfo()
            info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO
            info.flags = VK_SEMAPHORE_WAIT_ANY_BIT.rawValue
            info.semaphoreCount = UInt32(semaphores.count)
            let result = semaphores.withUnsafeBufferPointer { semaphorePointer in
                values.withUnsafeBufferPointer { valuePointer in
                    info.pSemaphores = semaphorePointer.baseAddress
                    info.pValues = valuePointer.baseAddress
                    return vk.vkWaitSemaphores(context.device, &info, Self.timeoutNanoseconds)
                }
            }
            // A timeout or a lost device is the plain wait's to report.
            guard result == VK_SUCCESS, !hasCompleted(value) else { return }
            pending.removeAll { $0.recorder.hasCompleted($0.value) }
        }
    }

    private func counter(of semaphore: VkSemaphore?) -> UInt64 {
        var reached: UInt64 = 0
        guard context.vk.vkGetSemaphoreCounterValue(context.device, semaphore, &reached) == VK_SUCCESS else {
            return .max
        }
        return reached
    }
}
