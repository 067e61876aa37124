import FlowS3
import Foundation

/// Where a `fetch` reads from, decided from the `url` parameter as written.
enum FetchSource: Equatable {
    /// An http or https URL.
    case http(URL)
    /// A file on disk, already resolved against the workflow's folder.
    case file(String)
    /// An object in a bucket.
    case s3(S3Location)

    /// Classifies the `url` parameter.
    ///
    /// `http://`, `https://` and `s3://` are fetched over the network; `file:` URLs and text without a scheme are paths
    /// (relative ones resolved against the workflow's folder). Any other `scheme://` is refused rather than
    /// mistaken for a relative path.
    static func parse(_ written: String, context: NodeContext) -> Result<FetchSource, NodeFailure> {
        parse(written, directory: context.workflowDirectory) { context.failure($0, $1) }
    }

    /// Parses a `url` parameter, resolving paths against the workflow's folder.
    static func parse(
        _ written: String, directory: String, failure: (NodeFailure.Code, String) -> NodeFailure
    ) -> Result<FetchSource, NodeFailure> {
        let text = trimmed(written)
        guard !text.isEmpty else {
            return .failure(failure(.invalidInput, "fetch needs a non-empty 'url'"))
        }
        // Every scheme below is told by a colon: text without one is a path, as nearly every item of a glob is.
        guard text.utf8.contains(UInt8(ascii: ":")) else {
            return .success(.file(NodeContext.resolve(text, in: directory)))
        }
        if hasPrefix(text, lowercased: "http://") || hasPrefix(text, lowercased: "https://") {
            guard let url = URL(string: text), let host = url.host, !host.isEmpty else {
                return .failure(failure(.invalidInput, "'\(written)' is not a valid URL"))
            }
            return .success(.http(url))
        }
        if S3Location.isS3(text) {
            guard let location = S3Location(text), !location.key.isEmpty else {
                return .failure(failure(.invalidInput, "'\(written)' names no object: write s3://bucket/key"))
            }
            if let problem = location.dotSegmentProblem { return .failure(failure(.invalidInput, problem)) }
            return .success(.s3(location))
        }
        if hasPrefix(text, lowercased: "file:") {
            guard let url = URL(string: text), url.scheme?.lowercased() == "file" else {
                return .failure(failure(.invalidInput, "'\(written)' is not a valid file URL"))
            }
            if let host = url.host, !host.isEmpty, host != "localhost" {
                return .failure(
                    failure(
                        .unsupported, "file URL '\(written)' names host '\(host)'; only local files can be read"))
            }
            let path = url.path
            guard !path.isEmpty else {
                return .failure(failure(.invalidInput, "file URL '\(written)' has no path"))
            }
            return .success(.file(NodeContext.resolve(path, in: directory)))
        }
        if let scheme = schemeOfURL(text) {
            return .failure(
                failure(
                    .unsupported,
                    "unsupported URL scheme '\(scheme)' in '\(written)': use http, https, s3, file or a path")
            )
        }
        return .success(.file(NodeContext.resolve(text, in: directory)))
    }

    /// `text` without the white space around it: itself, made without Foundation, when there is none (the
    /// paths of a 100,000-item glob).
    static func trimmed(_ text: String) -> String {
        guard let first = text.unicodeScalars.first, let last = text.unicodeScalars.last,
            isWhitespace(first) || isWhitespace(last)
        else { return text }
        return text.trimmingCharacters(in: whitespaces)
    }

    /// Whether `scalar` is in ``whitespaces``: of ASCII, only space and tab are, told without asking Foundation.
    private static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII ? scalar == " " || scalar == "\t" : whitespaces.contains(scalar)
    }

    /// `CharacterSet.whitespaces`, made once: ``trimmed(_:)`` asks it of every item's `url`.
    private static let whitespaces = CharacterSet.whitespaces

    /// Whether `text` starts with `prefix` (lowercase ASCII) in any case, as `text.lowercased().hasPrefix(prefix)`
    /// says for such a prefix, without making the lowercased copy.
    private static func hasPrefix(_ text: String, lowercased prefix: StaticString) -> Bool {
        let utf8 = text.utf8
        guard utf8.count >= prefix.utf8CodeUnitCount else { return false }
        return prefix.withUTF8Buffer { expected in
            zip(utf8, expected).allSatisfy { byte, wanted in
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 == wanted : byte == wanted
            }
        }
    }

    /// The local path a `url` names as written (relative to the workflow's folder), or `nil` for an http(s) or s3
    /// URL or one that ``parse(_:directory:failure:)`` refuses.
    static func localPath(_ written: String) -> String? {
        guard case .success(.file(let path)) = parse(written, directory: ".", failure: { NodeFailure($0, $1) })
        else { return nil }
        return path
    }

    /// The scheme of `text` when it has the `scheme://` shape, so `ftp://x` is refused while `a:b.jpg` stays a path.
    private static func schemeOfURL(_ text: String) -> String? {
        guard text.utf8.contains(UInt8(ascii: ":")), let range = text.range(of: "://") else { return nil }
        let scheme = text[..<range.lowerBound]
        guard let first = scheme.first, first.isLetter,
            scheme.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." })
        else { return nil }
        return String(scheme)
    }
}
