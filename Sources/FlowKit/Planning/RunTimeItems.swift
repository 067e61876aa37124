import FlowBasics
import Foundation
import OrderedCollections

/// Reads the items of a list made at run time (`forEach: { from: TASK }`) from the bytes its producer output: a
/// JSON array (of strings, numbers or maps) when the first non-blank byte is `[` (or `{`, a JSON value that is not
/// a list), else one item per line.
enum RunTimeItems {
    /// Why a producer's output is not a list: the fan-out runs none of it (nothing partial is trusted).
    struct Problem: Error, Equatable {
        let message: String
    }

    /// An item whose key an earlier item of the list has: its nodes fail, naming both, and the first runs.
    struct Duplicate: Equatable {
        /// The index of the earlier item with the key.
        let first: Int
        /// The key both have.
        let key: String
    }

    /// The items of a list made at run time, each with a key of its own: a duplicate's key is made distinct
    /// (`a#2` for the second `a`, item 2), so its nodes exist to fail.
    struct List {
        var items: [ForEachItem]
        /// The duplicates, by item index.
        var duplicates: [Int: Duplicate] = [:]
    }

    /// The items of `bytes`, keyed as `forEach: { list: … }` keys its items: a map item by its `key` field, any
    /// other by its own canonical text.
    /// - Parameters:
    ///   - bytes: The producer's output.
    ///   - keyField: The `key:` the fan-out declares for map items.
    static func items(of bytes: Data, keyField: Located<String>?) -> Result<List, Problem> {
        let firstByte = bytes.first { !Self.isBlank($0) }
        let isJSON = firstByte == UInt8(ascii: "[") || firstByte == UInt8(ascii: "{")
        let items: [ForEachItem]
        if isJSON {
            switch jsonItems(bytes) {
            case .success(let parsed): items = parsed
            case .failure(let problem): return .failure(problem)
            }
        } else {
            switch lineItems(bytes) {
            case .success(let parsed): items = parsed
            case .failure(let problem): return .failure(problem)
            }
        }
        var diagnostics = Diagnostics()
        let keyed = ForEachExpansion.keyed(items, by: keyField, diagnostics: &diagnostics)
        guard var keyed, !diagnostics.hasErrors else { return .failure(Problem(diagnostics)) }
        if keyField == nil, !isJSON {
            // A line is a path: `${item.name}`, `${item.stem}` and the other path parts read it.
            for index in keyed.indices { keyed[index].base = "" }
        }
        let duplicates = makeKeysDistinct(&keyed)
        return .success(List(items: keyed, duplicates: duplicates))
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\t")
            || byte == UInt8(ascii: "\r")
    }

    /// One item per line (split on bytes, CRLF or LF: ``TextLines``), trimmed; blank lines are left out, and a
    /// last line needs no newline. Items are counted as they are read: a list past ``ForEachExpansion/maxItems``
    /// stops there, so it costs no more memory than the limit allows whatever the producer printed.
    private static func lineItems(_ bytes: Data) -> Result<[ForEachItem], Problem> {
        var items: [ForEachItem] = []
        var overLimitAt: Int?
        do throws(TextLines.Fault) {
            try TextLines.forEach(in: bytes) { number, line in
                let entry = line.trimmingCharacters(in: .whitespacesAndNewlines)
                guard !entry.isEmpty else { return true }
                guard items.count < ForEachExpansion.maxItems else {
                    overLimitAt = number
                    return false
                }
                items.append(ForEachItem(value: .string(entry), key: ""))
                return true
            }
        } catch {
            return .failure(Problem(message: "its output is neither a JSON array nor lines of text: \(error.message)"))
        }
        if let overLimitAt {
            return .failure(Problem(message: Self.overLimit(at: "line \(overLimitAt)")))
        }
        return .success(items)
    }

    /// Why a list past the limit is not read, `place` naming where its first item past the limit is.
    static func overLimit(at place: String, limit: Int = ForEachExpansion.maxItems) -> String {
        "it has more than \(limit) items (\(place) is item \(limit + 1)); the limit is \(limit)"
    }

    /// The items of a JSON list, read by ``JSONReader``: an integer past 64 bits, a number out of range or nesting
    /// past its limit is a problem that says so, and the items are counted as they are read.
    private static func jsonItems(_ bytes: Data) -> Result<[ForEachItem], Problem> {
        switch JSONReader.list(bytes, maxItems: ForEachExpansion.maxItems, overLimit: { overLimit(at: $0) }) {
        case .success(let list): .success(list.map { ForEachItem(value: Value($0), key: "") })
        case .failure(let fault): .failure(Problem(message: fault.message))
        }
    }

    /// Gives each item whose key an earlier item has a key no item has (`KEY#INDEX`, with more `#` while taken).
    /// - Returns: The duplicates, by item index.
    private static func makeKeysDistinct(_ items: inout [ForEachItem]) -> [Int: Duplicate] {
        var first: [String: Int] = [:]
        first.reserveCapacity(items.count)
        var duplicates: [Int: Duplicate] = [:]
        for (index, item) in items.enumerated() {
            if let earlier = first[item.key] {
                duplicates[index] = Duplicate(first: earlier, key: item.key)
            } else {
                first[item.key] = index
            }
        }
        guard !duplicates.isEmpty else { return [:] }
        var taken = Set(first.keys)
        for (index, duplicate) in duplicates.sorted(by: { $0.key < $1.key }) {
            var key = "\(duplicate.key)#\(index)"
            while taken.contains(key) { key += "#" }
            taken.insert(key)
            items[index].key = key
        }
        return duplicates
    }
}

extension RunTimeItems.Problem {
    /// The first error of diagnostics, as a problem.
    init(_ diagnostics: Diagnostics) {
        message = diagnostics.all.first { $0.severity == .error }?.message ?? "its items cannot be read"
    }
}

extension Value {
    /// A JSON value as an item's value: booleans stay booleans, whole numbers integers.
    init(_ json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .integer(let number): self = .int(number)
        case .number(let number): self = .double(number)
        case .string(let text): self = .string(text)
        case .list(let items): self = .list(items.map(Value.init))
        case .map(let entries):
            self = .map(OrderedDictionary(uniqueKeysWithValues: entries.map { ($0.key, Value($0.value)) }))
        }
    }
}
