import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP relay on 127.0.0.1 in front of the S3 server that counts connections, and requests by method and query
/// (reading each request's head and `Content-Length` body, so a kept-alive connection's every request is seen),
/// and answers the first `failures` of them with `503 SlowDown` and `Connection: close` instead of relaying them.
/// A stalling relay reads requests and never answers.
final class S3Proxy: Sendable {
    let port: UInt16
    private let upstream: UInt16
    private let listener: Int32
    private let state: Mutex<(requests: [String], failuresLeft: Int, connections: Int)>
    /// Whether requests are read and never answered, for timeouts.
    private let stalls: Bool
    /// The requests answered `503` from now on: those whose target contains this text (every one for "").
    private let refused = Mutex<String?>(nil)

    init(upstream: UInt16, failures: Int = 0, stalls: Bool = false) throws {
        self.upstream = upstream
        self.stalls = stalls
        state = Mutex(([], failures, 0))
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard fd >= 0, bound == 0, listen(fd, 128) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        Thread { [self] in acceptLoop() }.start()
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// Answers `503 SlowDown` from now on to every request whose target contains `fragment` (every one for
    /// ""), as a server that went away would fail them; `nil` relays every request again.
    func refuse(_ fragment: String?) {
        refused.withLock { $0 = fragment }
    }

    /// The request lines seen, e.g. `GET /bucket?list-type=2&prefix=p`.
    var requests: [String] { state.withLock { $0.requests } }

    /// The connections clients opened.
    var connections: Int { state.withLock { $0.connections } }

    /// How many requests had `method` and a target containing `fragment`.
    func count(_ method: String, containing fragment: String = "") -> Int {
        requests.filter { $0.hasPrefix(method + " ") && (fragment.isEmpty || $0.contains(fragment)) }.count
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            Thread { [self] in serve(client) }.start()
        }
    }

    private func serve(_ client: Int32) {
        state.withLock { $0.connections += 1 }
        var upstreamConnection: (socket: Int32, back: Thread)?
        defer {
            if let (server, back) = upstreamConnection {
                shutdown(server, Int32(SHUT_WR))
                // Wait for the last answer to be relayed before closing both ends.
                while !back.isFinished { usleep(1000) }
                close(server)
            }
            close(client)
        }
        var pending = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65536)
        func readMore() -> Bool {
            let count = recv(client, &buffer, buffer.count, 0)
            guard count > 0 else { return false }
            pending += buffer[0..<count]
            return true
        }
        while true {
            // A request's head: up to the first empty line.
            var headEnd: Int?
            while headEnd == nil {
                headEnd = Self.endOfHead(in: pending)
                if headEnd == nil, !readMore() { return }
            }
            let head = Array(pending[..<headEnd!])
            pending.removeFirst(headEnd!)
            let line = String(decoding: head.prefix { $0 != 13 && $0 != 10 }, as: UTF8.self)
            let target = line.split(separator: " ").prefix(2).joined(separator: " ")
            // `contains("")` is false: "" refuses every request.
            let refusedNow = refused.withLock { fragment in fragment.map { $0.isEmpty || target.contains($0) } ?? false
            }
            let fail = state.withLock { state -> Bool in
                state.requests.append(target)
                if refusedNow { return true }
                guard state.failuresLeft > 0 else { return false }
                state.failuresLeft -= 1
                return true
            }
            if stalls {
                while recv(client, &buffer, buffer.count, 0) > 0 {}
                return
            }
            if fail {
                let body = "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>"
                let reply =
                    "HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml\r\nContent-Length: \(body.utf8.count)"
                    + "\r\nConnection: close\r\n\r\n" + body
                _ = Self.sendAll(client, Array(reply.utf8))
                // Read what the client still sends (a PUT's body) before closing, so it sees the answer, not a reset.
                shutdown(client, Int32(SHUT_WR))
                var timeout = timeval(tv_sec: 2, tv_usec: 0)
                setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                while recv(client, &buffer, buffer.count, 0) > 0 {}
                return
            }
            if upstreamConnection == nil {
                guard let opened = openUpstream(answeringTo: client) else { return }
                upstreamConnection = opened
            }
            guard let server = upstreamConnection?.socket, Self.sendAll(server, head) else { return }
            var remaining = Self.contentLength(of: head)
            while remaining > 0 {
                if pending.isEmpty, !readMore() { return }
                let part = min(remaining, pending.count)
                guard Self.sendAll(server, Array(pending[..<part])) else { return }
                pending.removeFirst(part)
                remaining -= part
            }
        }
    }

    /// A connection to the server, and the thread relaying its answers to `client`.
    private func openUpstream(answeringTo client: Int32) -> (socket: Int32, back: Thread)? {
        let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = upstream.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(server)
            return nil
        }
        let back = Thread {
            var chunk = [UInt8](repeating: 0, count: 65536)
            while case let count = recv(server, &chunk, chunk.count, 0), count > 0 {
                guard Self.sendAll(client, Array(chunk[0..<count])) else { break }
            }
            shutdown(client, Int32(SHUT_RDWR))
        }
        back.start()
        return (server, back)
    }

    /// Where a request's head ends (after its empty line), or `nil` when it has not all arrived.
    private static func endOfHead(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count
        where bytes[index - 3] == 13 && bytes[index - 2] == 10 && bytes[index - 1] == 13 && bytes[index] == 10 {
            return index + 1
        }
        return nil
    }

    /// The `Content-Length` a request's head gives, 0 without one.
    private static func contentLength(of head: [UInt8]) -> Int {
        for line in String(decoding: head, as: UTF8.self).split(separator: "\r\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "content-length" {
                return Int(parts[1].trimmingCharacters(in: .whitespaces)) ?? 0
            }
        }
        return 0
    }

    private static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }
}
