import ProResOptions
import ProResPipeline

extension SharedOptions {
    /// `--device` where several GPUs can be driven at once (`check`, `bench`): a list must name each device once.
    static func checkDeviceList(_ device: String?) throws {
        guard let list = DecoderSelection.deviceList(device) else { return }
        if list.contains(where: \.isEmpty) {
            throw UsageError("--device '\(device!)' has an empty entry: expected N,N,... or names")
        }
        if Set(list).count != list.count { throw UsageError("--device '\(device!)' names a device twice") }
    }

    /// `--device` where one device is used (decoding, `play`): a list is refused rather than cut to its first entry.
    static func checkSingleDevice(_ device: String?) throws {
        guard DecoderSelection.deviceList(device) != nil else { return }
        throw UsageError(
            "--device '\(device!)' lists several devices: decoding one stream uses one (lists are for check and bench)")
    }
}
