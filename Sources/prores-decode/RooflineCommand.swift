import GPUKit
import HostSupport
import ProResBench
import ProResCore
import ProResFFmpeg
import ProResGPU
import ProResOptions
import ProResPipeline

/// `prores-decode roofline`: the GPU's measured ceilings and the conversion
/// shader against them (docs/benchmarks.md).
enum RooflineCommand: Command {
    static let spec = CommandSpec(
        name: "roofline", operands: "", summary: "the GPU's bandwidth ceilings, conversion vs them",
        sections: [
            OptionSection(
                heading: "OPTIONS",
                options: [SharedOptions.device, Options.frames, Options.json, SharedOptions.validate])
        ],
        about: "Measures with GPU timestamps, on stdout: device memory bandwidth (a copy shader, and vkCmdCopyBuffer), "
            + "host-to-device bandwidth from imported host memory, the per-frame upload, and the conversion shader on 4K "
            + "frames for several layouts and transfer functions, each as a share of the device-copy roofline; then, by the "
            + "host's clock, how long allocating and freeing a gigabyte takes (device-local and host-visible memory, plain "
            + "and dedicated allocations; 64 MiB where the device uses the host's memory).")

    enum Options {
        static let frames = Option<Int>(
            "--frames", range: 8...10000, short: "4K frames per conversion measurement (40)",
            long: "4K frames each conversion measurement submits, 8 to 10000 (default 40; the first 3 warm up, "
                + "the median of the rest counts)")
        static let json = SharedOptions.json.explained(
            "print one JSON object instead of text", short: "print one JSON object instead of text")
    }

    struct Arguments: CommandArguments {
        let device: String?
        let frames: Int
        let json: Bool
        let validation: Bool

        init(_ parsed: ParsedArguments) throws {
            try parsed.none()
            device = try parsed[SharedOptions.device]
            frames = try parsed[Options.frames] ?? 40
            json = parsed[Options.json]
            validation = parsed[SharedOptions.validate]
        }
    }

    static func run(_ arguments: Arguments) throws -> ExitCode {
        let context = try VulkanContext(
            options: .init(device: arguments.device, validation: arguments.validation, tuning: ProcessSettings.tuning))
        // 26 s on lavapipe in silence otherwise: show it is moving.
        let progress = ProgressLine.onTerminal(
            unit: "measurement", total: VulkanRoofline.measurementCount, rateUnit: nil)
        let result: VulkanRoofline.Result
        do {
            result = try VulkanRoofline.measure(context: context, frames: arguments.frames) { done, _ in
                progress?.update(done, force: true)
            }
        } catch {
            progress?.clear()
            throw error
        }
        progress?.clear()
        let allocations = try AllocationTimings.measure(context: context)
        let gb = 1e9
        let rows = result.conversions.map { c -> ConversionRow in
            let bandwidth = Double(c.bytes) / (c.microseconds / 1e6)
            return (
                c.layout.rawValue, c.microseconds, bandwidth / gb, bandwidth / result.deviceCopyBytesPerSecond,
                c.transfer
            )
        }
        let upload = result.uploadMicroseconds.map { Double(result.uploadBytes) / ($0 / 1e6) }
        try Console.standardOutput(
            arguments.json
                ? json(result, rows, upload: upload, allocations: allocations) + "\n"
                : text(result, rows, upload: upload, allocations: allocations))
        return .success
    }

    /// One conversion's layout, GPU µs, GB/s, share of the device-copy roofline and transfer function.
    typealias ConversionRow = (String, Double, Double, Double, String)

    /// `--json`'s object.
    private static func json(
        _ result: VulkanRoofline.Result, _ rows: [ConversionRow], upload: Double?,
        allocations: [AllocationTimings.Row]
    ) -> String {
        let gb = 1e9
        return JSON.object([
            ("device", JSON.string(result.device)),
            ("device_copy_gbps", JSON.number(result.deviceCopyBytesPerSecond / gb, digits: 2)),
            ("transfer_copy_gbps", JSON.number(result.transferCopyBytesPerSecond / gb, digits: 2)),
            (
                "host_to_device_gbps",
                result.hostToDeviceBytesPerSecond.map { JSON.number($0 / gb, digits: 2) } ?? "null"
            ),
            (
                "conversions",
                JSON.array(
                    rows.map {
                        JSON.object([
                            ("layout", JSON.string($0.0)), ("transfer", JSON.string($0.4)),
                            ("gpu_us", JSON.number($0.1, digits: 1)),
                            ("gbps", JSON.number($0.2, digits: 2)),
                            ("of_roofline", JSON.number($0.3, digits: 3)),
                        ])
                    })
            ),
            ("upload_us", result.uploadMicroseconds.map { JSON.number($0, digits: 1) } ?? "null"),
            ("upload_gbps", upload.map { JSON.number($0 / gb, digits: 2) } ?? "null"),
            (
                "upload_of_host_to_device",
                zip2(upload, result.hostToDeviceBytesPerSecond).map { JSON.number($0 / $1, digits: 3) }
                    ?? "null"
            ),
            (
                "allocations",
                JSON.array(
                    allocations.map {
                        JSON.object([
                            ("shape", JSON.string($0.label)), ("bytes", "\($0.bytes)"),
                            ("allocate_ms", JSON.number($0.allocateMilliseconds, digits: 2)),
                            ("free_ms", JSON.number($0.freeMilliseconds, digits: 2)),
                        ])
                    })
            ),
        ])
    }

    /// The lines on a terminal.
    private static func text(
        _ result: VulkanRoofline.Result, _ rows: [ConversionRow], upload: Double?,
        allocations: [AllocationTimings.Row]
    ) -> String {
        let gb = 1e9
        var text = "device: \(result.device)\n"
        text +=
            "device memory (copy shader, read+write): \(JSON.number(result.deviceCopyBytesPerSecond / gb, digits: 1)) GB/s\n"
        text +=
            "device memory (vkCmdCopyBuffer, read+write): \(JSON.number(result.transferCopyBytesPerSecond / gb, digits: 1)) GB/s\n"
        text +=
            "host → device (imported host memory): \(result.hostToDeviceBytesPerSecond.map { JSON.number($0 / gb, digits: 1) + " GB/s" } ?? "n/a")\n"
        for row in rows {
            text +=
                "convert 3840x2160 \(row.0) \(row.4) → RGBA16F: \(JSON.number(row.1, digits: 1)) µs, \(JSON.number(row.2, digits: 1)) GB/s, \(JSON.number(row.3 * 100, digits: 1))% of the device-copy roofline\n"
        }
        if let upload, let host = result.hostToDeviceBytesPerSecond {
            text +=
                "per-frame upload (y416, \(result.uploadBytes) bytes): \(JSON.number(upload / gb, digits: 1)) GB/s, \(JSON.number(upload / host * 100, digits: 1))% of host → device\n"
        }
        for row in allocations {
            text +=
                "allocate \(row.bytes >> 20) MiB \(row.label): \(JSON.number(row.allocateMilliseconds, digits: 2)) ms, "
                + "free: \(JSON.number(row.freeMilliseconds, digits: 2)) ms\n"
        }
        return text
    }

    private static func zip2(_ a: Double?, _ b: Double?) -> (Double, Double)? {
        guard let a, let b else { return nil }
        return (a, b)
    }
}
