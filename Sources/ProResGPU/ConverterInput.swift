import ProResCore

/// What the converter reads: a pooled host surface (imported through the
/// texture cache, copied to a discrete GPU's memory) or a frame the GPU
/// decoder left in device-local memory (read in place, no copy).
public enum ConverterInput {
    case host(PixelBuffer)
    case device(DeviceSurface)

    var layout: SurfaceLayout {
        switch self {
        case .host(let surface): return surface.layout
        case .device(let surface): return surface.layout
        }
    }

    /// A host surface goes back to its pool only once the GPU is done with
    /// it; a device surface is kept by the job holding it.
    func retainUse() { if case .host(let surface) = self { surface.retainUse() } }
    func releaseUse() { if case .host(let surface) = self { surface.releaseUse() } }
}
