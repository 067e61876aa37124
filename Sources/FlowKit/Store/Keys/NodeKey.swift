import Crypto
import FlowBasics
import Foundation

/// The identity of a node's result: SHA-256 over the canonical encoding of everything that decides its output
/// (see ``NodeKeyInputs``). Equal keys mean the same work; a change anywhere upstream changes every key below it.
///
/// Held as the digest's 32 bytes, inline: a plan of 200,000 kept nodes, and the records of a journal, keep no
/// string per key. The journal and the report write it as hex (``hex``).
package struct NodeKey: Sendable, Hashable, CustomStringConvertible {
    /// The digest's bytes, eight at a time, big-endian (the hex digits read in order).
    private let high: UInt64, upperMiddle: UInt64, lowerMiddle: UInt64, low: UInt64

    /// The digest's first eight bytes: as evenly spread as SHA-256 makes them, a hash table's slot without hashing.
    var leadingBits: UInt64 { high }

    /// The key of a digest.
    init(_ digest: SHA256Digest) {
        (high, upperMiddle, lowerMiddle, low) = digest.withUnsafeBytes { raw in
            (
                UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)),
                UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self)),
                UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
            )
        }
    }

    /// Reads a key written as 64 hex digits (either case); `nil` for anything else.
    package init?(hex: some StringProtocol) {
        self.init(hexDigits: hex.utf8)
    }

    /// Reads a key from the UTF-8 of 64 hex digits; `nil` for anything else.
    init?(hexDigits: some Collection<UInt8>) {
        guard hexDigits.count == 64,
            let words = hexDigits.withContiguousStorageIfAvailable(Self.words(ofHexDigits:))
                ?? Self.words(ofHexDigits: Array(hexDigits))
        else { return nil }
        (high, upperMiddle, lowerMiddle, low) = words
    }

    private static func words(ofHexDigits digits: [UInt8]) -> (UInt64, UInt64, UInt64, UInt64)? {
        digits.withUnsafeBufferPointer(words(ofHexDigits:))
    }

    /// The four words of 64 hex digits; `nil` when one is not a hex digit. Without a branch per digit: a journal
    /// read parses a key and a digest a record, and which digits are letters is a coin toss to the processor.
    private static func words(ofHexDigits digits: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64, UInt64, UInt64)? {
        var valid = true
        func word(_ start: Int) -> UInt64 {
            var word: UInt64 = 0
            for digit in digits[start..<start + 16] {
                let decimal = digit &- UInt8(ascii: "0")
                let letter = (digit | 0x20) &- UInt8(ascii: "a")
                let isDecimal = decimal < 10
                valid = valid && (isDecimal || letter < 6)
                word = word << 4 | UInt64(isDecimal ? decimal : letter &+ 10)
            }
            return word
        }
        let words = (word(0), word(16), word(32), word(48))
        return valid ? words : nil
    }

    /// The digest as 64 lowercase hex digits.
    package var hex: String {
        String(unsafeUninitializedCapacity: 64) { buffer in
            writeHex(into: UnsafeMutableBufferPointer(rebasing: buffer[0..<64]))
            return 64
        }
    }

    /// Appends the 64 hex digits of ``hex`` to `bytes`, making no string.
    func appendHex(to bytes: inout [UInt8]) {
        // Written on the stack and appended as one copy: appending 64 repeated zeros to fill in goes element by
        // element, and every key computed before a run appends its upstream keys so.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { digits in
            writeHex(into: digits)
            bytes.append(contentsOf: UnsafeBufferPointer(digits))
        }
    }

    private func writeHex(into buffer: UnsafeMutableBufferPointer<UInt8>) {
        // Word by word, with no array of the words: every record journaled writes its key and its upstream keys.
        Self.writeHex(high, into: buffer, at: 0)
        Self.writeHex(upperMiddle, into: buffer, at: 16)
        Self.writeHex(lowerMiddle, into: buffer, at: 32)
        Self.writeHex(low, into: buffer, at: 48)
    }

    private static func writeHex(_ word: UInt64, into buffer: UnsafeMutableBufferPointer<UInt8>, at start: Int) {
        for nibble in 0..<16 {
            let value = UInt8(truncatingIfNeeded: word >> UInt64(60 - 4 * nibble)) & 0xF
            buffer[start + nibble] = value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
        }
    }

    package var description: String { hex }
}

/// Everything that goes into a node key, kept field by field so the store can say which one changed.
///
/// Not in a key, because they change how a node runs and never what it produces: its queue, priority, retries,
/// timeout and `continueOnError`, and the node's id (two nodes with the same inputs do the same work).
package struct NodeKeyInputs: Sendable, Equatable {
    /// Bumped when the store's encoding or its decisions change; older journals then miss.
    /// 2: a duration parameter is encoded as its number of seconds (`1s`, `1000ms` and `1` alike).
    package static let storeFormatVersion = "2"

    /// The task type's name.
    package var type: String
    /// The task type's ``TaskType/implementationVersion``.
    package var implementation: String
    /// The run options that change outputs, e.g. `optimize=true`.
    package var options: [String]
    /// The resolved parameters (after `--param`, `${…}` and defaults), by name, sorted, each canonically
    /// encoded (``canonical(_:)``).
    package var parameters: [Parameter]
    /// The upstream nodes' ids and keys, in input order.
    package var upstream: [Upstream]
    /// What a source node reads from outside the workflow.
    package var source: String?

    /// One parameter in canonical form.
    package struct Parameter: Sendable, Equatable {
        package var name: String
        package var value: String
    }

    /// One upstream node.
    package struct Upstream: Sendable, Equatable {
        package var node: String
        package var key: NodeKey
    }

    /// The first field of every key's encoding.
    private static let keyDomain = "flowrun-node-key \(storeFormatVersion)"

    /// The key: SHA-256 over the length-prefixed fields (``ByteWriter``), so no two different inputs encode alike.
    package var key: NodeKey {
        var scratch = ByteWriter()
        let prefix = Self.keyPrefix(
            type: type, implementation: implementation, options: options, parameters: parameters,
            encodingIn: &scratch)
        return key(after: prefix, encodingIn: &scratch)
    }

    /// The key's hash over the fields the nodes of a task share (all but the upstream keys and the source),
    /// encoded in `scratch` (emptied first): hashed once per task, each node's key goes on from a copy.
    static func keyPrefix(
        type: String, implementation: String, options: [String], parameters: [Parameter],
        encodingIn scratch: inout ByteWriter
    ) -> SHA256 {
        scratch.bytes.removeAll(keepingCapacity: true)
        encodeTaskFields(
            type: type, implementation: implementation, options: options, parameters: parameters, into: &scratch)
        return keyPrefix(taskFields: scratch.bytes)
    }

    /// The key's hash over a task's fields already encoded (``encodeTaskFields(type:implementation:options:parameters:into:)``).
    static func keyPrefix(taskFields: [UInt8]) -> SHA256 {
        var hash = SHA256()
        keyDomainBytes.withUnsafeBytes { hash.update(bufferPointer: $0) }
        taskFields.withUnsafeBytes { hash.update(bufferPointer: $0) }
        return hash
    }

    /// ``keyDomain`` as the key encodes it, first.
    private static let keyDomainBytes: [UInt8] = {
        var writer = ByteWriter()
        writer.string(keyDomain)
        return writer.bytes
    }()

    /// The fields the nodes of a task share, in the one order both the key and the journal (``encode(into:)``)
    /// write them.
    static func encodeTaskFields(
        type: String, implementation: String, options: [String], parameters: [Parameter], into out: inout ByteWriter
    ) {
        encodeTaskHead(type: type, implementation: implementation, options: options, into: &out)
        encodeParameters(parameters, into: &out)
    }

    /// The task fields after the head: the node's canonical parameters, counted.
    static func encodeParameters(_ parameters: [Parameter], into out: inout ByteWriter) {
        out.count(parameters.count)
        for parameter in parameters {
            out.string(parameter.name)
            out.string(parameter.value)
        }
    }

    /// The task fields ahead of the parameters: the same for every node of a task in a run.
    static func encodeTaskHead(type: String, implementation: String, options: [String], into out: inout ByteWriter) {
        out.string(type)
        out.string(implementation)
        out.count(options.count)
        for option in options { out.string(option) }
    }

    /// The key, going on from the hash of its task's shared fields (``keyPrefix(type:implementation:options:parameters:encodingIn:)``
    /// of this node's) with its upstream keys and source, encoded in `scratch` (emptied first).
    func key(after prefix: SHA256, encodingIn scratch: inout ByteWriter) -> NodeKey {
        Self.key(after: prefix, upstream: upstream.lazy.map(\.key), source: source, encodingIn: &scratch)
    }

    /// The key of a node's inputs from its parts alone, as ``key(after:encodingIn:)`` computes it: a node whose
    /// record has its key needs no ``NodeKeyInputs`` made.
    static func key(
        after prefix: SHA256, upstream: some Collection<NodeKey>, source: String?, encodingIn scratch: inout ByteWriter
    ) -> NodeKey {
        scratch.bytes.removeAll(keepingCapacity: true)
        scratch.count(upstream.count)
        for key in upstream { scratch.key(key) }
        scratch.optionalString(source)
        var hash = prefix
        scratch.bytes.withUnsafeBytes { hash.update(bufferPointer: $0) }
        return NodeKey(hash.finalize())
    }

    /// A value in canonical form, as its declared type reads it: JSON-like, numbers in their shortest exact form
    /// (`1` and `1.0` of a number parameter alike), a duration as its seconds (`2m` and `120s` alike), map keys
    /// sorted. Also what `--explain` shows (`0.8 → 0.5`).
    ///
    /// Its bytes are hashed into every store key, so they never change: strings go through ``JSONWriter``'s
    /// escaper (the `.controls` rule, fixed for this reason), but a value is not written as a ``JSONValue``: its
    /// form depends on the declared type (a duration as its seconds), and a number that is not finite is `nan` or
    /// `inf` here where JSON has `null`.
    package static func canonical(_ value: Value, as type: ParameterSpec.ValueType? = nil) -> String {
        if case .duration? = type, let duration = Duration(parameter: value) {
            return canonical(duration.parameterValue)
        }
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .int(let number):
            if case .number? = type { return canonical(.double(Double(number))) }
            return String(number)
        case .double(let number):
            if number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
            return "\(number)"
        case .string(let text): return quoted(text)
        case .list(let items): return "[" + items.map { canonical($0) }.joined(separator: ",") + "]"
        case .map(let map):
            let entries = map.sorted { $0.key < $1.key }.map { quoted($0.key) + ":" + canonical($0.value) }
            return "{" + entries.joined(separator: ",") + "}"
        }
    }

    /// A string as a JSON literal: the report's escaping (``JSONWriter/quoted(_:)``), so one rule serves both.
    private static func quoted(_ text: String) -> String {
        String(decoding: JSONWriter.quoted(text), as: UTF8.self)
    }
}
