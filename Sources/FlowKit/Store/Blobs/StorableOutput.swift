import Crypto
import FlowBasics
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A node output the store can keep as a blob and give back bit for bit: what `cache: true` persists, and what
/// crosses from the shards to the gather phase of a split run.
///
/// A kind of output names its value type (``ProviderKind/valueType``): the store writes a node's output through
/// it and reads it back for the node's readers in a later run.
///
/// ## Implementation requirements
///
/// - Lossless: ``init(restoring:)`` of what ``store(into:)`` wrote gives back a value a consumer cannot tell from
///   the original (every field that any consumer reads, in the same order).
/// - ``storageTag`` names the encoding, with a version: bump it whenever the encoding changes, and blobs written
///   with another tag are not read (the node runs again).
/// - Write large arrays with ``BlobWriter/bytes(_:)``: they are streamed to the file, not copied.
/// - Test the round trip with FlowKitTesting's `StoredOutputs.roundTrip(_:)`.
///
/// ```swift
/// import FlowKitTesting
/// import Testing
///
/// struct Reading: StorableOutput, Equatable {
///     var sensor: String
///     var celsius: Double
///     static var storageTag: String { "reading 1" }
///
///     init(sensor: String, celsius: Double) {
///         self.sensor = sensor
///         self.celsius = celsius
///     }
///     init(restoring blob: inout BlobReader) throws(BlobError) {
///         sensor = try blob.string()
///         celsius = try blob.double()
///     }
///     func store(into blob: inout BlobWriter) throws(BlobError) {
///         blob.string(sensor)
///         blob.double(celsius)
///     }
/// }
///
/// @Test func aReadingReadsBackAsWritten() throws {
///     let reading = Reading(sensor: "t1", celsius: 21.5)
///     #expect(try StoredOutputs.roundTrip(reading) == reading)
/// }
/// ```
public protocol StorableOutput: Sendable {
    /// The encoding's name and version, e.g. `image 1`.
    static var storageTag: String { get }
    /// Writes the value.
    func store(into blob: inout BlobWriter) throws(BlobError)
    /// Reads a value written by ``store(into:)``.
    init(restoring blob: inout BlobReader) throws(BlobError)
    /// What a task type needs to know of a stored value, without reading it back, to tell whether it still serves
    /// the node's consumers (see ``TaskType/outputVariant(facts:consumers:optimize:)``); empty by default.
    var variantFacts: String { get }
}

extension StorableOutput {
    /// Empty: the value's key says all about it.
    public var variantFacts: String { "" }
}

/// Why a blob could not be written or read.
public struct BlobError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public let description: String

    /// Creates an error with its message.
    public init(_ description: String) { self.description = description }
}

/// Writes a blob's fields, in the store's compact encoding, to a file while hashing them (the blob's name is its
/// SHA-256): small fields are batched, large byte arrays go straight from the value to the file.
public struct BlobWriter {
    private var buffer = ByteWriter()
    private var hasher = SHA256()
    private let descriptor: Int32
    private var size: Int64 = 0
    private static let batchBytes = 1 << 20

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// A little-endian 64-bit integer.
    public mutating func integer(_ value: UInt64) { buffer.integer(value) }
    /// A count or small number (a varint).
    public mutating func count(_ value: Int) { buffer.count(value) }
    /// A length-prefixed UTF-8 string.
    public mutating func string(_ text: String) { buffer.string(text) }
    /// A `Double`, bit for bit.
    public mutating func double(_ value: Double) { buffer.integer(value.bitPattern) }

    /// A length-prefixed byte array, streamed to the file when large.
    public mutating func bytes(_ bytes: [UInt8]) throws(BlobError) {
        buffer.count(bytes.count)
        if bytes.count < Self.batchBytes / 4 {
            buffer.bytes.append(contentsOf: bytes)
            if buffer.bytes.count >= Self.batchBytes { try flush() }
            return
        }
        try flush()
        try emit(bytes)
    }

    /// An optional byte array: a flag, then the array.
    public mutating func optionalBytes(_ bytes: [UInt8]?) throws(BlobError) {
        count(bytes == nil ? 0 : 1)
        if let bytes { try self.bytes(bytes) }
    }

    /// Sends what is batched to the file.
    mutating func flush() throws(BlobError) {
        guard !buffer.bytes.isEmpty else { return }
        let batch = buffer.bytes
        buffer.bytes.removeAll(keepingCapacity: true)
        try emit(batch)
    }

    /// The SHA-256 and size of everything written, once flushed.
    mutating func finish() throws(BlobError) -> (sha256: String, size: Int64) {
        try flush()
        return (ContentDigest.hex(hasher.finalize()), size)
    }

    /// A writer that only hashes what it is given: the digest of a value as its blob would hold it, with no file
    /// (``OutputDigest``).
    static func hashing() -> BlobWriter { BlobWriter(descriptor: -1) }

    private mutating func emit(_ bytes: [UInt8]) throws(BlobError) {
        hasher.update(data: bytes)
        guard descriptor >= 0 else {
            size += Int64(bytes.count)
            return
        }
        let descriptor = descriptor
        let failure = bytes.withUnsafeBytes { raw -> Int32? in
            guard let base = raw.baseAddress else { return nil }
            var written = 0
            while written < raw.count {
                let result = write(descriptor, base + written, raw.count - written)
                if result < 0, errno == EINTR { continue }
                guard result > 0 else { return result < 0 ? errno : ENOSPC }
                written += result
            }
            return nil
        }
        if let failure { throw BlobError(String(cString: strerror(failure))) }
        size += Int64(bytes.count)
    }
}

/// Reads what a ``BlobWriter`` wrote; every read throws past the end or on a damaged length instead of trapping.
public struct BlobReader {
    private var input: ByteReader

    init(_ bytes: ArraySlice<UInt8>) {
        input = ByteReader(bytes)
    }

    /// Whether every byte was read.
    public var isAtEnd: Bool { input.isAtEnd }

    /// A little-endian 64-bit integer.
    public mutating func integer() throws(BlobError) -> UInt64 { try need(input.integer()) }
    /// A count.
    public mutating func count() throws(BlobError) -> Int { try need(input.count()) }
    /// A string.
    public mutating func string() throws(BlobError) -> String { try need(input.string()) }
    /// A `Double`.
    public mutating func double() throws(BlobError) -> Double { Double(bitPattern: try integer()) }
    /// A byte array.
    public mutating func bytes() throws(BlobError) -> [UInt8] { try need(input.byteArray()) }

    /// An optional byte array.
    public mutating func optionalBytes() throws(BlobError) -> [UInt8]? {
        switch try count() {
        case 0: return nil
        case 1: return try bytes()
        default: throw BlobError("a damaged field")
        }
    }

    private func need<T>(_ value: T?) throws(BlobError) -> T {
        guard let value else { throw BlobError("the blob ends early or a field is damaged") }
        return value
    }
}

extension DataPayload: StorableOutput {
    /// `data 1`.
    public static var storageTag: String { "data 1" }

    /// Writes the bytes.
    public func store(into blob: inout BlobWriter) throws(BlobError) {
        blob.string(source)
        try blob.bytes([UInt8](bytes))
    }

    /// Reads the bytes written by ``store(into:)``.
    public init(restoring blob: inout BlobReader) throws(BlobError) {
        let source = try blob.string()
        self.init(Data(try blob.bytes()), source: source)
    }
}
