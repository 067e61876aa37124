import Foundation

/// Which HTTP answers another attempt may change, and how long a server asks to wait (RFC 9110 §15, §10.2.3).
enum HTTPRetry {
    /// Request Timeout, Too Early, Too Many Requests and every 5xx: the server may answer differently later.
    /// Other statuses (401, 403, 404, 410, a 3xx without a usable redirect) would only repeat.
    static func isTransient(status: Int) -> Bool {
        status == 408 || status == 425 || status == 429 || (500..<600).contains(status)
    }

    /// The wait a `Retry-After` value asks for: delay-seconds, or an HTTP date (a date in the past is no wait).
    /// `nil` when the value is neither.
    static func delay(retryAfter value: String, now: Date = Date()) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(text), seconds >= 0 { return .seconds(seconds) }
        guard let date = httpDate().date(from: text) else { return nil }
        return .milliseconds(Int64(max(0, date.timeIntervalSince(now)) * 1000))
    }

    /// The IMF-fixdate form every HTTP/1.1 server sends: `Sun, 06 Nov 1994 08:49:37 GMT`. Made per use: a
    /// formatter is not `Sendable`, and a date-valued Retry-After is rare.
    private static func httpDate() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter
    }
}
