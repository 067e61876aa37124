import FlowBasics
import Foundation
import OrderedCollections

/// A typed value from a workflow file: a parameter default, a task parameter, a `forEach` item.
public enum Value: Sendable, Hashable, CustomStringConvertible {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case list([Value])
    case map(OrderedDictionary<String, Value>)

    /// The value as text, the way interpolation inserts it into a string.
    public var description: String {
        switch self {
        case .null: ""
        case .bool(let b): b ? "true" : "false"
        case .int(let i): String(i)
        case .double(let d): d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d)
        case .string(let s): s
        case .list(let items): "[" + items.map(\.description).joined(separator: ", ") + "]"
        case .map(let map): "{" + map.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        }
    }

    /// A short name of the value's type, for messages ("expected a number, found a string").
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .int: "an integer"
        case .double: "a number"
        case .string: "a string"
        case .list: "a list"
        case .map: "a map"
        }
    }

    /// The string, if this is one.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The number, if this is an integer or a floating-point number.
    public var doubleValue: Double? {
        switch self {
        case .int(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }

    /// The integer, if this is one (or a floating-point number with no fraction).
    public var intValue: Int? {
        switch self {
        case .int(let i): i
        case .double(let d) where d == d.rounded() && abs(d) < 9e15: Int(d)
        default: nil
        }
    }

    /// The boolean, if this is one.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The items, if this is a list.
    public var listValue: [Value]? {
        if case .list(let items) = self { return items }
        return nil
    }

    /// The entries, if this is a map.
    public var mapValue: OrderedDictionary<String, Value>? {
        if case .map(let map) = self { return map }
        return nil
    }

    /// The value as JSON.
    package var json: JSONValue {
        switch self {
        case .null: .null
        case .bool(let flag): .bool(flag)
        case .int(let number): .integer(number)
        case .double(let number): .number(number)
        case .string(let text): .string(text)
        case .list(let items): .list(items.map(\.json))
        case .map(let map): .map(map.mapValues(\.json))
        }
    }

    /// Interprets a plain (unquoted) YAML scalar with the YAML 1.2 core schema: null, booleans, integers
    /// (decimal, `0x`, `0o`), floating-point numbers, `.inf`/`.nan`, else a string.
    public init(plainScalar text: String) {
        switch text {
        case "", "~", "null", "Null", "NULL": self = .null
        case "true", "True", "TRUE": self = .bool(true)
        case "false", "False", "FALSE": self = .bool(false)
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": self = .double(.infinity)
        case "-.inf", "-.Inf", "-.INF": self = .double(-.infinity)
        case ".nan", ".NaN", ".NAN": self = .double(.nan)
        default:
            if let i = Int(text) {
                self = .int(i)
            } else if text.hasPrefix("0x"), let i = Int(text.dropFirst(2), radix: 16) {
                self = .int(i)
            } else if text.hasPrefix("0o"), let i = Int(text.dropFirst(2), radix: 8) {
                self = .int(i)
            } else if Value.looksNumeric(text), let d = Double(text) {
                self = .double(d)
            } else {
                self = .string(text)
            }
        }
    }

    /// Whether text has the YAML 1.2 float shape (so `Double("infinity")` and `"1e"` stay strings).
    private static func looksNumeric(_ text: String) -> Bool {
        var sawDigit = false
        for scalar in text.unicodeScalars {
            switch scalar {
            case "0"..."9": sawDigit = true
            case ".", "e", "E", "+", "-": continue
            default: return false
            }
        }
        return sawDigit
    }
}
