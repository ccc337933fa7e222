import Foundation
import XCTest

@testable import GPUKit
@testable import ProResBench
@testable import ProResCore
@testable import ProResGPU
@testable import TestSupport

/// The generated GLSL and the Swift packing agree, checked by the GLSL
/// compiler and the GPU rather than by reading our own generator: a probe
/// shader reads every push-constant field and every table field through the
/// generated declarations and writes what it read; the host compares that
/// with the values it packed. Runs on lavapipe with the validation layer.
final class KernelInterfaceTests: XCTestCase {
    private static let context = Result { try VulkanContext(options: .init(validation: true)) }

    /// Every push block a kernel of ours uses.
    static let pushBlocks: [PushLayout] = [
        ConversionKernel.push, DecoderKernels.transformPush, MatrixEffectKernel.push, ChromaKeyKernel.push,
        LUTKernel.push,
        VulkanRoofline.copyKernel.push, FrameHashKernel.push, FrameStatisticsKernel.push, PresentKernel.interface.push,
    ]

    func testEveryPushBlockReadsBackAsPacked() throws {
        let seed = KernelTestSeed.seed(0x5EED_0F_9005)
        print("KernelInterfaceTests push blocks: seed 0x\(String(seed, radix: 16)) (KERNEL_TESTS_SEED)")
        var generator = KernelRandom(seed: seed)
        for push in Self.pushBlocks {
            var values: [PushValue] = []
            var expected: [UInt32] = []
            var reads: [String] = []
            for (index, field) in push.fields.enumerated() {
                // Every other field at an extreme, where a narrowed or shifted field shows.
                let extreme = index % 2 == 0
                switch field.type {
                case .uint:
                    let v = extreme ? UInt32.max : UInt32.random(in: 0...UInt32.max, using: &generator)
                    values.append(.uint(v))
                    expected.append(v)
                    reads.append("pc.\(field.name)")
                case .int:
                    let v = extreme ? Int32.min : Int32.random(in: Int32.min...Int32.max, using: &generator)
                    values.append(.int(v))
                    expected.append(UInt32(bitPattern: v))
                    reads.append("uint(pc.\(field.name))")
                case .float:
                    let v = extreme ? -Float.greatestFiniteMagnitude : Float.random(in: -1000...1000, using: &generator)
                    values.append(.float(v))
                    expected.append(v.bitPattern)
                    reads.append("floatBitsToUint(pc.\(field.name))")
                case .vec4:
                    let v = SIMD4<Float>((0..<4).map { _ in Float.random(in: -1000...1000, using: &generator) })
                    values.append(.vec4(v))
                    for (i, c) in ["x", "y", "z", "w"].enumerated() {
                        expected.append(v[i].bitPattern)
                        reads.append("floatBitsToUint(pc.\(field.name).\(c))")
                    }
                }
            }
            let interface = KernelInterface(
                shader: "probe.comp", bindings: [BufferBinding("probe", .write, "uint words[]", "what was read")],
                push: push)
            let got = try run(interface, body: reads, push: values, tables: [])
            XCTAssertEqual(got, expected, push.blockName)
        }
    }

    func testTableFieldsReadBackAsPacked() throws {
        typealias Slice = DecoderKernels.Slice
        typealias Frame = DecoderKernels.Frame
        let entries = 5
        let seed = KernelTestSeed.seed(0x7AB1E5)
        print("KernelInterfaceTests tables: seed 0x\(String(seed, radix: 16)) (KERNEL_TESTS_SEED)")
        var generator = KernelRandom(seed: seed)
        // Entry 0 holds every field's largest value, entry 1 zeros, the rest random.
        var entry = 0
        func random(_ field: BitField) -> Int {
            entry == 0
                ? Int(field.mask) : entry == 1 ? 0 : Int(UInt64.random(in: 0...UInt64(field.mask), using: &generator))
        }
        func randomWord() -> UInt32 {
            entry == 0 ? UInt32.max : entry == 1 ? 0 : UInt32.random(in: 0...UInt32.max, using: &generator)
        }
        var slices = [UInt32](repeating: 0, count: entries * Slice.layout.words)
        var frames = [UInt32](repeating: 0, count: entries * Frame.layout.words)
        var expected: [UInt32] = []
        var reads: [String] = []
        for index in 0..<entries {
            entry = index
            for field in Slice.layout.fields {
                let value = random(field)
                slices[entry * Slice.layout.words + field.word] |= field.encode(value)
                expected.append(UInt32(value))
                reads.append("slice\(capitalized(field.name))(loadSlice(\(entry)u))")
            }
            for field in Frame.layout.fields {
                let value = random(field)
                frames[entry * Frame.layout.words + field.word] |= field.encode(value)
                expected.append(UInt32(value))
                reads.append("frame\(capitalized(field.name))(\(entry)u)")
            }
            for array in Frame.layout.arrays {
                for k in 0..<array.count {
                    let value = randomWord()
                    frames[entry * Frame.layout.words + array.word + k] = value
                    expected.append(value)
                    reads.append("frame\(capitalized(array.name))(\(entry)u, \(k)u)")
                }
            }
        }
        let interface = KernelInterface(
            shader: "probe.comp",
            bindings: [
                BufferBinding("slices", .read, "uvec4 words[]", "slice table"),
                BufferBinding("frames", .read, "uint words[]", "frame table"),
                BufferBinding("probe", .write, "uint words[]", "what was read"),
            ], tables: [Slice.layout, Frame.layout])
        XCTAssertEqual(try run(interface, body: reads, push: [], tables: [slices, frames]), expected)
    }

    private func capitalized(_ name: StaticString) -> String { "\(name)".upperFirst }

    /// Declared fields pack at their own bits. (Overlapping or oversized
    /// declarations stop the process by precondition, which a test in this
    /// process cannot show.)
    func testDeclaredFieldsPackAtTheirBits() {
        XCTAssertEqual(DecoderKernels.Slice.qscale.encode(1023), 1023 << 8)
        XCTAssertEqual(DecoderKernels.Slice.valid.encode(true), 1 << 24)
        XCTAssertEqual(DecoderKernels.Frame.alphaBits.decode([0, 0, 0, 2]), 2)
    }

    /// Compiles `body` (one expression a line, each a uint written in
    /// order) behind `interface`'s prelude, runs one invocation with `push`
    /// and `tables` (the buffers before the probe binding), returns the words.
    private func run(_ interface: KernelInterface, body: [String], push: [PushValue], tables: [[UInt32]]) throws
        -> [UInt32]
    {
        let context = try Self.context.get()
        let directory = try makeTemporaryDirectory(self)
        let lines = body.enumerated().map { "    probe.words[\($0.offset)] = \($0.element);" }
        try (["#version 450", "layout(local_size_x = 1) in;", "// @interface", "void main() {"] + lines + ["}"])
            .joined(separator: "\n").write(
                to: directory.appendingPathComponent("probe.comp"), atomically: true, encoding: .utf8)
        let kernel = try Kernel(
            context: context, compiler: try ShaderCompiler(shaderDirectory: directory, cacheDirectory: nil),
            interface: interface)
        var buffers: [BufferRange] = []
        for table in tables {
            let buffer = try VulkanBuffer(context, size: table.count * 4, usage: .storage, memory: .host)
            table.withUnsafeBytes { buffer.mapped!.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            buffers.append(BufferRange(buffer))
        }
        let output = try VulkanBuffer(context, size: body.count * 4, usage: .storage, memory: .host)
        buffers.append(BufferRange(output))
        let recorder = try CommandRecorder(context: context, count: 1)
        let cb = try recorder.begin(0)
        cb.dispatch(kernel, set: try kernel.makeBindingSets(1)[0], buffers: buffers, push: push, groups: (1, 1, 1))
        try recorder.wait(for: try recorder.submit(cb))
        XCTAssertEqual(context.validation?.messages ?? [], [])
        return Array(UnsafeBufferPointer(start: output.mapped!.assumingMemoryBound(to: UInt32.self), count: body.count))
    }
}
