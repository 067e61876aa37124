import Foundation

/// A request as ``LocalHTTPServer`` received it, for assertions on what a client sent.
package struct RecordedRequest: Sendable {
    /// The method, e.g. `GET`.
    package var method: String
    /// The request target as sent, query included, e.g. `/a?b=1`.
    package var target: String
    /// The header lines in the order received.
    package var headers: [LocalHTTPServer.HTTPHeader]
    /// The body, if the request had a `Content-Length`.
    package var body: [UInt8]

    /// The path of ``target`` without the query.
    package var path: String {
        String(target.prefix { $0 != "?" })
    }

    /// The value of the first header with this name, compared case-insensitively.
    package func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Creates a recorded request.
    package init(method: String, target: String, headers: [LocalHTTPServer.HTTPHeader], body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
    }

    /// Parses a request head (everything before the blank line). Returns `nil` when it is malformed.
    static func parse(head: [UInt8]) -> RecordedRequest? {
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = lines.first?.split(separator: " ", omittingEmptySubsequences: true) ?? []
        guard requestLine.count >= 2 else { return nil }
        var headers: [LocalHTTPServer.HTTPHeader] = []
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers.append(.init(String(line[..<colon]), value))
        }
        return RecordedRequest(method: String(requestLine[0]), target: String(requestLine[1]), headers: headers)
    }
}
