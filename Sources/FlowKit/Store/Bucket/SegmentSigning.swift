import Crypto
import Foundation

/// The key that signs the segments a run uploads to a store in a bucket and that a reader checks them with
/// (HMAC-SHA256): with one, a machine trusts only what a holder of the same key recorded.
///
/// The key comes from `FLOWRUN_CACHE_KEY` (its text) or `FLOWRUN_CACHE_KEY_FILE` (a file's bytes, a trailing
/// newline dropped). A segment's signature is the object `SEGMENT.journal.hmac` beside it: the hex HMAC of the
/// segment's bytes. Only segments are signed: the records they hold name every blob and written file by its
/// SHA-256, and those are checked against it, so a signed segment vouches for them too.
package struct SegmentSigning: Sendable {
    private let key: SymmetricKey

    /// The suffix of a signature's object name, after the segment's.
    static let suffix = ".hmac"

    /// The key the environment gives; `nil` when it gives none.
    /// - Throws: ``SessionError/Code/storeUnavailable`` when `FLOWRUN_CACHE_KEY_FILE` cannot be read or either
    ///   is empty.
    package static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(SessionError) -> SegmentSigning?
    {
        var secret: Data
        if let text = environment["FLOWRUN_CACHE_KEY"] {
            secret = Data(text.utf8)
        } else if let path = environment["FLOWRUN_CACHE_KEY_FILE"] {
            do {
                secret = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw SessionError(
                    .storeUnavailable,
                    "cannot read the store's key FLOWRUN_CACHE_KEY_FILE=\(path): \(SessionError.reason(error)); "
                        + "nothing was run")
            }
            if secret.last == UInt8(ascii: "\n") { secret.removeLast() }
        } else {
            return nil
        }
        guard !secret.isEmpty else {
            throw SessionError(.storeUnavailable, "the store's key (FLOWRUN_CACHE_KEY) is empty; nothing was run")
        }
        return SegmentSigning(key: SymmetricKey(data: secret))
    }

    /// The signature of a segment's bytes: the hex HMAC-SHA256.
    package func signature(of bytes: Data) -> Data {
        let code = Data(HMAC<SHA256>.authenticationCode(for: bytes, using: key))
        return Data(code.map { String(format: "%02x", $0) }.joined().utf8)
    }

    /// Whether `signature` (a signature object's bytes) is this key's signature of `bytes`.
    package func isSigned(_ bytes: Data, by signature: Data?) -> Bool {
        guard let signature, let code = Self.bytes(ofHex: signature) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(code, authenticating: bytes, using: key)
    }

    private static func bytes(ofHex text: Data) -> Data? {
        guard text.count == 64 else { return nil }
        var bytes = Data(capacity: 32)
        var index = text.startIndex
        while index < text.endIndex {
            guard let high = nibble(text[index]), let low = nibble(text[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
