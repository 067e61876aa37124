/// One problem found while loading or validating a workflow.
///
/// A diagnostic keeps its parts as data — the did-you-mean candidate and the hint are not pasted into the
/// message — so that tests, editors and the renderer can each use what they need.
public struct Diagnostic: Sendable, Hashable, Error {
    /// How serious a diagnostic is.
    public enum Severity: String, Sendable, Hashable, Comparable {
        case error, warning, note

        private var rank: Int {
            switch self {
            case .error: 0
            case .warning: 1
            case .note: 2
            }
        }

        /// Whether `lhs` is more severe than `rhs`: errors sort first, then warnings, then notes.
        public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
    }

    /// Error, warning or note.
    public var severity: Severity
    /// What is wrong, in one sentence without a trailing period.
    public var message: String
    /// Where it is wrong; `nil` for problems with no place in a file (e.g. a command-line parameter).
    public var location: SourceLocation?
    /// A near name that was probably meant, rendered as ` (did you mean 'x'?)`.
    public var suggestion: String?
    /// What to do about it, rendered on its own line after the source snippet.
    public var hint: String?
    /// Further locations that explain the problem (the other duplicate, each edge of a cycle).
    public var notes: [Diagnostic]

    /// Creates a diagnostic.
    public init(
        _ severity: Severity = .error,
        _ message: String,
        at location: SourceLocation?,
        suggestion: String? = nil,
        hint: String? = nil,
        notes: [Diagnostic] = []
    ) {
        self.severity = severity
        self.message = message
        self.location = location
        self.suggestion = suggestion
        self.hint = hint
        self.notes = notes
    }

    /// An error at a location.
    public static func error(
        _ message: String, at location: SourceLocation?, suggestion: String? = nil, hint: String? = nil,
        notes: [Diagnostic] = []
    ) -> Diagnostic {
        Diagnostic(.error, message, at: location, suggestion: suggestion, hint: hint, notes: notes)
    }

    /// A note at a location, to attach to another diagnostic.
    public static func note(_ message: String, at location: SourceLocation?) -> Diagnostic {
        Diagnostic(.note, message, at: location)
    }
}

/// The diagnostics of one load or validation, in the order they were found.
///
/// Validators append to it and carry on, so a run reports every problem at once.
public struct Diagnostics: Sendable {
    /// Everything reported so far.
    public private(set) var all: [Diagnostic] = []
    private var seen: Set<Diagnostic> = []

    /// Creates an empty collection.
    public init() {}

    /// Adds a diagnostic unless the same one (message and place) was reported already, as happens when one
    /// mistake is seen from every expanded instance of a task.
    public mutating func append(_ diagnostic: Diagnostic) {
        if seen.insert(diagnostic).inserted { all.append(diagnostic) }
    }

    /// Adds an error.
    public mutating func error(
        _ message: String, at location: SourceLocation?, suggestion: String? = nil, hint: String? = nil,
        notes: [Diagnostic] = []
    ) {
        append(.error(message, at: location, suggestion: suggestion, hint: hint, notes: notes))
    }

    /// Adds every diagnostic of another collection.
    public mutating func append(contentsOf other: Diagnostics) {
        for diagnostic in other.all { append(diagnostic) }
    }

    /// Whether any error was reported.
    public var hasErrors: Bool { all.contains { $0.severity == .error } }

    /// The diagnostics sorted by file, line and column; those without a location come first.
    public var sorted: [Diagnostic] {
        all.enumerated().sorted { lhs, rhs in
            switch (lhs.element.location, rhs.element.location) {
            case let (l?, r?) where l != r: return l < r
            case (nil, _?): return true
            case (_?, nil): return false
            default: return lhs.offset < rhs.offset
            }
        }.map(\.element)
    }
}

/// Thrown when a workflow cannot be loaded or planned; carries every diagnostic found.
package struct WorkflowError: Error, Sendable {
    /// The diagnostics, at least one of them an error.
    package var diagnostics: Diagnostics

    /// Wraps a collection of diagnostics.
    package init(_ diagnostics: Diagnostics) { self.diagnostics = diagnostics }
}
