/// One use of a YAML alias: the anchored text it copies and where `*name` is written. A value that came
/// through an alias is reported at its text; a note points at the alias that brought it.
struct AliasUse: Sendable {
    /// The anchor's name.
    var name: String
    /// Where the anchored node's text starts.
    var start: SourceLocation
    /// Where it ends.
    var end: SourceLocation
    /// Where the alias is written.
    var use: SourceLocation

    /// Whether a location is inside the anchored text.
    func contains(_ location: SourceLocation) -> Bool {
        location.path == start.path && start <= location && location < end
    }

    /// Diagnostics with a note at every alias whose anchored text holds their location.
    static func annotated(_ diagnostics: Diagnostics, uses: [AliasUse]) -> Diagnostics {
        guard !uses.isEmpty else { return diagnostics }
        var result = Diagnostics()
        for var diagnostic in diagnostics.all {
            if let location = diagnostic.location {
                for use in uses where use.contains(location) {
                    diagnostic.notes.append(.note("used through the alias '*\(use.name)' here", at: use.use))
                }
            }
            result.append(diagnostic)
        }
        return result
    }
}
