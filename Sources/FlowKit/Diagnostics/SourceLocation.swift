/// A position in a workflow file: the path as the user typed it, a 1-based line and a 1-based column.
///
/// Columns count Unicode scalars, which is libyaml's unit, so a caret printed under the column lines up with
/// the character the message is about.
public struct SourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The path of the file, as given on the command line.
    public var path: String
    /// The 1-based line number.
    public var line: Int
    /// The 1-based column, in Unicode scalars.
    public var column: Int

    /// Creates a location.
    public init(path: String, line: Int, column: Int) {
        self.path = path
        self.line = line
        self.column = column
    }

    /// `path:line:col`, the form compilers and editors understand.
    public var description: String { "\(path):\(line):\(column)" }

    /// Whether `lhs` comes before `rhs`: by path, then line, then column.
    public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        (lhs.path, lhs.line, lhs.column) < (rhs.path, rhs.line, rhs.column)
    }
}

/// A value together with where it was written.
package struct Located<Wrapped: Sendable>: Sendable {
    /// The value.
    package var value: Wrapped
    /// Where the value stands in the workflow file.
    package var location: SourceLocation

    /// Creates a located value.
    package init(_ value: Wrapped, at location: SourceLocation) {
        self.value = value
        self.location = location
    }
}

extension Located: Equatable where Wrapped: Equatable {}
extension Located: Hashable where Wrapped: Hashable {}
