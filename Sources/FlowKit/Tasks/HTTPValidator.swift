import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What identifies the version of an http(s) resource a `fetch` downloaded: the validator the server sent
/// (`ETag`, else `Last-Modified`), or without one the SHA-256 of the body.
///
/// It goes into the store as part of the fetch node's source identity (`url URL etag "abc"`), so the next run
/// can ask the server with a conditional GET whether the resource changed (see `HTTPRevalidation`).
enum HTTPValidator: Sendable, Equatable {
    /// An entity tag as the server sent it, quotes and `W/` included.
    case etag(String)
    /// A `Last-Modified` date as the server sent it.
    case lastModified(String)
    /// The body's SHA-256, hex: the server sent no validator.
    case sha256(String)

    private static let kinds = ["etag", "last-modified", "sha256"]

    /// The validator a response carries: its `ETag`, else its `Last-Modified`; `nil` when it has neither.
    init?(response: HTTPURLResponse) {
        if let tag = FetchTransfer.header("ETag", in: response), !tag.isEmpty {
            self = .etag(tag)
        } else if let date = FetchTransfer.header("Last-Modified", in: response), !date.isEmpty {
            self = .lastModified(date)
        } else {
            return nil
        }
    }

    /// Reads the validator back from a source identity written by ``identity(of:)`` for the same URL; `nil`
    /// for another URL or an identity without one.
    init?(identity: String, url: URL) {
        let prefix = Self.urlIdentity(url) + " "
        guard identity.hasPrefix(prefix) else { return nil }
        let rest = identity.dropFirst(prefix.count)
        guard let space = rest.firstIndex(of: " ") else { return nil }
        let value = String(rest[rest.index(after: space)...])
        guard !value.isEmpty else { return nil }
        switch rest[..<space] {
        case "etag": self = .etag(value)
        case "last-modified": self = .lastModified(value)
        case "sha256": self = .sha256(value)
        default: return nil
        }
    }

    /// The source identity of `url` at this version, e.g. `url https://x/a.jpg etag "abc"`.
    func identity(of url: URL) -> String {
        switch self {
        case .etag(let tag): Self.urlIdentity(url) + " etag " + tag
        case .lastModified(let date): Self.urlIdentity(url) + " last-modified " + date
        case .sha256(let digest): Self.urlIdentity(url) + " sha256 " + digest
        }
    }

    /// The identity of a URL without a version: what a `fetch` with `cache: true` trusts.
    static func urlIdentity(_ url: URL) -> String { "url " + url.absoluteString }

    /// The request header that asks the server to answer 304 when this is still the version it has; `nil` for a
    /// body hash, which only a full download can check.
    var conditionalHeader: (name: String, value: String)? {
        switch self {
        case .etag(let tag): ("If-None-Match", tag)
        case .lastModified(let date): ("If-Modified-Since", date)
        case .sha256: nil
        }
    }
}
