import Foundation

/// A file a node wrote, as a report shows it: where it is and, when the run asked for previews, a small
/// picture of it.
///
/// An operation that writes a file calls ``FlowOperation/record(_:)`` with one; the runner keeps it on the
/// node's ``RunReport/Node/artifact`` when ``RunOptions/previews`` is set, so `--html` can show a contact sheet
/// of what came out without reading or decoding anything again.
public struct Artifact: Sendable, Codable, Hashable {
    /// The path of the file written, as the node resolved it (relative paths are relative to the working
    /// directory of the run).
    public var path: String
    /// A JPEG of at most ``maxPreviewSide`` pixels a side, made from the image in memory; `nil` for files
    /// that are not images. Base64 in JSON.
    public var preview: Data?

    /// The longest side of a preview, in pixels.
    public static let maxPreviewSide = 128
    /// How many previews a run keeps, at most (about 3.5 MB): later artifacts keep their path only, so a run of
    /// 100,000 images neither holds 250 MB of previews nor writes a page of that size.
    package static let maxPreviewsPerRun = 1_500

    /// Creates an artifact record.
    public init(path: String, preview: Data? = nil) {
        self.path = path
        self.preview = preview
    }
}
