import FlowKit

extension ResizeTask {
    /// What `resize`'s `withoutEnlargement` asks of a size larger than the picture: `false` enlarges it, `true`
    /// keeps its size (sharp's semantics), `skip` makes nothing — the node ends `skipped`, saying why, so no file
    /// is written under a size the picture does not have.
    package enum Enlargement: Sendable, Hashable, ParameterValue {
        /// `false`: the picture is resampled to the size asked, larger or not.
        case allowed
        /// `true`: the scale factor is capped at 1 (per axis for `fill`); a smaller picture keeps its size.
        case keepsSize
        /// `skip`: a resize that would enlarge does not happen; the node is skipped with the cause.
        case skips

        /// `true` or `false`, or `skip`.
        package static var parameterType: ParameterSpec.ValueType { .boolOr(["skip"]) }

        /// `false`, `true` or `skip`; `nil` for any other value.
        package init?(parameter value: Value) {
            switch value {
            case .bool(let flag): self = flag ? .keepsSize : .allowed
            case .string("skip"): self = .skips
            default: return nil
            }
        }

        /// The value as written in a workflow.
        package var parameterValue: Value {
            switch self {
            case .allowed: .bool(false)
            case .keepsSize: .bool(true)
            case .skips: .string("skip")
            }
        }
    }
}
