import CVulkan

/// The VK_KHR_present_id and VK_KHR_present_wait feature structs, queried
/// and then chained into device creation with both features on. Heap
/// allocated so the chain's pointers stay valid across the calls.
///
/// Thread-safety: used by the one thread making a context.
final class PresentFeatures {
    private let presentID = UnsafeMutablePointer<VkPhysicalDevicePresentIdFeaturesKHR>.allocate(capacity: 1)
    private let presentWait = UnsafeMutablePointer<VkPhysicalDevicePresentWaitFeaturesKHR>.allocate(capacity: 1)

    init() {
        presentID.initialize(to: VkPhysicalDevicePresentIdFeaturesKHR())
        presentID.pointee.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_ID_FEATURES_KHR
        presentWait.initialize(to: VkPhysicalDevicePresentWaitFeaturesKHR())
        presentWait.pointee.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_WAIT_FEATURES_KHR
        presentID.pointee.pNext = UnsafeMutableRawPointer(presentWait)
    }

    deinit {
        presentID.deallocate()
        presentWait.deallocate()
    }

    /// Whether the device has both features (the extensions alone do not promise them).
    func supported(_ physical: VkPhysicalDevice, _ vki: VulkanInstanceFunctions) -> Bool {
        var features = VkPhysicalDeviceFeatures2()
        features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2
        features.pNext = UnsafeMutableRawPointer(presentID)
        vki.vkGetPhysicalDeviceFeatures2(physical, &features)
        return presentID.pointee.presentId != 0 && presentWait.pointee.presentWait != 0
    }

    /// The chain to hang off the device's feature structs (after `supported`
    /// said yes, both features are set).
    var chain: UnsafeMutableRawPointer { UnsafeMutableRawPointer(presentID) }
}
