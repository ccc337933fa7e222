import GPUKit
import HostSupport
import ProResCore
import ProResFFmpeg
import ProResGPU
import ProResOptions
import ProResPipeline

/// `prores-decode devices`: every Vulkan device with the facts that
/// decide whether and how we use it.
enum DevicesCommand: Command {
    static let spec = CommandSpec(
        name: "devices", operands: "", summary: "list Vulkan devices",
        sections: [
            OptionSection(
                heading: "OPTIONS",
                options: [Options.json])
        ],
        about:
            "Lists every Vulkan device on stdout with the facts that decide whether and how it is used: its index and "
            + "name (for --device), type, whether it is hardware, driver, memory, subgroup size, and the features the GPU "
            + "paths rely on; its PCI address, where the driver gives one, and the CPUs its decode sessions' threads are "
            + "pinned to (those of its NUMA node, on a host of several).")

    enum Options {
        static let json = SharedOptions.json.explained(
            "print one JSON array of devices instead of text", short: "print one JSON array of devices")
    }

    struct Arguments: CommandArguments {
        let json: Bool

        init(_ parsed: ParsedArguments) throws {
            try parsed.none()
            json = parsed[Options.json]
        }
    }

    static func run(_ arguments: Arguments) throws -> ExitCode {
        let devices = try VulkanContext.devices()
        if arguments.json {
            try Console.standardOutput(JSON.array(devices.map(json)) + "\n")
        } else {
            for d in devices {
                try Console.standardOutput(
                    """
                    \(d.index): \(d.name) (\(d.kind.rawValue)\(d.isHardware ? "" : ", not hardware"))
                       driver \(d.driverName) \(d.driverInfo), Vulkan \(d.apiVersion)
                       device-local memory \(d.deviceLocalBytes / (1 << 20)) MiB, storage buffers up to \(d.maxStorageBufferRange / (1 << 20)) MiB
                       subgroup \(d.subgroupSize), push constants \(d.maxPushConstantsSize) B, timestamp period \(d.timestampPeriodNanoseconds) ns
                       timeline semaphores \(d.timelineSemaphores ? "yes" : "no"), host memory import \(d.hostMemoryImport ? "yes" : "no"), transfer-only queue \(d.separateTransferQueue ? "yes" : "no"), 16-bit storage \(d.storage16Bit ? "yes" : "no")
                       PCI \(d.pciAddress.map { "\($0)" } ?? "address not given"), \(ThreadPlacement.forDevice(at: d.pciAddress).summary)

                    """)
            }
        }
        return .success
    }

    static func json(_ d: VulkanDeviceInfo) -> String {
        JSON.object([
            ("index", "\(d.index)"), ("name", JSON.string(d.name)), ("type", JSON.string(d.kind.rawValue)),
            ("hardware", d.isHardware ? "true" : "false"),
            ("driver", JSON.string(d.driverName)), ("driver_info", JSON.string(d.driverInfo)),
            ("api_version", JSON.string(d.apiVersion)),
            ("device_local_bytes", "\(d.deviceLocalBytes)"), ("max_storage_buffer_range", "\(d.maxStorageBufferRange)"),
            ("max_push_constants_size", "\(d.maxPushConstantsSize)"), ("subgroup_size", "\(d.subgroupSize)"),
            ("timestamp_period_ns", JSON.number(d.timestampPeriodNanoseconds, digits: 3)),
            ("timeline_semaphores", d.timelineSemaphores ? "true" : "false"),
            ("host_memory_import", d.hostMemoryImport ? "true" : "false"),
            ("transfer_queue", d.separateTransferQueue ? "true" : "false"),
            ("storage_16bit", d.storage16Bit ? "true" : "false"),
            ("pci_address", d.pciAddress.map { JSON.string("\($0)") } ?? "null"),
            // Where a decode session's threads would run on this host (NUMA placement).
            (
                "thread_cpus",
                ThreadPlacement.forDevice(at: d.pciAddress).cpus.map { JSON.string(CPUList.format($0)) } ?? "null"
            ),
        ])
    }
}
