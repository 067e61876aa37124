import FlowBasics
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The nodes whose last attempt failed, each with its cause, kept beside the journal (`NAME.yaml.failed`, a JSON
/// object of node id → cause): the journal records only results, so without it a node that failed reads as one
/// never run. `validate`, dry runs and `explain` then say "failed last run: CAUSE".
///
/// Written at the end of a run only when it changes (a run without failures, after one without, writes nothing);
/// a file that cannot be read is no failures.
package enum FailedNodes {
    /// The most failures kept, and the longest cause: enough to tell, bounded whatever the run.
    static let limit = 10_000
    static let longestCause = 2_000
    /// The largest file read.
    private static let largestFile = 32 << 20

    /// The file beside the journal `name` in the store `directory`.
    static func path(in directory: String, name: String) -> String { directory + "/" + name + ".failed" }

    /// The failures recorded; empty when there is no file or it cannot be read.
    package static func read(directory: String, name: String) -> [String: String] {
        guard case .success(let opened) = RegularFile.open(path(in: directory, name: name), owned: true) else {
            return [:]
        }
        defer { close(opened.descriptor) }
        guard case .success(let bytes) = RegularFile.readAll(opened.descriptor, limit: largestFile),
            let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: String]
        else { return [:] }
        return object
    }

    /// The failures after a run: the previous ones, without those of nodes that succeeded now, and this run's.
    /// - Parameters:
    ///   - previous: What ``read(directory:name:)`` gave before the run.
    ///   - report: The run's report.
    ///   - id: The id of the node at a position of the report, read without making the node.
    /// - Returns: The new failures, or `nil` when they are the previous ones.
    package static func after(_ report: RunReport, previous: [String: String], id: (Int) -> String) -> [String: String]?
    {
        var failures = previous
        var changed = false
        let nodes = report.nodes
        for position in 0..<nodes.count {
            switch nodes.status(at: position) {
            case .failed:
                let node = nodes[position]
                let cause = String((node.cause ?? "failed").prefix(longestCause))
                if failures[node.id] != cause, failures.count < limit || failures[node.id] != nil {
                    failures[node.id] = cause
                    changed = true
                }
            case .succeeded, .cached, .restored:
                guard !previous.isEmpty else { continue }
                if failures.removeValue(forKey: id(position)) != nil { changed = true }
            default: continue
            }
        }
        return changed ? failures : nil
    }

    /// Replaces the file with `failures`, or removes it when there are none; a failure to write is ignored (the
    /// next run only says less).
    package static func write(_ failures: [String: String], directory: String, name: String) {
        let path = path(in: directory, name: name)
        guard !failures.isEmpty else {
            unlink(path)
            return
        }
        var bytes: [UInt8] = Array("{".utf8)
        for (index, id) in failures.keys.sorted().enumerated() {
            if index > 0 { bytes += Array(",\n".utf8) }
            bytes += JSONWriter.quoted(id) + Array(":".utf8) + JSONWriter.quoted(failures[id] ?? "")
        }
        bytes += Array("}\n".utf8)
        guard let file = try? AtomicFile(path: path) else { return }
        _ = try? file.write(Data(bytes))
        _ = try? file.commit()
    }
}
