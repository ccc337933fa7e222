import Foundation
import HostSupport

/// The process's environment, read once, first thing (main.swift): the
/// `PRORES_DECODE_*` settings and the few other variables the tool reads
/// (docs/tuning.md). Every library gets what it needs of them passed in
/// (`DecoderSelection.tuning`, `VulkanContext.Options.tuning`, the bench's
/// options) and never reads the environment itself.
enum ProcessSettings {
    static let tuning = Tuning(environment: ProcessInfo.processInfo.environment)
}
