import Crypto
import Foundation

/// AWS Signature Version 4 for S3 (the "Authenticating Requests" section of the S3 API reference): the
/// canonical request, the string to sign, the signing key and the `Authorization` header.
struct S3Signer: Sendable {
    /// The request as signed: method, path as sent (percent-encoded), query and the headers to sign.
    struct Request {
        var method: String
        /// The path exactly as it goes on the wire, e.g. `/bucket/photos/a%20b.jpg`.
        var path: String
        /// Query parameters, not encoded.
        var query: [(name: String, value: String)]
        /// Headers to sign besides `host`, `x-amz-date` and `x-amz-content-sha256`, which ``sign(_:host:payloadHash:date:)`` adds.
        var headers: [String: String]
    }

    /// The SHA-256 of an empty body, the payload hash of every request without one.
    static let emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    let credentials: S3Credentials
    let region: String
    let service = "s3"

    /// The headers to send: the ones given plus `x-amz-date`, `x-amz-content-sha256`, the session token and
    /// `Authorization`. `host` is signed but not returned: the HTTP client sends it from the URL.
    func sign(_ request: Request, host: String, payloadHash: String, date: Date) -> [String: String] {
        let stamp = Self.timestamp(date)
        var headers = request.headers
        headers["x-amz-date"] = stamp
        headers["x-amz-content-sha256"] = payloadHash
        if let token = credentials.sessionToken { headers["x-amz-security-token"] = token }
        var signed = headers
        signed["host"] = host
        let canonical = canonicalRequest(request, headers: signed, payloadHash: payloadHash)
        let scope = "\(stamp.prefix(8))/\(region)/\(service)/aws4_request"
        let toSign = stringToSign(canonical: canonical, timestamp: stamp, scope: scope)
        let signature = self.signature(of: toSign, day: String(stamp.prefix(8)))
        let names = signed.keys.map { $0.lowercased() }.sorted().joined(separator: ";")
        headers["Authorization"] =
            "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(names), Signature=\(signature)"
        return headers
    }

    /// The canonical request: method, path, sorted query, sorted lower-cased headers, their names, payload hash.
    func canonicalRequest(_ request: Request, headers: [String: String], payloadHash: String) -> String {
        let query = request.query
            .map { (name: String, value: String) -> (String, String) in (Self.encode(name), Self.encode(value)) }
            .sorted(by: S3Signer.queryOrder)
            .map { "\($0.0)=\($0.1)" }
            .joined(separator: "&")
        let lowered = headers.map { ($0.key.lowercased(), Self.trimmed($0.value)) }.sorted { $0.0 < $1.0 }
        let headerLines = lowered.map { "\($0.0):\($0.1)\n" }.joined()
        let names = lowered.map(\.0).joined(separator: ";")
        return [request.method, request.path, query, headerLines, names, payloadHash].joined(separator: "\n")
    }

    func stringToSign(canonical: String, timestamp: String, scope: String) -> String {
        "AWS4-HMAC-SHA256\n\(timestamp)\n\(scope)\n\(Self.hex(SHA256.hash(data: Data(canonical.utf8))))"
    }

    func signature(of stringToSign: String, day: String) -> String {
        var key = SymmetricKey(data: Data("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        return Self.hex(HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: key))
    }

    /// `20130524T000000Z`, in UTC.
    static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T\(two(parts.tm_hour))"
            + "\(two(parts.tm_min))\(two(parts.tm_sec))Z"
    }

    /// RFC 3986 percent-encoding of everything but the unreserved characters; `/` too unless `keepSlash`.
    static func encode(_ text: String, keepSlash: Bool = false) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                UInt8(ascii: "~"):
                result.append(Character(Unicode.Scalar(byte)))
            case UInt8(ascii: "/") where keepSlash:
                result.append("/")
            default:
                let digits = Array("0123456789ABCDEF")
                result.append("%")
                result.append(digits[Int(byte >> 4)])
                result.append(digits[Int(byte & 0x0F)])
            }
        }
        return result
    }

    /// Query parameters in signing order: by encoded name, then encoded value.
    static func queryOrder(_ left: (String, String), _ right: (String, String)) -> Bool {
        left.0 == right.0 ? left.1 < right.1 : left.0 < right.0
    }

    /// A header value with its ends trimmed and inner runs of spaces made one.
    private static func trimmed(_ value: String) -> String {
        value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }

    static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        bytes.map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}
