import CVulkan
import Foundation

/// One command buffer's place on its recorder's timeline: the value that
/// signals its completion, known once it is submitted.
///
/// Thread-safety: `value` is written once, by the submitting thread, before
/// any other thread can learn of the submission (through a buffer's state,
/// under that state's lock).
final class Submission: @unchecked Sendable {
    /// Weak: a recorder waits for all its work before it goes, so a
    /// submission whose recorder is gone has completed.
    weak var recorder: CommandRecorder?
    let queue: CommandRecorder.Queue
    var value: UInt64 = 0

    init(recorder: CommandRecorder) {
        self.recorder = recorder
        queue = recorder.queueKind
    }

    var isSubmitted: Bool { value != 0 || recorder == nil }
    var hasCompleted: Bool {
        guard let recorder else { return true }
        return value != 0 && recorder.completedValue >= value
    }
}

/// What a command must wait for before it may touch a resource.
struct Dependency {
    /// Stages of earlier commands in the same command buffer (a pipeline
    /// barrier), and the writes among them to make visible.
    var stages: VkPipelineStageFlags = 0
    var writes: VkAccessFlags = 0
    /// Earlier submissions, on any queue (a timeline-semaphore wait).
    var waits: [Submission] = []
}

/// A buffer's last write and the reads since, so that each use derives its
/// own barrier or wait (libplacebo's `vk_buf_barrier`): nothing is ordered
/// by hand, and the order between the decoder's and the converter's work
/// follows from the surfaces they share, not from sharing a queue.
///
/// Only uses within one command buffer are ordered by a pipeline barrier.
/// A use in an earlier submission, even on the same queue, is waited for on
/// that submission's timeline value instead: a barrier's execution scope is
/// every earlier command of its stages on the queue, so a barrier at the
/// start of the decoder's next batch (for buffers its slot last used three
/// batches ago) would also wait for the previous batch's transform, and the
/// GPU could never run one batch's entropy decoding beside another's
/// transform. A submission the host has seen complete needs no wait.
///
/// Thread-safety: all state is behind `lock`; recorders on several threads
/// may use one buffer (the decoder writes a surface batch, the converter
/// reads it).
final class ResourceState: @unchecked Sendable {
    private struct Use {
        let submission: Submission
        let stage: PipelineStage
    }

    private let lock = NSLock()
    private var lastWrite: Use?
    /// Stages to which `lastWrite` was made visible by a barrier in its own
    /// command buffer (the only place barriers go).
    private var visible: VkPipelineStageFlags = 0
    /// The latest read per recorder and stage since `lastWrite` (a later
    /// value of a recorder's timeline implies the earlier ones).
    private var reads: [Use] = []

    /// Records a use of the buffer by `submission` at `stage` and returns
    /// what must complete first.
    func use(by submission: Submission, at stage: PipelineStage, writes: Bool) -> Dependency {
        lock.lock()
        defer { lock.unlock() }
        var dependency = Dependency()
        if let write = lastWrite {
            if write.submission === submission {
                if visible & stage.flags != stage.flags {
                    dependency.stages |= write.stage.flags
                    dependency.writes |= write.stage.writeAccess
                    visible |= stage.flags
                }
            } else if !write.submission.hasCompleted {
                precondition(
                    write.submission.isSubmitted,
                    "a buffer was used before the command buffer that wrote it was submitted")
                dependency.waits.append(write.submission)
            }
        }
        if writes {
            // Write after read: the reads must be done before this overwrites.
            for read in reads {
                if read.submission === submission {
                    dependency.stages |= read.stage.flags
                } else if !read.submission.hasCompleted {
                    dependency.waits.append(read.submission)
                }
            }
            lastWrite = Use(submission: submission, stage: stage)
            visible = 0
            reads = []
        } else {
            reads.removeAll { $0.submission.recorder === submission.recorder && $0.stage == stage }
            reads.append(Use(submission: submission, stage: stage))
        }
        return dependency
    }
}
