/// Declares one parameter of a task type, as a property of the type's ``TaskParameters``: the property's name is
/// the key in the workflow, its type the value's type, its initial value the default, and the arguments the help
/// and range. Everything else — `flowrun tasks`, the JSON Schema, validation, the store's key — is derived.
///
/// ```swift
/// public struct Parameters: TaskParameters {
///     @Parameter(help: "How much sepia: 0 leaves the image unchanged, 1 is full sepia.", range: 0...1)
///     public var intensity = 1.0
///     @Parameter(help: "The file to write.") public var path: String      // required: no default
///     @Parameter(help: "A factor of the original size.") public var scale: Double?  // optional
///     public init() {}
/// }
/// ```
///
/// The projected value (`$intensity`) tells where the value was written, for diagnostics.
@propertyWrapper
public struct Parameter<Wrapped: ParameterValue>: Sendable {
    // The stored properties and the members below are inlinable so that a task's `Parameters`, in its own module,
    // make and read them specialized: each node's parameters are made and read many times in a 100,000-item plan.

    /// What `flowrun tasks` and the schema say about the parameter.
    @usableFromInline let help: String
    /// The inclusive range of a number, if limited; an upper bound of `Double(Int.max)` means none.
    @usableFromInline let range: ClosedRange<Double>?
    /// The value, once read from a workflow; otherwise the declared default.
    @usableFromInline var value: Wrapped?
    /// The default, as declared.
    @usableFromInline let defaultValue: Wrapped?
    /// The name and location, once read from a workflow.
    @usableFromInline var info: ParameterInfo?

    /// A parameter with a default.
    @inlinable public init(wrappedValue: Wrapped, help: String) {
        self.init(value: wrappedValue, help: help, range: nil)
    }

    /// A number with a default and an inclusive range.
    @inlinable public init(wrappedValue: Wrapped, help: String, range: ClosedRange<Double>) {
        self.init(value: wrappedValue, help: help, range: range)
    }

    /// A number with a default and a lower bound.
    @inlinable public init(wrappedValue: Wrapped, help: String, range: PartialRangeFrom<Double>) {
        self.init(value: wrappedValue, help: help, range: range.lowerBound...Double(Int.max))
    }

    /// A parameter without a default: required, or `nil` when absent if its type is optional.
    @inlinable public init(help: String) {
        self.init(value: nil, help: help, range: nil)
    }

    /// A number without a default, with an inclusive range.
    @inlinable public init(help: String, range: ClosedRange<Double>) {
        self.init(value: nil, help: help, range: range)
    }

    /// A number without a default, with a lower bound.
    @inlinable public init(help: String, range: PartialRangeFrom<Double>) {
        self.init(value: nil, help: help, range: range.lowerBound...Double(Int.max))
    }

    @usableFromInline init(value: Wrapped?, help: String, range: ClosedRange<Double>?) {
        self.value = value
        self.defaultValue = value
        self.help = help
        self.range = range
    }

    /// The value the workflow gave, or the default.
    @inlinable public var wrappedValue: Wrapped {
        get {
            guard let value = value ?? Wrapped.absent else {
                preconditionFailure("required parameter '\(info?.name ?? "?")' read before it was given a value")
            }
            return value
        }
        set { value = newValue }
    }

    /// Where the parameter was written, and its name.
    @inlinable public var projectedValue: ParameterInfo {
        info ?? ParameterInfo(name: "", location: nil)
    }

    /// The description of the parameter named `name`, for validation, `flowrun tasks` and the schema.
    func spec(named name: String) -> ParameterSpec {
        ParameterSpec(
            name, Wrapped.parameterType, default: defaultValue?.parameterValue,
            required: defaultValue == nil && !Wrapped.isOptional, range: range, summary: help)
    }
}

/// A declared parameter as read from one node: its name, and where its value was written.
public struct ParameterInfo: Sendable, Hashable {
    /// The key in the workflow.
    public let name: String
    /// Where the value was written; `nil` when it was defaulted or absent.
    public let location: SourceLocation?

    /// Whether the workflow gave the parameter (rather than it being defaulted or absent).
    @inlinable public var isGiven: Bool { location != nil }

    @usableFromInline init(name: String, location: SourceLocation?) {
        self.name = name
        self.location = location
    }
}

/// What ``TaskParameters`` reads its declarations from, and what the nodes of a task share of their typed
/// parameters: every ``Parameter``, whatever its value type.
protocol ParameterDeclaration: Sendable {
    func spec(named name: String) -> ParameterSpec
    /// The name and location, once read.
    var projectedValue: ParameterInfo { get }
}

extension Parameter: ParameterDeclaration {}

extension Parameter: Decodable {
    /// Reads the value from a node's parameters (through ``TaskParameters/init(_:)``, which fills in defaults).
    public init(from decoder: any Decoder) throws {
        guard let source = decoder as? ParameterValueDecoder else {
            throw DecodingError.typeMismatch(
                Wrapped.self,
                .init(codingPath: decoder.codingPath, debugDescription: "parameters are read from ParameterValues"))
        }
        help = ""
        range = nil
        defaultValue = nil
        info = ParameterInfo(name: source.name, location: source.location)
        if let given = source.value {
            guard let typed = Wrapped(parameter: given) else {
                throw DecodingError.typeMismatch(
                    Wrapped.self,
                    .init(codingPath: decoder.codingPath, debugDescription: "'\(source.name)' is \(given.typeName)"))
            }
            value = typed
        }
    }
}
