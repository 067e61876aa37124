extension Duration {
    /// Parses a workflow duration: a number with a unit, `250ms`, `20s`, `2m`, `1h`, or `1.5s`.
    ///
    /// A unit is required: a bare number, a negative or non-finite amount is rejected.
    /// - Returns: The duration, or `nil` when the text is not a duration.
    package static func parse(workflowText text: String) -> Duration? {
        let trimmed = text.trimmingSpaces()
        let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        for unit in units where trimmed.hasSuffix(unit.suffix) {
            let number = trimmed.dropLast(unit.suffix.count)
            guard let amount = Double(number), amount.isFinite, amount >= 0,
                number.allSatisfy({ $0.isNumber || $0 == "." })
            else { return nil }
            return .milliseconds(Int64((amount * unit.seconds * 1000).rounded()))
        }
        return nil
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
