import Foundation

/// Golden files: a test's whole expected output, kept in the source tree and compared whole.
///
/// `RECORD_GOLDENS=1 swift test --filter …` rewrites the goldens from what the tests produce instead of comparing
/// (review the diff before committing it).
package enum Golden {
    /// Whether this run records goldens rather than checks them.
    package static var recording: Bool { ProcessInfo.processInfo.environment["RECORD_GOLDENS"] == "1" }

    /// The expected text for `actual`: the golden file's, or `actual` itself once written to `source` when
    /// recording.
    /// - Parameters:
    ///   - source: The golden in the source tree.
    ///   - copy: Where the tests read it when it is a bundled resource; `source` when `nil`.
    package static func expected(for actual: String, at source: URL, readFrom copy: URL? = nil) throws -> String {
        if recording {
            try actual.write(to: source, atomically: true, encoding: .utf8)
            return actual
        }
        return try String(contentsOf: copy ?? source, encoding: .utf8)
    }
}
