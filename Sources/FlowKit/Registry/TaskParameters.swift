import FlowBasics

/// The parameters of a task type, declared once: one ``Parameter`` property per parameter, rules over several
/// of them, and checks that need more than one value. From this declaration FlowKit derives `flowrun tasks`, the
/// JSON Schema, validation with located diagnostics, the store's key, and the typed value an operation reads
/// (`context.parameters(as: Parameters.self).intensity`, where a misspelt name does not compile).
///
/// ## Implementation requirements
///
/// - Every stored property is a ``Parameter``; its name is the key in the workflow.
/// - `init()` makes the declared defaults (a public type writes `public init() {}`).
/// - ``rules`` names parameters through their projected values (`\.$scale`), never by string.
/// - ``validate(reading:into:)`` reports at the parameter's `$name.location`; it never throws.
public protocol TaskParameters: Decodable, Sendable {
    /// The declared parameters, each with its default.
    init()
    /// Rules over several parameters, such as "at most one of scale and width".
    static var rules: [ParameterRule<Self>] { get }
    /// Checks one node's values beyond their types, ranges and rules (a colour name, a list's items).
    /// - Parameters:
    ///   - input: The kind the node reads, as the graph tells before anything runs; `nil` when it reads nothing.
    ///   - diagnostics: Where to report problems.
    func validate(reading input: ProviderKind?, into diagnostics: inout Diagnostics)
    /// The parameters a node's item may set (`[.storage(\._path)]`): the nodes of a task over items whose values
    /// mention the item only in these copy the task's parameters, read once, and set them, instead of each reading
    /// every parameter. Default none: each node reads all its parameters.
    static var itemParameters: [ItemParameter<Self>] { get }
}

extension TaskParameters {
    /// No rules across parameters.
    public static var rules: [ParameterRule<Self>] { [] }
    /// Checks nothing beyond the declarations and the rules.
    public func validate(reading input: ProviderKind?, into diagnostics: inout Diagnostics) {}
    /// No parameter set per item.
    public static var itemParameters: [ItemParameter<Self>] { [] }

    /// ``itemParameters`` by the name each has in the workflow.
    static var itemParametersByName: [String: ItemParameter<Self>] {
        let named = Self.named
        return Dictionary(
            itemParameters.map { ($0.declaration(named).projectedValue.name, $0) },
            uniquingKeysWith: { first, _ in first })
    }

    /// The parameters of one node, typed; absent parameters get their declared defaults.
    ///
    /// Validation has checked the values against the declaration before any operation reads them, so a value
    /// that does not fit is a programming error (a context made by hand with the wrong values).
    public init(_ values: ParameterValues) {
        self.init(values, reusing: [:])
    }

    /// The parameters of one node, or `nil` when a required one is missing (a workflow still being validated).
    public init?(complete values: ParameterValues) {
        // Asked of every node by the plan-time hooks: the parameters read when it was resolved, taken in place.
        if case .some(let decoded) = values.decoded, let typed = decoded as? Self {
            self = typed
            return
        }
        self.init(complete: values, reusing: [:])
    }

    /// The parameters of one node, or `nil` when a required one is missing, taking those in `shared` as they are.
    init?(complete values: ParameterValues, reusing shared: [String: any ParameterDeclaration]) {
        // Read only when complete, and dropped when a value changes.
        if let decoded = values.decoded as? Self {
            self = decoded
            return
        }
        let declaration = DeclarationCache.shared.declaration(of: Self.self)
        guard declaration.specs.allSatisfy({ !$0.isRequired || values[$0.name] != nil }) else { return nil }
        self.init(values, defaults: declaration.defaults, reusing: shared)
    }

    private init(_ values: ParameterValues, reusing shared: [String: any ParameterDeclaration]) {
        if let decoded = values.decoded as? Self {
            self = decoded
            return
        }
        self.init(values, defaults: DeclarationCache.shared.declaration(of: Self.self).defaults, reusing: shared)
    }

    /// Reads `values` through the synthesized `Decodable` conformance, absent ones from `defaults`.
    private init(
        _ values: ParameterValues, defaults: [String: Value], reusing shared: [String: any ParameterDeclaration]
    ) {
        do {
            self = try Self(from: ParametersDecoder(values: values, defaults: defaults, shared: shared))
        } catch {
            preconditionFailure("\(Self.self) cannot read its parameters: \(error)")
        }
    }

    /// Each parameter of this value not named in `excluded`, by name: what the nodes of a task whose values
    /// differ only in `excluded` share (``TaskType/decode(_:reusing:)``).
    func parameters(excluding excluded: Set<String>) -> [String: any ParameterDeclaration] {
        Mirror(reflecting: self).children.reduce(into: [:]) { shared, child in
            guard let label = child.label, let parameter = child.value as? any ParameterDeclaration else { return }
            let name = label.hasPrefix("_") ? String(label.dropFirst()) : label
            if !excluded.contains(name) { shared[name] = parameter }
        }
    }

    /// Every declared parameter, in declaration order.
    public static var declarations: [ParameterSpec] {
        DeclarationCache.shared.declaration(of: Self.self).specs
    }

    /// The ``rules`` with the parameters named.
    public static var constraints: [ParameterConstraint] {
        DeclarationCache.shared.declaration(of: Self.self).constraints
    }

    /// The declaration read from a default instance: each property's label (without the wrapper's `_`) and the
    /// ``Parameter`` behind it.
    fileprivate static func readDeclarations() -> [ParameterSpec] {
        Mirror(reflecting: Self()).children.map { child in
            let label = child.label.map { $0.hasPrefix("_") ? String($0.dropFirst()) : $0 } ?? "?"
            guard let declaration = child.value as? any ParameterDeclaration else {
                preconditionFailure("\(Self.self).\(label) is not declared with @Parameter")
            }
            return declaration.spec(named: label)
        }
    }

    /// An instance whose projected values carry their names, to resolve key paths in ``rules``.
    static var named: Self {
        do {
            return try Self(from: ParametersDecoder(values: ParameterValues(), defaults: [:]))
        } catch {
            preconditionFailure("\(Self.self) cannot read its parameters: \(error)")
        }
    }
}

/// A task type without parameters.
public struct NoParameters: TaskParameters {
    /// Creates the empty parameters.
    public init() {}
}

/// A rule over several parameters of one task type, naming them by key path so a misspelt name does not compile.
public struct ParameterRule<Parameters: TaskParameters>: Sendable {
    /// The rule with the parameters named.
    public let constraint: ParameterConstraint

    /// At most one of these may be given.
    public static func atMostOne(of keys: KeyPath<Parameters, ParameterInfo>...) -> Self {
        Self(constraint: .mutuallyExclusive(names(keys)))
    }

    /// At least one of these must be given.
    public static func atLeastOne(of keys: KeyPath<Parameters, ParameterInfo>...) -> Self {
        Self(constraint: .oneRequired(names(keys)))
    }

    /// `key` may only be given together with every one of `others`.
    public static func given(
        _ key: KeyPath<Parameters, ParameterInfo>, requires others: KeyPath<Parameters, ParameterInfo>...
    ) -> Self {
        Self(constraint: .requires(key: names([key])[0], requires: names(others)))
    }

    private static func names(_ keys: [KeyPath<Parameters, ParameterInfo>]) -> [String] {
        let named = Parameters.named
        return keys.map { named[keyPath: $0].name }
    }
}

/// The declaration of each ``TaskParameters`` type, read once: validation asks for it per node.
private final class DeclarationCache: Sendable {
    struct Declaration {
        var specs: [ParameterSpec]
        var constraints: [ParameterConstraint]
        /// Each default by name: what a parameter absent from a node's values reads.
        var defaults: [String: Value]
    }

    static let shared = DeclarationCache()
    private let byType = LockedBox<[ObjectIdentifier: Declaration]>([:])

    func declaration<P: TaskParameters>(of type: P.Type) -> Declaration {
        let key = ObjectIdentifier(type)
        if let known = byType.withLock({ $0[key] }) { return known }
        // Read outside the lock: a type's `rules` may itself ask for its declaration (the lock is not recursive).
        let specs = P.readDeclarations()
        let read = Declaration(
            specs: specs, constraints: P.rules.map(\.constraint),
            defaults: Dictionary(
                specs.compactMap { spec in spec.defaultValue.map { (spec.name, $0) } },
                uniquingKeysWith: { first, _ in first }))
        byType.withLock { $0[key] = read }
        return read
    }
}
