import Foundation

/// The `forEach` items that come from a bucket: a glob's objects, or the lines of a list object.
enum S3Items {
    /// The most bytes of a list object read (the lines of a `{ file: s3://… }`).
    static let maxListBytes = 64 << 20

    /// The objects matching `pattern` (`s3://bucket/…`), or `nil` after reporting why they cannot be listed.
    static func matches(of pattern: Located<String>, diagnostics: inout Diagnostics) -> [Value]? {
        guard let location = S3Location(pattern.value), !location.key.isEmpty else {
            diagnostics.error(
                "the glob '\(pattern.value)' names no bucket and pattern", at: pattern.location,
                hint: "write s3://bucket/prefix/*.jpg")
            return nil
        }
        let glob: GlobPattern
        do throws(GlobPattern.SyntaxError) {
            glob = try GlobPattern(location.key)
        } catch {
            diagnostics.error("the glob '\(pattern.value)' cannot be read: \(error)", at: pattern.location)
            return nil
        }
        do throws(S3Error) {
            let found = try S3Glob.matches(of: glob, in: location.bucket, client: S3Client.environment.get())
            if found.isEmpty {
                diagnostics.append(
                    Diagnostic(.warning, "the glob '\(pattern.value)' matches no objects", at: pattern.location))
            }
            return found.map(Value.string)
        } catch {
            diagnostics.error("cannot list the glob '\(pattern.value)': \(error)", at: pattern.location)
            return nil
        }
    }

    /// The lines of the list object `path` names, or `nil` after reporting why it cannot be read.
    static func lines(of path: Located<String>, diagnostics: inout Diagnostics) -> [Value]? {
        guard let location = S3Location(path.value), !location.key.isEmpty else {
            diagnostics.error(
                "the forEach file '\(path.value)' names no object", at: path.location,
                hint: "write s3://bucket/key")
            return nil
        }
        do throws(S3Error) {
            let object = try S3Client.environment.get().get(location, maxBytes: maxListBytes)
            return ForEachExpansion.listLines(object.bytes, of: path, diagnostics: &diagnostics)
        } catch {
            diagnostics.error("cannot read the forEach file '\(path.value)': \(error)", at: path.location)
            return nil
        }
    }
}
