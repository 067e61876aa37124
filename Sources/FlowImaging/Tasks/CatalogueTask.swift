import FlowBasics
import FlowKit
import Foundation

/// `catalogue`: collects the JSON objects of its data inputs — one per item of a `gather`, e.g. what `probe` says
/// about each photo of a folder — into one file: a JSON array, or a CSV table with a column per key.
///
/// A gather `command` could only pipe the first item's data to a program (`stdin` takes one input), and the objects
/// of a folder are small: this writes them in item order, atomically, as `write` does.
package struct CatalogueTask: TaskType {
    package init() {}
    package var name: String { "catalogue" }
    package var summary: String {
        "Writes the JSON objects of its inputs (one per item, e.g. from probe) as a JSON array or a CSV table."
    }
    package var consumes: InputRequirement { .oneOf([.data]) }
    package var provides: ProviderKind? { .file }
    /// 2: CSV cells with a CRLF quoted; strings that start like a formula neutralised.
    package var implementationVersion: String { "2" }
    package func outputPath(_ parameters: Parameters) -> String? { parameters.path }

    package func fileAccess(_ parameters: Parameters) -> FileAccess {
        guard !parameters.path.isEmpty else { return .none }
        return FileAccess(writes: [.init(parameters.path, from: parameters.$path.name)])
    }

    /// The file formats of a catalogue.
    package enum Format: String, Sendable, Hashable, CaseIterable, ParameterValue {
        /// A JSON array of the objects, one per line.
        case json
        /// A header row of every key (in the order first seen), then a row per object, for spreadsheets.
        ///
        /// Cells follow RFC 4180: rows end in CRLF, and a cell holding a comma, a double quote, a CR or an LF is
        /// put in double quotes, its quotes doubled, so that text from a file (a camera make from EXIF, say) can
        /// never split a row or shift a column. A *string* that starts with `=`, `+`, `-`, `@`, a tab, a CR or a NUL
        /// is written with a single quote before it (`'=1+1`), as OWASP's CSV-injection guidance and ASVS 1.2.10
        /// say, so that a spreadsheet shows it as text rather than running it as a formula; the same goes for a
        /// column name. Numbers and booleans are written as their JSON text, unchanged: `-2.5936` stays a number
        /// (a JSON number cannot hold a formula). Read the JSON format where the exact string matters.
        case csv
    }

    /// The parameters of ``CatalogueTask``.
    package struct Parameters: TaskParameters {
        @Parameter(help: "The file to write; relative to the workflow's folder; parent folders are created.")
        package var path: String
        @Parameter(help: "json (an array) or csv (a column per key); from the path's extension when absent.")
        package var format: Format?
        @Parameter(help: "Whether an existing file may be replaced; when false the node fails instead.")
        package var overwrite = true
        package init() {}

        /// `format:`, else the path's extension.
        var target: Format? { format ?? Format(rawValue: FilePaths.fileExtension(of: path).lowercased()) }

        /// The format is given or told by a literal extension.
        package func validate(reading input: ProviderKind?, into diagnostics: inout Diagnostics) {
            let ext = FilePaths.fileExtension(of: path)
            guard target == nil, !(path.contains("${") && ext.contains("}")) else { return }
            diagnostics.error(
                "catalogue needs a format: \(ext.isEmpty ? "path '\(path)' has no extension" : "unknown extension '.\(ext)'")",
                at: $path.location, hint: "end the path in .json or .csv, or add `format: json` or `format: csv`")
        }
    }

    package func makeOperation(_ context: NodeContext) -> FlowOperation { CatalogueOperation(context: context) }
}

/// The operation of ``CatalogueTask``.
package final class CatalogueOperation: FlowOperation, FileProvider, @unchecked Sendable {
    /// The file written, once finished.
    package var providedFile: FileOutput? { output(as: FileOutput.self) }

    package override func execute() {
        if finishIfCancelled() { return }
        let parameters = context.parameters(as: CatalogueTask.Parameters.self)
        guard let format = parameters.target else {
            return finish(
                .failure(
                    context.failure(
                        .invalidInput, "cannot tell json or csv from '\(parameters.path)': give `format: json` or `csv`"
                    )
                ))
        }
        var objects: [JSONValue] = []
        for payload in inputs((any DataProvider).self).compactMap(\.providedData) {
            // One object, or JSON Lines: an object per line.
            for line in payload.bytes.split(separator: 0x0A) where !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D }) {
                guard let object = try? JSONDecoder().decode(JSONValue.self, from: Data(line)), case .map = object
                else {
                    let source = payload.source.isEmpty ? "an input" : "'\(payload.source)'"
                    return finish(
                        .failure(context.failure(.invalidInput, "\(source) is not a JSON object (one per line)")))
                }
                objects.append(object)
            }
        }
        let bytes = format == .json ? Self.jsonArray(objects) : Self.csv(objects)
        if finishIfCancelled() { return }
        let path = context.resolvePath(parameters.path)
        if let refused = context.claimOutput(path) { return finish(.failure(refused)) }
        do {
            let file = try AtomicFile(path: path, overwrite: parameters.overwrite, createFolders: true)
            try file.write(bytes)
            guard try file.commit(unless: { isCancelled }) else { return finish(.cancelled) }
            finish(.success(FileOutput(path: parameters.path, byteCount: bytes.count)))
        } catch {
            finish(.failure(context.failure(.io, error.message, cause: error)))
        }
    }

    /// `[`, the objects one per line with sorted keys, `]`.
    static func jsonArray(_ objects: [JSONValue]) -> Data {
        let lines = objects.map { String(decoding: $0.sortingKeys().json(), as: UTF8.self) }
        return Data(("[\n" + lines.joined(separator: ",\n") + (lines.isEmpty ? "" : "\n") + "]\n").utf8)
    }

    /// A header row of every key in the order first seen (each object's keys sorted), then a row per object.
    static func csv(_ objects: [JSONValue]) -> Data {
        var columns: [String] = []
        var seen: Set<String> = []
        for object in objects {
            for key in object.keys.sorted() where seen.insert(key).inserted { columns.append(key) }
        }
        var text = columns.map { quoted(neutralised($0)) }.joined(separator: ",") + "\r\n"
        for object in objects {
            text += columns.map { cell(object[$0]) }.joined(separator: ",") + "\r\n"
        }
        return Data(text.utf8)
    }

    /// A value as CSV: empty for null or absent, strings neutralised and quoted when needed, anything else (numbers,
    /// booleans, arrays and objects as JSON text, which start with a digit, `-`, a letter, `[` or `{`) quoted when
    /// needed.
    private static func cell(_ value: JSONValue?) -> String {
        switch value {
        case nil, .null?: ""
        case .string(let text)?: quoted(neutralised(text))
        case let value?: quoted(String(decoding: value.sortingKeys().json(), as: UTF8.self))
        }
    }

    /// The first characters that make a spreadsheet read a cell as a formula (OWASP's list: `=`, `+`, `-`, `@`, tab,
    /// CR; and NUL, which ASVS 1.2.10 adds), as bytes: `"\r\n"` is one `Character` in Swift, so characters would
    /// miss a CRLF.
    private static let formulaStarts: Set<UInt8> = [0x3D, 0x2B, 0x2D, 0x40, 0x09, 0x0D, 0x00]

    /// A string a spreadsheet shows as text: a single quote before one that starts like a formula.
    private static func neutralised(_ text: String) -> String {
        guard let first = text.utf8.first, formulaStarts.contains(first) else { return text }
        return "'" + text
    }

    /// RFC 4180: a field with a comma, quote, CR or LF is quoted, quotes doubled. Checked on bytes, since a CRLF is
    /// one `Character`, equal neither to `"\r"` nor to `"\n"` (which let such a field out unquoted).
    private static func quoted(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }) else { return text }
        // By scalars too: a quote followed by a combining mark is one `Character` that a search for `"` misses.
        var field = "\""
        for scalar in text.unicodeScalars {
            field.unicodeScalars.append(scalar)
            if scalar == "\"" { field.unicodeScalars.append(scalar) }
        }
        return field + "\""
    }
}
