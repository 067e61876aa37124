/// Keeps an item inside the folder a written path names. In `out/${item}` or `out/${item.path}` an item that is
/// an absolute path or climbs with `..` (a line `../notes.txt` of a list file, a map field) would write outside
/// `out`, next to — or over — the workflow's own files. `${item.rel}` and `${item.dir}` are refused where they are
/// resolved and `${item.name}` and `${item.stem}` are single names; this covers the references that carry the
/// item's text as it is.
struct ItemPathContainment {
    /// The folder the text before the template's first item reference names, normalised.
    let folder: String
    /// Where that item reference is written.
    let itemReference: SourceLocation

    /// The folder `template` holds its items to; `nil` when it names none before its first item reference (or
    /// has none). The folder depends only on the task's own values, so one serves every node of the task.
    init?(template: YAMLNode, in scope: Scope) {
        guard case .scalar(let text, let style) = template.content, text.contains("${") else { return nil }
        var ignored = Diagnostics()
        let interpolation = Interpolation(parsing: text, at: template.textStart(style), diagnostics: &ignored)
        var prefix = ""
        var itemReference: SourceLocation?
        for segment in interpolation.segments {
            switch segment {
            case .text(let literal): prefix += literal
            case .reference(let reference, let location):
                if reference.needsItem {
                    itemReference = location
                } else if let value = Resolver.value(of: reference, at: location, in: scope, diagnostics: &ignored) {
                    prefix += value.description
                }
            }
            if itemReference != nil { break }
        }
        guard let itemReference, let slash = prefix.lastIndex(of: "/") else { return nil }
        self.folder = FilePaths.normalised(String(prefix[...slash]), in: ".")
        self.itemReference = itemReference
    }

    /// Reports `path`, a node's resolved value of the template, when it leaves ``folder``.
    func check(_ path: String, node: String, diagnostics: inout Diagnostics) {
        let target = FilePaths.normalised(path, in: ".")
        guard !Self.isInside(target, folder) else { return }
        diagnostics.error(
            "'\(node)' would write '\(target)', outside '\(folder)', the folder its path names", at: itemReference,
            hint: "the item is an absolute path or names '..': use ${item.rel} or ${item.name}, or list paths below "
                + "the folder")
    }

    /// Whether the normalised `path` lies below the normalised `folder`.
    private static func isInside(_ path: String, _ folder: String) -> Bool {
        switch folder {
        case ".": !path.hasPrefix("/") && path != ".." && !path.hasPrefix("../")
        case "/": path.hasPrefix("/")
        default: path.hasPrefix(folder + "/")
        }
    }
}
