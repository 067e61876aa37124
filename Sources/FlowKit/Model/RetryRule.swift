/// Which failures a task retries: `retryOn:` as written. Without it, a task retries what another attempt
/// could change (``NodeFailure/isTransient``: connection errors, timeouts, HTTP 408, 425, 429 and 5xx).
///
/// ```yaml
/// retryOn: [transient, status: 404]   # widen: the defaults and 404 (a file not published yet)
/// retryOn: [status: [502, 503]]       # narrow: only these
/// retryOn: [any]                      # every failure
/// ```
package struct RetryRule: Sendable, Equatable {
    /// One entry of `retryOn:`.
    package enum Condition: Sendable, Equatable {
        /// `any`: every failure.
        case any
        /// `transient`: the default set.
        case transient
        /// `network`: a transfer that failed below HTTP (refused, reset, DNS, TLS).
        case network
        /// `timeout`: an attempt that ran past the task's `timeout`.
        case timeout
        /// `status: N` or `status: [N, …]`: these HTTP statuses.
        case status([Int])
    }

    /// The entries, in the order written.
    package var conditions: [Condition]

    /// Creates a rule from its entries.
    package init(_ conditions: [Condition]) { self.conditions = conditions }

    /// The keywords an entry may be, besides `status:`.
    static let keywords = ["any", "transient", "network", "timeout"]

    /// Whether a failure may be retried under `rule` (the default, ``NodeFailure/isTransient``, when `nil`).
    static func allows(_ failure: NodeFailure, under rule: RetryRule?) -> Bool {
        guard let rule else { return failure.isTransient }
        return rule.conditions.contains { condition in
            switch condition {
            case .any: true
            case .transient: failure.isTransient
            case .network: failure.code == .network
            case .timeout: failure.code == .timedOut
            case .status(let statuses): failure.httpStatus.map(statuses.contains) ?? false
            }
        }
    }
}
