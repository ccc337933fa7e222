// Tracing, the monotonic clock, JSON, path bytes, hashes and the settings
// live below the ProRes modules (GPUKit uses them too); every user of
// ProResCore sees them as before.
@_exported import HostSupport
