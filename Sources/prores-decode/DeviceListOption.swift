import ProResGPU
import ProResOptions

extension OptionSpec {
    /// `--device` where several GPUs can be driven at once (`check`, `bench`): a list must name each device once.
    static func checkDeviceList(_ device: String?) throws {
        guard let list = DecoderSelection.deviceList(device) else { return }
        if list.contains(where: \.isEmpty) { throw UsageError("--device '\(device!)' has an empty entry: expected N,N,... or names") }
        if Set(list).count != list.count { throw UsageError("--device '\(device!)' names a device twice") }
    }
}
