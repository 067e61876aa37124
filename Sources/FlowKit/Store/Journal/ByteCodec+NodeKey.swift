import FlowBasics

extension ByteWriter {
    /// A node key as its hex string (``NodeKey/hex``), made in place.
    mutating func key(_ key: NodeKey) {
        count(64)
        key.appendHex(to: &bytes)
    }
}

extension ByteReader {
    /// A node key, written as its hex string (``NodeKey/hex``); `nil` for damage or anything but 64 hex digits.
    mutating func key() -> NodeKey? {
        field { NodeKey(hexDigits: $0) }
    }
}
