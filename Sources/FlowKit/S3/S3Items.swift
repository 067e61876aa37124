import FlowS3
import Foundation

/// The `forEach` items that come from a bucket: a glob's objects, or the lines of a list object.
enum S3Items {
    /// The objects the `s3://` patterns match and no exclude does, or `nil` after reporting why they cannot be
    /// listed. Each item's `${item.rel}` is relative to its pattern's fixed prefix.
    static func matches(
        of patterns: [Located<String>], excluding excludes: [Located<String>], ignoreCase: Bool, strict: Bool,
        limit: Int, diagnostics: inout Diagnostics
    ) -> [ForEachItem]? {
        guard let includes = read(patterns, ignoreCase, &diagnostics),
            let excluded = read(excludes, ignoreCase, &diagnostics)
        else { return nil }
        let found: (objects: [(path: String, base: String)], unmatched: [Int])
        do throws(S3Error) {
            found = try S3Glob(includes: includes, excludes: excluded, limit: limit)
                .matches(client: S3Client.environment.get())
        } catch {
            diagnostics.error(
                "cannot list the glob '\(patterns.map(\.value).joined(separator: "', '"))': \(error)",
                at: patterns[0].location)
            return nil
        }
        for index in found.unmatched {
            diagnostics.append(
                Diagnostic(
                    strict ? .error : .warning, "the glob '\(patterns[index].value)' matches no objects",
                    at: patterns[index].location,
                    hint: "the bucket was listed under '\(includes[index].base)'; '**' matches any depth"))
        }
        return found.objects.map { ForEachItem(value: .string($0.path), key: $0.path, base: $0.base) }
    }

    /// The patterns as bucket and key pattern, or `nil` after reporting the ones that are not `s3://` globs.
    private static func read(_ texts: [Located<String>], _ ignoreCase: Bool, _ diagnostics: inout Diagnostics)
        -> [S3Glob.Pattern]?
    {
        var patterns: [S3Glob.Pattern] = []
        for text in texts {
            guard let location = S3Location(text.value), !location.key.isEmpty else {
                diagnostics.error(
                    "the glob '\(text.value)' is not an s3:// pattern", at: text.location,
                    hint: "one glob lists one place: write every pattern and exclude as s3://bucket/prefix/*.jpg")
                return nil
            }
            do throws(GlobPattern.SyntaxError) {
                patterns.append(
                    S3Glob.Pattern(bucket: location.bucket, keys: try GlobPattern(location.key, ignoreCase: ignoreCase))
                )
            } catch {
                diagnostics.error("cannot read the glob '\(text.value)': \(error.message)", at: text.location)
                return nil
            }
        }
        return patterns
    }

    /// The lines of the list object `path` names, or `nil` after reporting why it cannot be read.
    static func lines(of path: Located<String>, diagnostics: inout Diagnostics) -> [ForEachItem]? {
        guard let location = S3Location(path.value), !location.key.isEmpty else {
            diagnostics.error(
                "the forEach file '\(path.value)' names no object", at: path.location, hint: "write s3://bucket/key")
            return nil
        }
        if let problem = location.dotSegmentProblem {
            diagnostics.error("cannot read the forEach file '\(path.value)': \(problem)", at: path.location)
            return nil
        }
        do throws(S3Error) {
            let object = try S3Client.environment.get().get(location, maxBytes: DefinitionFile.maxListBytes)
            return ForEachExpansion.listLines(object.bytes, of: path, file: path.value, diagnostics: &diagnostics)
        } catch {
            diagnostics.error("cannot read the forEach file '\(path.value)': \(error)", at: path.location)
            return nil
        }
    }
}
