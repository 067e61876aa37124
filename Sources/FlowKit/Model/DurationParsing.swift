extension Duration {
    /// The longest duration a workflow may give (a timeout, a sleep, a backoff): a year, written `8760h`. Longer
    /// ones are mistakes, and deadlines past it overflow the clocks' arithmetic.
    package static let longestInWorkflow = Duration.seconds(longestSecondsInWorkflow)
    /// ``longestInWorkflow`` as a workflow writes it, for messages.
    package static let longestInWorkflowText = "\(longestSecondsInWorkflow / 3600)h"
    private static let longestSecondsInWorkflow: Int64 = 8760 * 3600

    /// Parses a workflow duration: a number with a unit, `250ms`, `20s`, `2m`, `1h`, or `1.5s`.
    ///
    /// A unit is required: a bare number, a negative or non-finite amount is rejected, and so is one longer than
    /// ``longestInWorkflow``.
    /// - Returns: The duration, or `nil` when the text is not a duration.
    package static func parse(workflowText text: String) -> Duration? {
        seconds(workflowText: text).flatMap(inWorkflowRange)
    }

    /// The number of seconds a workflow duration's text says, however large: `nil` when it is not a duration.
    package static func seconds(workflowText text: String) -> Double? {
        let trimmed = text.trimmingSpaces()
        let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        for unit in units where trimmed.hasSuffix(unit.suffix) {
            let number = trimmed.dropLast(unit.suffix.count)
            guard let amount = Double(number), amount.isFinite, amount >= 0,
                number.allSatisfy({ $0.isNumber || $0 == "." })
            else { return nil }
            return amount * unit.seconds
        }
        return nil
    }

    /// A number of seconds as a duration, in milliseconds; `nil` when negative, not finite or longer than
    /// ``longestInWorkflow``.
    package static func inWorkflowRange(seconds: Double) -> Duration? {
        guard seconds.isFinite, seconds >= 0, seconds <= Double(longestSecondsInWorkflow) else { return nil }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// The duration as seconds in a `Double`.
    package var seconds: Double {
        self / .seconds(1)  // a division of two integers as doubles: cheaper than splitting into `components`
    }

    /// A short human form: `250ms`, `20s`, `1.5s`, `2m`.
    package var shortDescription: String {
        let total = seconds
        if total < 1 { return "\(Int((total * 1000).rounded()))ms" }
        if total < 60 {
            let rounded = (total * 10).rounded() / 10
            return rounded == rounded.rounded() ? "\(Int(rounded))s" : "\(rounded)s"
        }
        if total.truncatingRemainder(dividingBy: 60) == 0 { return "\(Int(total / 60))m" }
        return "\(Int(total / 60))m\(Int(total.truncatingRemainder(dividingBy: 60)))s"
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces.
    func trimmingSpaces() -> Substring {
        var sub = Substring(self)
        while sub.first == " " { sub = sub.dropFirst() }
        while sub.last == " " { sub = sub.dropLast() }
        return sub
    }
}
