/// Where a device sits on the PCI bus (VK_EXT_pci_bus_info), named the way
/// sysfs names it: `/sys/bus/pci/devices/0000:3b:00.0`.
public struct PCIAddress: Sendable, Equatable, CustomStringConvertible {
    public let domain: UInt32
    public let bus: UInt32
    public let device: UInt32
    public let function: UInt32

    public init(domain: UInt32, bus: UInt32, device: UInt32, function: UInt32) {
        self.domain = domain
        self.bus = bus
        self.device = device
        self.function = function
    }

    /// "DDDD:BB:DD.F" in lower-case hex.
    public var description: String {
        func hex(_ value: UInt32, _ digits: Int) -> String {
            let text = String(value, radix: 16)
            return String(repeating: "0", count: max(0, digits - text.count)) + text
        }
        return "\(hex(domain, 4)):\(hex(bus, 2)):\(hex(device, 2)).\(hex(function, 1))"
    }
}
