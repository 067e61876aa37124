import FlowKit

/// The colour of each node status on the page, light and dark, and the CSS classes that carry them.
///
/// Statuses are iterated from `NodeStatus.allCases`: one the page does not know yet gets the next colour of a
/// spare palette, so a new status shows up distinct without a change here.
enum StatusPalette {
    /// Known statuses: (light, dark).
    private static let known: [String: (String, String)] = [
        "succeeded": ("#2e9e5b", "#3fb872"),
        "failed": ("#d63a3a", "#f05454"),
        "skipped": ("#b9b9c3", "#5d5d6b"),
        "cancelled": ("#e09b2d", "#f0ae45"),
        "cached": ("#3b82c4", "#5aa0e0"),
        "restored": ("#2f9fb8", "#4cc1da"),
        "pending": ("#e4e4ea", "#34343e"),
        "queued": ("#e4e4ea", "#34343e"),
        "running": ("#8e6bd1", "#a98bea"),
        "retrying": ("#c45fb0", "#dc7ac8"),
    ]
    private static let spare: [(String, String)] = [
        ("#1f9aa8", "#35c0cf"), ("#9a7b1f", "#c8a43a"), ("#6b7bd1", "#8c9bf0"), ("#a8551f", "#d27a3f"),
    ]

    /// The CSS class of a status: `s-` and its name.
    static func cssClass(_ status: NodeStatus) -> String { "s-\(status.rawValue)" }

    /// One custom property per status (`--s-failed`) for light and dark schemes, and a background class each.
    static var css: String {
        var light = ":root{"
        var dark = "@media (prefers-color-scheme: dark){:root{"
        var classes = ""
        var spareIndex = 0
        for status in NodeStatus.allCases {
            let colours: (String, String)
            if let known = known[status.rawValue] {
                colours = known
            } else {
                colours = spare[spareIndex % spare.count]
                spareIndex += 1
            }
            light += "--\(cssClass(status)):\(colours.0);"
            dark += "--\(cssClass(status)):\(colours.1);"
            classes += ".\(cssClass(status)){background:var(--\(cssClass(status)));fill:var(--\(cssClass(status)))}\n"
        }
        return light + "}\n" + dark + "}}\n" + classes
    }

    /// Every status in the order the page lists them: failures first, success last, a status the page does not
    /// know (a newer one) before success.
    static var ordered: [NodeStatus] {
        let rank = ["failed": 0, "cancelled": 1, "skipped": 2, "succeeded": 9]
        return NodeStatus.allCases.enumerated()
            .sorted { (rank[$0.element.rawValue] ?? 3, $0.offset) < (rank[$1.element.rawValue] ?? 3, $1.offset) }
            .map(\.element)
    }
}
