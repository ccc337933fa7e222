import CVulkan
import Foundation
import HostSupport

/// A Vulkan instance and logical device with the queues we use: the
/// MTLDevice + MTLCommandQueue of Apple's pipeline.
// @unchecked: the handles are immutable after init; queue submissions are serialised by `submitLock`.
public final class VulkanContext: @unchecked Sendable {
    public let info: VulkanDeviceInfo
    let instance: VkInstance
    let physicalDevice: VkPhysicalDevice
    let device: VkDevice
    let vki: VulkanInstanceFunctions
    package let vk: VulkanDeviceFunctions
    let computeQueue: VkQueue
    let computeFamily: UInt32
    /// A queue of a transfer-only family (a DMA engine of a discrete GPU),
    /// when there is one: copies submitted there run beside the compute
    /// work instead of between it.
    package let transferQueue: VkQueue?
    let transferFamily: UInt32?
    /// Valid bits of the transfer queue's timestamps; 0 means none.
    let transferTimestampValidBits: UInt32
    let memoryProperties: VkPhysicalDeviceMemoryProperties
    package let minImportedHostPointerAlignment: Int
    /// Valid bits of the compute queue's timestamps; 0 means no GPU timing.
    let timestampValidBits: UInt32
    /// Messages from the validation layer, when it is enabled.
    public let validation: ValidationLog?
    /// What a context made for presenting (`Options.presentation`) enabled.
    public let presentation: Presentation?
    /// Kernels report what the driver compiled them to (`PipelineStatistics`).
    let capturesPipelineStatistics: Bool
    private var messenger: VkDebugUtilsMessengerEXT?

    /// The settings its options carried (`Options.tuning`).
    public let tuning: Tuning

    /// Serialises queue submissions (vkQueueSubmit needs external sync).
    let submitLock = NSLock()
    /// Each queue's submissions on behalf of jobs with clocks of their own.
    let computeOrder = QueueOrder()
    let transferOrder = QueueOrder()
    /// The bytes this device's buffers hold.
    public let memory = MemoryLedger()

    public struct Options: Sendable {
        /// `--device N|NAME`; nil picks a discrete GPU, else integrated, else lavapipe.
        public var device: String?
        /// Enable VK_LAYER_KHRONOS_validation and record every message.
        public var validation: Bool
        /// With `validation`, the layer's synchronisation checks too: a
        /// hazard between commands that no barrier orders. Debian 12's layer
        /// (1.3.239) checks within each command buffer; across submissions
        /// the waits are ours to get right (`ResourceState`), and lavapipe,
        /// which runs submissions in order, would not show a missing one.
        /// `PRORES_DECODE_VALIDATION=sync` turns both on.
        public var synchronizationValidation: Bool
        /// Use a transfer-only queue where the device has one.
        public var transferQueue: Bool
        /// Enable window presentation (`play`): the surface extensions on the
        /// instance, VK_KHR_swapchain on the device. Off, nothing changes.
        public var presentation: Bool
        /// Only a hardware device (discrete, integrated, virtual), else
        /// `VulkanError.noHardwareDevice`: `--decoder auto` asks in one
        /// instance instead of listing the devices in one and making the
        /// context in another (an instance costs the NVIDIA driver ~70 ms).
        public var hardwareOnly = false
        /// Print each kernel's compiled statistics (registers, shared
        /// memory, as the driver names them) to stderr where the device
        /// offers VK_KHR_pipeline_executable_properties:
        /// `PRORES_DECODE_PIPELINE_STATS=1`, for kernel work (a register
        /// more or less decides how many invocations an SM keeps resident).
        public var pipelineStatistics: Bool
        /// The caller's settings, which the context's kernels and caches
        /// follow (`PRORES_DECODE_SHADERS`, `_PIPELINE_CACHE`, the cache's
        /// home); `validation`, `synchronizationValidation` and
        /// `pipelineStatistics` start from them unless given.
        public var tuning: Tuning

        public init(
            device: String? = nil,
            validation: Bool? = nil,
            synchronizationValidation: Bool? = nil,
            transferQueue: Bool = true,
            presentation: Bool = false,
            tuning: Tuning = .defaults
        ) {
            self.device = device
            self.validation = validation ?? (tuning.validation != .off)
            self.synchronizationValidation = synchronizationValidation ?? (tuning.validation == .synchronization)
            self.transferQueue = transferQueue
            self.presentation = presentation
            pipelineStatistics = tuning.pipelineStatistics
            self.tuning = tuning
        }
    }

    /// The optional presentation extensions that were offered and enabled.
    public struct Presentation: Sendable {
        /// VK_EXT_swapchain_colorspace: surfaces may offer HDR and extended colour spaces.
        public let colorSpaces: Bool
        /// VK_KHR_present_id + VK_KHR_present_wait: the host learns when a frame was shown.
        public let presentWait: Bool
        /// VK_EXT_hdr_metadata: mastering metadata can go with PQ frames.
        public let hdrMetadata: Bool
    }

    /// Lists every physical device without creating a logical one.
    public static func devices() throws -> [VulkanDeviceInfo] {
        let (instance, vki, _, _, _) = try makeInstance(validation: false, presentation: false)
        defer { vki.vkDestroyInstance(instance, nil) }
        return try physicalDevices(instance, vki).enumerated().map { try describe($1, index: $0, vki) }
    }

    public init(options: Options = .init()) throws {
        let (instance, vki, validation, messenger, colorSpaces) = try Trace.span("vulkan instance") {
            try Self.makeInstance(
                validation: options.validation, synchronization: options.synchronizationValidation,
                presentation: options.presentation)
        }
        self.instance = instance
        self.vki = vki
        self.validation = validation
        self.messenger = messenger
        tuning = options.tuning
        do {
            let (physical, deviceInfo) = try Self.choose(from: Self.candidates(instance, vki), options)
            physicalDevice = physical
            info = deviceInfo
            guard deviceInfo.timelineSemaphores else {
                throw VulkanError.missingFeature("timelineSemaphore (Vulkan 1.2)")
            }

            memoryProperties = Self.memoryProperties(physical, vki)

            let families = Self.queueFamilies(physical, vki)
            guard let compute = families.firstIndex(where: { $0.queueFlags & VK_QUEUE_COMPUTE_BIT.rawValue != 0 })
            else {
                throw VulkanError.noDevice("\(deviceInfo.name) has no compute queue")
            }
            let family = UInt32(compute)
            computeFamily = family
            timestampValidBits = families[compute].timestampValidBits
            // Only a discrete GPU copies between host and device memory.
            let transfer =
                options.transferQueue && deviceInfo.kind == .discrete
                ? families.firstIndex(where: Self.isTransferOnly) : nil
            transferFamily = transfer.map(UInt32.init)
            transferTimestampValidBits = transfer.map { families[$0].timestampValidBits } ?? 0

            var extensions: [String] = []
            let presentFeatures = PresentFeatures()
            defer { withExtendedLifetime(presentFeatures) {} }
            if options.presentation {
                let (presenting, enabled) = try Self.presentation(
                    physical, deviceInfo, vki, colorSpaces: colorSpaces, features: presentFeatures)
                extensions += presenting
                presentation = enabled
            } else {
                presentation = nil
            }
            if deviceInfo.hostMemoryImport {
                extensions += ["VK_KHR_external_memory", "VK_EXT_external_memory_host"]
            }
            let statistics =
                options.pipelineStatistics
                && Self.deviceExtensions(physical, vki).contains("VK_KHR_pipeline_executable_properties")
            if statistics { extensions.append("VK_KHR_pipeline_executable_properties") }
            capturesPipelineStatistics = statistics
            minImportedHostPointerAlignment =
                deviceInfo.hostMemoryImport ? Self.importedHostPointerAlignment(physical, vki) : 0

            let device = try Self.makeDevice(
                physical, deviceInfo, vki, queueFamilies: [family] + (transferFamily.map { [$0] } ?? []),
                extensions: extensions, statistics: statistics,
                presentChain: presentation?.presentWait == true ? presentFeatures.chain : nil)
            self.device = device!
            let functions = try VulkanDeviceFunctions(instance: vki, device: device!, presentation: presentation)
            vk = functions
            var queue: VkQueue?
            functions.vkGetDeviceQueue(device, family, 0, &queue)
            computeQueue = queue!
            transferQueue = transferFamily.flatMap { transferFamily in
                var transfer: VkQueue?
                functions.vkGetDeviceQueue(device, transferFamily, 0, &transfer)
                return transfer
            }
        } catch {
            if let messenger, let destroy = vki.vkDestroyDebugUtilsMessengerEXT { destroy(instance, messenger, nil) }
            vki.vkDestroyInstance(instance, nil)
            throw error
        }
    }

    /// The logical device on `physical`: a queue of each of `queueFamilies`
    /// (compute first), timeline semaphores, 16-bit storage where offered,
    /// `extensions`, and the features `statistics` and `presentChain` add.
    private static func makeDevice(
        _ physical: VkPhysicalDevice, _ deviceInfo: VulkanDeviceInfo, _ vki: VulkanInstanceFunctions,
        queueFamilies: [UInt32], extensions: [String], statistics: Bool, presentChain: UnsafeMutableRawPointer?
    ) throws -> VkDevice? {
        var executableFeatures = VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR()
        executableFeatures.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR
        executableFeatures.pipelineExecutableInfo = VkBool32(VK_TRUE)
        var priorities: [Float] = [1]
        let queueInfos = queueFamilies.map { ($0, 1) }
        var queueInfo = VkDeviceQueueCreateInfo()
        queueInfo.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO
        var features12 = VkPhysicalDeviceVulkan12Features()
        features12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES
        features12.timelineSemaphore = VkBool32(VK_TRUE)
        features12.hostQueryReset = VkBool32(deviceInfo.hostQueryReset ? VK_TRUE : VK_FALSE)
        var features11 = VkPhysicalDeviceVulkan11Features()
        features11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES
        features11.storageBuffer16BitAccess = VkBool32(deviceInfo.storage16Bit ? VK_TRUE : VK_FALSE)
        features11.pNext = presentChain
        var device: VkDevice?
        let result: VkResult = priorities.withUnsafeMutableBufferPointer { priorityPointer in
            queueInfo.pQueuePriorities = UnsafePointer(priorityPointer.baseAddress)
            let infos = queueInfos.map { family, count -> VkDeviceQueueCreateInfo in
                var info = queueInfo
                info.queueFamilyIndex = family
                info.queueCount = UInt32(count)
                return info
            }
            return infos.withUnsafeBufferPointer { queuePointer in
                withUnsafeMutablePointer(to: &features11) { features11Pointer in
                    withUnsafeMutablePointer(to: &executableFeatures) { executablePointer in
                        executablePointer.pointee.pNext = UnsafeMutableRawPointer(features11Pointer)
                        features12.pNext =
                            statistics
                            ? UnsafeMutableRawPointer(executablePointer)
                            : UnsafeMutableRawPointer(features11Pointer)
                        return withUnsafeMutablePointer(to: &features12) { featuresPointer in
                            withCStrings(extensions) { names in
                                var create = VkDeviceCreateInfo()
                                create.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO
                                create.pNext = UnsafeRawPointer(featuresPointer)
                                create.queueCreateInfoCount = UInt32(infos.count)
                                create.pQueueCreateInfos = queuePointer.baseAddress
                                create.enabledExtensionCount = UInt32(extensions.count)
                                create.ppEnabledExtensionNames = names
                                return Trace.span("vulkan device") {
                                    vki.vkCreateDevice(physical, &create, nil, &device)
                                }
                            }
                        }
                    }
                }
            }
        }
        try check(result, "vkCreateDevice(\(deviceInfo.name))")
        return device
    }

    /// Every physical device `instance` offers, described.
    private static func candidates(_ instance: VkInstance, _ vki: VulkanInstanceFunctions) throws
        -> [(VkPhysicalDevice, VulkanDeviceInfo)]
    {
        try Trace.span("vulkan devices enumerated") {
            try physicalDevices(instance, vki).enumerated().map { ($1, try describe($1, index: $0, vki)) }
        }
    }

    private static func memoryProperties(_ physical: VkPhysicalDevice, _ vki: VulkanInstanceFunctions)
        -> VkPhysicalDeviceMemoryProperties
    {
        var memory = VkPhysicalDeviceMemoryProperties()
        vki.vkGetPhysicalDeviceMemoryProperties(physical, &memory)
        return memory
    }

    /// The queue families of `physical`, in their index order.
    private static func queueFamilies(_ physical: VkPhysicalDevice, _ vki: VulkanInstanceFunctions)
        -> [VkQueueFamilyProperties]
    {
        var familyCount: UInt32 = 0
        vki.vkGetPhysicalDeviceQueueFamilyProperties(physical, &familyCount, nil)
        var families = [VkQueueFamilyProperties](repeating: .init(), count: Int(familyCount))
        vki.vkGetPhysicalDeviceQueueFamilyProperties(physical, &familyCount, &families)
        return families
    }

    /// The device `options` ask for among `candidates`: a hardware one,
    /// the one `device` names, else the best kind there is.
    private static func choose(from candidates: [(VkPhysicalDevice, VulkanDeviceInfo)], _ options: Options) throws
        -> (VkPhysicalDevice, VulkanDeviceInfo)
    {
        if options.hardwareOnly {
            let hardware = candidates.filter { $0.1.isHardware && options.device.map($0.1.matches) ?? true }
            guard let best = hardware.min(by: { $0.1.kind.rank < $1.1.kind.rank }) else {
                throw VulkanError.noHardwareDevice(candidates.map(\.1.name))
            }
            return best
        } else if candidates.isEmpty {
            throw VulkanError.noDevice(
                "the Vulkan loader found no devices (is a driver such as mesa-vulkan-drivers installed?)")
        } else if let selector = options.device {
            guard let match = candidates.first(where: { $0.1.matches(selector) }) else {
                throw VulkanError.noMatchingDevice(
                    selector: selector, candidates: candidates.map { "\($0.1.index): \($0.1.name)" })
            }
            return match
        } else if let best = candidates.min(by: { $0.1.kind.rank < $1.1.kind.rank }) {
            return best
        }
        throw VulkanError.noDevice("the Vulkan loader found no devices")
    }

    /// The device extensions a presenting context enables, and what they give.
    private static func presentation(
        _ physical: VkPhysicalDevice, _ deviceInfo: VulkanDeviceInfo, _ vki: VulkanInstanceFunctions,
        colorSpaces: Bool, features: PresentFeatures
    ) throws -> (extensions: [String], presentation: Presentation) {
        let offered = deviceExtensions(physical, vki)
        guard offered.contains("VK_KHR_swapchain") else {
            throw VulkanError.noPresentation("\(deviceInfo.name) offers no VK_KHR_swapchain")
        }
        var extensions = ["VK_KHR_swapchain"]
        let presentWait =
            offered.contains("VK_KHR_present_id") && offered.contains("VK_KHR_present_wait")
            && features.supported(physical, vki)
        if presentWait { extensions += ["VK_KHR_present_id", "VK_KHR_present_wait"] }
        let hdrMetadata = colorSpaces && offered.contains("VK_EXT_hdr_metadata")
        if hdrMetadata { extensions.append("VK_EXT_hdr_metadata") }
        return (extensions, Presentation(colorSpaces: colorSpaces, presentWait: presentWait, hdrMetadata: hdrMetadata))
    }

    /// VK_EXT_external_memory_host's alignment of an imported host pointer.
    private static func importedHostPointerAlignment(_ physical: VkPhysicalDevice, _ vki: VulkanInstanceFunctions)
        -> Int
    {
        var hostProps = VkPhysicalDeviceExternalMemoryHostPropertiesEXT()
        hostProps.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT
        return Int(extendedProperties(hostProps, of: physical, vki).minImportedHostPointerAlignment)
    }

    /// `extension` (its `sType` set) as vkGetPhysicalDeviceProperties2 fills
    /// it in, chained alone.
    private static func extendedProperties<Extension>(
        _ extension: Extension, of physical: VkPhysicalDevice, _ vki: VulkanInstanceFunctions
    ) -> Extension {
        var filled = `extension`
        var props = VkPhysicalDeviceProperties2()
        props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2
        withUnsafeMutablePointer(to: &filled) {
            props.pNext = UnsafeMutableRawPointer($0)
            vki.vkGetPhysicalDeviceProperties2(physical, &props)
        }
        return filled
    }

    /// Waits until the device has finished every submission (no new one
    /// can start meanwhile: submissions take `submitLock`).
    public func waitUntilIdle() {
        submitLock.lock()
        defer { submitLock.unlock() }
        _ = vk.vkDeviceWaitIdle(device)
    }

    deinit {
        _ = vk.vkDeviceWaitIdle(device)
        vk.vkDestroyDevice(device, nil)
        if let messenger, let destroy = vki.vkDestroyDebugUtilsMessengerEXT { destroy(instance, messenger, nil) }
        vki.vkDestroyInstance(instance, nil)
    }

    /// A memory type allowed by `bits` with all of `flags`, preferring `preferred` too.
    func memoryType(bits: UInt32, required flags: VkMemoryPropertyFlags, preferred: VkMemoryPropertyFlags = 0)
        -> UInt32?
    {
        let types = withUnsafeBytes(of: memoryProperties.memoryTypes) {
            Array($0.bindMemory(to: VkMemoryType.self).prefix(Int(memoryProperties.memoryTypeCount)))
        }
        let allowed = types.indices.filter { bits & (1 << UInt32($0)) != 0 && types[$0].propertyFlags & flags == flags }
        return (allowed.first { types[$0].propertyFlags & preferred == preferred } ?? allowed.first).map(UInt32.init)
    }

    // MARK: - Instance

    /// The instance; with `presentation`, the surface extensions too, and
    /// whether VK_EXT_swapchain_colorspace was offered (and so enabled).
    private static func makeInstance(validation wantValidation: Bool, synchronization: Bool = false, presentation: Bool)
        throws
        -> (VkInstance, VulkanInstanceFunctions, ValidationLog?, VkDebugUtilsMessengerEXT?, Bool)
    {
        let loader = try VulkanLoader.shared.get()
        var version: UInt32 = 0
        _ = loader.vkEnumerateInstanceVersion(&version)
        guard version >= PD_VK_API_VERSION_1_2 else {
            throw VulkanError.loaderMissing(
                "the Vulkan loader is version \(pd_vk_version_major(version)).\(pd_vk_version_minor(version)); 1.2 or newer is needed"
            )
        }
        var layers: [String] = []
        var extensions: [String] = []
        if wantValidation {
            try requireValidationLayer(loader)
            layers = ["VK_LAYER_KHRONOS_validation"]
            extensions = ["VK_EXT_debug_utils"]
        }
        var colorSpaces = false
        if presentation {
            let surface = try surfaceExtensions(loader)
            colorSpaces = surface.colorSpaces
            extensions += surface.extensions
        }
        var instance: VkInstance?
        var enables = [VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT]
        var features = VkValidationFeaturesEXT()
        features.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT
        features.enabledValidationFeatureCount = 1
        let result: VkResult = "prores-decode".withCString { appName in
            var app = VkApplicationInfo()
            app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO
            app.pApplicationName = appName
            app.pEngineName = appName
            app.apiVersion = PD_VK_API_VERSION_1_3 <= version ? PD_VK_API_VERSION_1_3 : PD_VK_API_VERSION_1_2
            return withUnsafePointer(to: &app) { appPointer in
                withCStrings(layers) { layerNames in
                    withCStrings(extensions) { extensionNames in
                        var create = VkInstanceCreateInfo()
                        create.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO
                        create.pApplicationInfo = appPointer
                        create.enabledLayerCount = UInt32(layers.count)
                        create.ppEnabledLayerNames = layerNames
                        create.enabledExtensionCount = UInt32(extensions.count)
                        create.ppEnabledExtensionNames = extensionNames
                        guard wantValidation && synchronization else {
                            return loader.vkCreateInstance(&create, nil, &instance)
                        }
                        return enables.withUnsafeMutableBufferPointer { enabled in
                            features.pEnabledValidationFeatures = UnsafePointer(enabled.baseAddress)
                            return withUnsafePointer(to: &features) { chained in
                                create.pNext = UnsafeRawPointer(chained)
                                return loader.vkCreateInstance(&create, nil, &instance)
                            }
                        }
                    }
                }
            }
        }
        if result == VK_ERROR_INCOMPATIBLE_DRIVER {
            throw VulkanError.noDevice(
                "no Vulkan driver is installed (VK_ERROR_INCOMPATIBLE_DRIVER); on a machine without a GPU install mesa-vulkan-drivers for lavapipe"
            )
        }
        try check(result, "vkCreateInstance")
        let vki = try VulkanInstanceFunctions(loader: loader, instance: instance!, presentation: presentation)
        guard wantValidation else { return (instance!, vki, nil, nil, colorSpaces) }
        let log = ValidationLog()
        let messenger = try log.attach(instance: instance!, vki)
        return (instance!, vki, log, messenger, colorSpaces)
    }

    /// Throws unless the loader offers the Khronos validation layer.
    private static func requireValidationLayer(_ loader: VulkanLoader) throws {
        var count: UInt32 = 0
        _ = loader.vkEnumerateInstanceLayerProperties(&count, nil)
        var available = [VkLayerProperties](repeating: .init(), count: Int(count))
        _ = loader.vkEnumerateInstanceLayerProperties(&count, &available)
        guard available.contains(where: { string(fromCArray: $0.layerName) == "VK_LAYER_KHRONOS_validation" }) else {
            throw VulkanError.missingExtension("VK_LAYER_KHRONOS_validation (install vulkan-validationlayers)")
        }
    }

    /// The instance extensions a presenting context enables, and whether
    /// VK_EXT_swapchain_colorspace is among them.
    private static func surfaceExtensions(_ loader: VulkanLoader) throws -> (extensions: [String], colorSpaces: Bool) {
        var count: UInt32 = 0
        _ = loader.vkEnumerateInstanceExtensionProperties(nil, &count, nil)
        var available = [VkExtensionProperties](repeating: .init(), count: Int(count))
        _ = loader.vkEnumerateInstanceExtensionProperties(nil, &count, &available)
        let offered = Set(available.map { string(fromCArray: $0.extensionName) })
        for needed in ["VK_KHR_surface", "VK_KHR_xcb_surface"] where !offered.contains(needed) {
            throw VulkanError.noPresentation("the Vulkan loader offers no \(needed)")
        }
        let colorSpaces = offered.contains("VK_EXT_swapchain_colorspace")
        return (
            ["VK_KHR_surface", "VK_KHR_xcb_surface"] + (colorSpaces ? ["VK_EXT_swapchain_colorspace"] : []), colorSpaces
        )
    }

    static func deviceExtensions(_ physical: VkPhysicalDevice, _ vki: VulkanInstanceFunctions) -> Set<String> {
        var count: UInt32 = 0
        _ = vki.vkEnumerateDeviceExtensionProperties(physical, nil, &count, nil)
        var extensions = [VkExtensionProperties](repeating: .init(), count: Int(count))
        _ = vki.vkEnumerateDeviceExtensionProperties(physical, nil, &count, &extensions)
        return Set(extensions.map { string(fromCArray: $0.extensionName) })
    }

    /// A queue family of copies only: a discrete GPU's DMA engines.
    private static func isTransferOnly(_ family: VkQueueFamilyProperties) -> Bool {
        family.queueFlags & VK_QUEUE_TRANSFER_BIT.rawValue != 0
            && family.queueFlags & (VK_QUEUE_COMPUTE_BIT.rawValue | VK_QUEUE_GRAPHICS_BIT.rawValue) == 0
    }

    private static func physicalDevices(_ instance: VkInstance, _ vki: VulkanInstanceFunctions) throws
        -> [VkPhysicalDevice]
    {
        var count: UInt32 = 0
        try check(vki.vkEnumeratePhysicalDevices(instance, &count, nil), "vkEnumeratePhysicalDevices")
        var devices = [VkPhysicalDevice?](repeating: nil, count: Int(count))
        try check(vki.vkEnumeratePhysicalDevices(instance, &count, &devices), "vkEnumeratePhysicalDevices")
        return devices.compactMap { $0 }
    }

    private static func describe(_ physical: VkPhysicalDevice, index: Int, _ vki: VulkanInstanceFunctions) throws
        -> VulkanDeviceInfo
    {
        var driver = VkPhysicalDeviceDriverProperties()
        driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES
        var subgroup = VkPhysicalDeviceSubgroupProperties()
        subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES
        var props = VkPhysicalDeviceProperties2()
        props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2
        withUnsafeMutablePointer(to: &subgroup) { subgroupPointer in
            driver.pNext = UnsafeMutableRawPointer(subgroupPointer)
            withUnsafeMutablePointer(to: &driver) { driverPointer in
                props.pNext = UnsafeMutableRawPointer(driverPointer)
                vki.vkGetPhysicalDeviceProperties2(physical, &props)
            }
        }
        var features12 = VkPhysicalDeviceVulkan12Features()
        features12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES
        var features11 = VkPhysicalDeviceVulkan11Features()
        features11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES
        var features = VkPhysicalDeviceFeatures2()
        features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2
        withUnsafeMutablePointer(to: &features11) { pointer11 in
            features12.pNext = UnsafeMutableRawPointer(pointer11)
            withUnsafeMutablePointer(to: &features12) { pointer in
                features.pNext = UnsafeMutableRawPointer(pointer)
                vki.vkGetPhysicalDeviceFeatures2(physical, &features)
            }
        }
        var extensionCount: UInt32 = 0
        _ = vki.vkEnumerateDeviceExtensionProperties(physical, nil, &extensionCount, nil)
        var extensions = [VkExtensionProperties](repeating: .init(), count: Int(extensionCount))
        _ = vki.vkEnumerateDeviceExtensionProperties(physical, nil, &extensionCount, &extensions)
        let extensionNames = Set(extensions.map { string(fromCArray: $0.extensionName) })
        var pciAddress: PCIAddress?
        if extensionNames.contains("VK_EXT_pci_bus_info") {
            var query = VkPhysicalDevicePCIBusInfoPropertiesEXT()
            query.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT
            let pci = extendedProperties(query, of: physical, vki)
            pciAddress = PCIAddress(
                domain: pci.pciDomain, bus: pci.pciBus, device: pci.pciDevice, function: pci.pciFunction)
        }
        var memory = VkPhysicalDeviceMemoryProperties()
        vki.vkGetPhysicalDeviceMemoryProperties(physical, &memory)
        let heaps = withUnsafeBytes(of: memory.memoryHeaps) {
            Array($0.bindMemory(to: VkMemoryHeap.self).prefix(Int(memory.memoryHeapCount)))
        }
        var familyCount: UInt32 = 0
        vki.vkGetPhysicalDeviceQueueFamilyProperties(physical, &familyCount, nil)
        var families = [VkQueueFamilyProperties](repeating: .init(), count: Int(familyCount))
        vki.vkGetPhysicalDeviceQueueFamilyProperties(physical, &familyCount, &families)
        let p = props.properties
        let api =
            "\(pd_vk_version_major(p.apiVersion)).\(pd_vk_version_minor(p.apiVersion)).\(pd_vk_version_patch(p.apiVersion))"
        return VulkanDeviceInfo(
            index: index, name: string(fromCArray: p.deviceName), kind: .init(p.deviceType),
            driverName: string(fromCArray: driver.driverName), driverInfo: string(fromCArray: driver.driverInfo),
            apiVersion: api,
            deviceLocalBytes: heaps.filter { $0.flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT.rawValue != 0 }.reduce(0) {
                $0 + $1.size
            },
            maxStorageBufferRange: UInt64(p.limits.maxStorageBufferRange),
            maxPushConstantsSize: Int(p.limits.maxPushConstantsSize),
            subgroupSize: Int(subgroup.subgroupSize),
            timestampPeriodNanoseconds: Double(p.limits.timestampPeriod),
            timelineSemaphores: features12.timelineSemaphore != 0,
            hostMemoryImport: extensionNames.contains("VK_EXT_external_memory_host"),
            separateTransferQueue: families.contains(where: isTransferOnly),
            storage16Bit: features11.storageBuffer16BitAccess != 0,
            hostQueryReset: features12.hostQueryReset != 0, pciAddress: pciAddress,
            pipelineCacheIdentity: PipelineCacheIdentity(
                vendorID: p.vendorID, deviceID: p.deviceID,
                uuid: withUnsafeBytes(of: p.pipelineCacheUUID) { Array($0) }))
    }
}

/// Runs `body` with a C array of C strings that lives for the call.
func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
    let duplicates = strings.map { strdup($0) }
    defer { duplicates.forEach { free($0) } }
    let pointers = duplicates.map { UnsafePointer<CChar>($0) }
    return pointers.withUnsafeBufferPointer { body($0.isEmpty ? nil : $0.baseAddress) }
}
