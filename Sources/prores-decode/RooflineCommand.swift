import ProResCore
import ProResFFmpeg
import GPUKit
import ProResGPU
import ProResPipeline


/// `prores-decode roofline [--device N|NAME] [--json]`: the GPU's measured
/// ceilings and the conversion shader against them (BENCHMARKS.md).
enum RooflineCommand {
    static let options: [OptionSpec] = [.value("--device"), .value("--frames"), .flag("--json"), .flag("--validate")]

    static func run(_ arguments: [String]) throws -> ExitCode {
        let parsed = try ParsedArguments(arguments, accepting: options)
        guard parsed.positionals.isEmpty else { throw UsageError("unexpected argument '\(parsed.positionals[0])'") }
        let context = try VulkanContext(options: .init(device: parsed.string("--device"), validation: parsed.flag("--validate")))
        let result = try VulkanRoofline.measure(context: context, frames: try parsed.integer("--frames", in: 8...10000) ?? 40)
        let gb = 1e9
        let rows = result.conversions.map { c -> (String, Double, Double, Double, String) in
            let bandwidth = Double(c.bytes) / (c.microseconds / 1e6)
            return (c.layout.rawValue, c.microseconds, bandwidth / gb, bandwidth / result.deviceCopyBytesPerSecond, c.transfer)
        }
        let upload = result.uploadMicroseconds.map { Double(result.uploadBytes) / ($0 / 1e6) }
        if parsed.flag("--json") {
            Console.standardOutput(JSON.object([
                ("device", JSON.string(result.device)),
                ("device_copy_gbps", JSON.number(result.deviceCopyBytesPerSecond / gb, digits: 2)),
                ("transfer_copy_gbps", JSON.number(result.transferCopyBytesPerSecond / gb, digits: 2)),
                ("host_to_device_gbps", result.hostToDeviceBytesPerSecond.map { JSON.number($0 / gb, digits: 2) } ?? "null"),
                ("conversions", JSON.array(rows.map { JSON.object([("layout", JSON.string($0.0)), ("transfer", JSON.string($0.4)), ("gpu_us", JSON.number($0.1, digits: 1)),
                                                                   ("gbps", JSON.number($0.2, digits: 2)), ("of_roofline", JSON.number($0.3, digits: 3))]) })),
                ("upload_us", result.uploadMicroseconds.map { JSON.number($0, digits: 1) } ?? "null"),
                ("upload_gbps", upload.map { JSON.number($0 / gb, digits: 2) } ?? "null"),
                ("upload_of_host_to_device", zip2(upload, result.hostToDeviceBytesPerSecond).map { JSON.number($0 / $1, digits: 3) } ?? "null"),
            ]) + "\n")
        } else {
            var text = "device: \(result.device)\n"
            text += "device memory (copy shader, read+write): \(JSON.number(result.deviceCopyBytesPerSecond / gb, digits: 1)) GB/s\n"
            text += "device memory (vkCmdCopyBuffer, read+write): \(JSON.number(result.transferCopyBytesPerSecond / gb, digits: 1)) GB/s\n"
            text += "host → device (imported host memory): \(result.hostToDeviceBytesPerSecond.map { JSON.number($0 / gb, digits: 1) + " GB/s" } ?? "n/a")\n"
            for row in rows {
                text += "convert 3840x2160 \(row.0) \(row.4) → RGBA16F: \(JSON.number(row.1, digits: 1)) µs, \(JSON.number(row.2, digits: 1)) GB/s, \(JSON.number(row.3 * 100, digits: 1))% of the device-copy roofline\n"
            }
            if let upload, let host = result.hostToDeviceBytesPerSecond {
                text += "per-frame upload (y416, \(result.uploadBytes) bytes): \(JSON.number(upload / gb, digits: 1)) GB/s, \(JSON.number(upload / host * 100, digits: 1))% of host → device\n"
            }
            Console.standardOutput(text)
        }
        return .success
    }

    private static func zip2(_ a: Double?, _ b: Double?) -> (Double, Double)? {
        guard let a, let b else { return nil }
        return (a, b)
    }
}
