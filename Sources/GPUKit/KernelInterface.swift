/// A compute shader's whole interface with the host, declared once in Swift:
/// its compile-time facts, storage-buffer bindings, push-constant block and
/// the table layouts it reads. The GLSL declarations (`glslPrelude`, put in
/// front of the hand-written `.comp` body) and the host's packing (std430
/// offsets, bit fields) both come from this one value, so the two sides
/// cannot drift (libplacebo's `pl_shader` variables and `pl_std430_layout`
/// are the model).
public struct KernelInterface: Sendable {
    /// `Shaders/<shader>`: the body, which names only what this declares.
    public let shader: String
    /// Compile-time facts, emitted as `#define NAME VALUE`.
    public var defines: [(name: String, value: String)]
    public let bindings: [BufferBinding]
    public let push: PushLayout
    public let tables: [TableLayout]
    /// Invocations a workgroup (x; y and z are 1), when the host's dispatch
    /// depends on it; nil leaves the size to the shader.
    public let workgroupSize: Int?

    public init(
        shader: String, workgroupSize: Int? = nil, defines: [(name: String, value: String)] = [],
        bindings: [BufferBinding],
        push: PushLayout = .none, tables: [TableLayout] = []
    ) {
        self.shader = shader
        self.workgroupSize = workgroupSize
        self.defines = defines
        self.bindings = bindings
        self.push = push
        self.tables = tables
    }

    /// Everything the shader body relies on, in GLSL: defines, buffer blocks
    /// (binding i = bindings[i]), the push block and the table accessors.
    public var glslPrelude: String {
        var lines = ["// Generated from the Swift KernelInterface of \(shader): do not edit here."]
        lines += defines.map { "#define \($0.name) \($0.value)" }
        if let workgroupSize { lines.append("layout(local_size_x = \(workgroupSize)) in;") }
        for (index, binding) in bindings.enumerated() { lines.append(binding.glsl(index: index)) }
        if let block = push.glsl { lines.append(block) }
        for table in tables { lines.append(table.glsl) }
        return lines.joined(separator: "\n")
    }

    /// Workgroups along x that cover `invocations` (the declared size).
    public func groups(covering invocations: Int) -> Int {
        guard let size = workgroupSize else { preconditionFailure("\(shader) declares no workgroup size") }
        return (invocations + size - 1) / size
    }

    /// A key naming this variant (the shader and its facts) for pipeline caches.
    public var variantKey: String { shader + defines.map { "|\($0.name)=\($0.value)" }.joined() }
}

/// One storage buffer of a kernel, at the binding of its position.
public struct BufferBinding: Sendable {
    public enum Access: Sendable { case read, write, readWrite }
    /// The GLSL instance name the body uses (`bitstream.bytes[i]`).
    public let name: String
    public let access: Access
    /// The block's member, e.g. `uint bytes[]`.
    public let member: String
    public let comment: String

    public init(_ name: String, _ access: Access, _ member: String, _ comment: String) {
        self.name = name
        self.access = access
        self.member = member
        self.comment = comment
    }

    func glsl(index: Int) -> String {
        let qualifier: String
        switch access {
        case .read: qualifier = "readonly "
        case .write: qualifier = "writeonly "
        case .readWrite: qualifier = ""
        }
        let typeName = name.upperFirst + "Buffer"
        return
            "// \(comment)\nlayout(std430, binding = \(index)) \(qualifier)buffer \(typeName) { \(member); } \(name);"
    }
}

/// The std430 types a push-constant field can have.
public enum GLSLType: String, Sendable {
    case uint, int, float, vec4

    var size: Int { self == .vec4 ? 16 : 4 }
}

/// The push-constant block of a kernel: fields in order with std430
/// offsets, the GLSL block, and the bytes for a set of values.
public struct PushLayout: Sendable {
    public struct Field: Sendable {
        public let name: String
        public let type: GLSLType
        public let comment: String
        public let offset: Int
    }

    public let blockName: String
    public let fields: [Field]
    /// Bytes of the block (a multiple of 4).
    public let size: Int

    public static let none = PushLayout(blockName: "", fields: [])

    /// `fields`: (name, type, comment) in order.
    public init(blockName: String, fields: [(String, GLSLType, String)]) {
        self.blockName = blockName
        var offset = 0
        var laid: [Field] = []
        for (name, type, comment) in fields {
            offset = (offset + type.size - 1) / type.size * type.size  // std430: scalars 4, vec4 16
            laid.append(Field(name: name, type: type, comment: comment, offset: offset))
            offset += type.size
        }
        self.fields = laid
        size = offset
    }

    var glsl: String? {
        guard !fields.isEmpty else { return nil }
        let body = fields.map { field in
            "    \(field.type.rawValue) \(field.name);".padding(toLength: 32, withPad: " ", startingAt: 0)
                + "// offset \(String(field.offset).leftPadding(3)): \(field.comment)"
        }
        return (["layout(push_constant, std430) uniform \(blockName) {"] + body + ["} pc;"]).joined(separator: "\n")
    }

    /// Packs one block. `values` has one entry per field, in order: a
    /// `PushValue` of the field's type (checked).
    public func bytes(_ values: [PushValue]) -> [UInt8] {
        precondition(values.count == fields.count, "\(blockName): \(values.count) values for \(fields.count) fields")
        var bytes = [UInt8](repeating: 0, count: size)
        bytes.withUnsafeMutableBytes { raw in
            for (field, value) in zip(fields, values) {
                let at = raw.baseAddress! + field.offset
                switch (field.type, value) {
                case (.uint, .uint(let v)): at.storeBytes(of: v, as: UInt32.self)
                case (.int, .int(let v)): at.storeBytes(of: v, as: Int32.self)
                case (.float, .float(let v)): at.storeBytes(of: v, as: Float.self)
                case (.vec4, .vec4(let v)): for i in 0..<4 { (at + 4 * i).storeBytes(of: v[i], as: Float.self) }
                default: preconditionFailure("\(blockName).\(field.name) is a \(field.type.rawValue), given \(value)")
                }
            }
        }
        return bytes
    }
}

/// One push-constant value; its case must match its field's type.
public enum PushValue: Sendable {
    case uint(UInt32)
    case int(Int32)
    case float(Float)
    case vec4(SIMD4<Float>)

    public static func uint(_ value: Int) -> PushValue { .uint(UInt32(value)) }
    public static func float(_ value: Double) -> PushValue { .float(Float(value)) }
    public static func vec4(_ xyz: SIMD3<Double>, _ w: Double) -> PushValue {
        .vec4(SIMD4(Float(xyz.x), Float(xyz.y), Float(xyz.z), Float(w)))
    }
}

extension String {
    /// `sliceQscale` from `slice` + `qscale`: generated GLSL names are camel case.
    var upperFirst: String { prefix(1).uppercased() + dropFirst() }
}
