import FlowKit
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension LocalHTTPServer.Core {
    /// How a connection ends after its reply.
    private enum Ending { case close, reset }

    /// Serves one connection: reads one request, plays its route's reply, closes. Runs on its own thread.
    func serve(_ fd: Int32) {
        var ending = Ending.close
        if let request = readRequest(fd) {
            let (reply, hit) = admit(request)
            ending = play(reply, for: request, hit: hit, on: fd)
        }
        if ending == .close { shutdown(fd, Int32(SHUT_WR)) }
        closeConnection(fd, reset: ending == .reset)
    }

    /// Reads the request head and, when it has a `Content-Length`, its body.
    private func readRequest(_ fd: Int32) -> RecordedRequest? {
        var buffer: [UInt8] = []
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while headEnd == nil {
            let chunk = POSIXSocket.receive(fd)
            guard !chunk.isEmpty, buffer.count + chunk.count <= 1 << 20 else { return nil }
            buffer += chunk
            headEnd = buffer.firstRange(of: separator)?.lowerBound
        }
        guard let headEnd, var request = RecordedRequest.parse(head: Array(buffer[..<headEnd])) else { return nil }
        var body = Array(buffer[(headEnd + separator.count)...])
        let length = request.header("Content-Length").flatMap { Int($0) } ?? 0
        while body.count < length {
            let chunk = POSIXSocket.receive(fd)
            guard !chunk.isEmpty else { return nil }
            body += chunk
        }
        request.body = body
        return request
    }

    /// Plays a reply on the connection.
    private func play(_ reply: LocalHTTPServer.Reply, for request: RecordedRequest, hit: Int, on fd: Int32) -> Ending {
        switch reply {
        case .status(let code, let headers, let body):
            var all = headers
            all.append(.init("Content-Length", String(body.count)))
            guard sendData(head(code, all) + body, on: fd) else { return .close }
            countBodyBytes(body.count, path: request.path)
            return .close

        case .redirect(let location, let code):
            return send(head(code, [.init("Location", location), .init("Content-Length", "0")]), on: fd)

        case .stallAfterHeaders(let declaredLength, let body):
            _ = send(head(200, [.init("Content-Length", String(declaredLength))]) + body, on: fd)
            _ = pause(fd, until: nil)
            return .close

        case .stall:
            _ = pause(fd, until: nil)
            return .close

        case .delayed(let duration, let next):
            guard pause(fd, until: ContinuousClock.now + duration) else { return .close }
            return play(next, for: request, hit: hit, on: fd)

        case .truncated(let declaredLength, let body):
            return send(head(200, [.init("Content-Length", String(declaredLength))]) + body, on: fd)

        case .reset(let prefix):
            _ = send(prefix, on: fd)
            return .reset

        case .stream(let byteCount, let chunked, let pause, let writeSize, let status):
            streamBody(
                byteCount: byteCount, chunked: chunked, pause: pause, writeSize: writeSize, status: status,
                path: request.path, on: fd)
            return .close

        case .raw(let bytes):
            return send(bytes, on: fd)

        case .sequence(let replies):
            guard let next = replies.isEmpty ? nil : replies[min(hit, replies.count - 1)] else {
                return send(head(500, [.init("Content-Length", "0")]), on: fd)
            }
            return play(next, for: request, hit: hit, on: fd)

        case .handler(let makeReply):
            return play(makeReply(request), for: request, hit: hit, on: fd)
        }
    }

    /// Sends the pattern body in 64 KiB writes, counting what the kernel accepted, until done or the client
    /// goes away (a failed send, or a hang-up seen during a pause) or the server stops.
    private func streamBody(
        byteCount: Int, chunked: Bool, pause: Duration, writeSize: Int, status: Int, path: String, on fd: Int32
    ) {
        let framing =
            chunked
            ? LocalHTTPServer.HTTPHeader("Transfer-Encoding", "chunked")
            : LocalHTTPServer.HTTPHeader("Content-Length", String(byteCount))
        guard send(head(status, [framing]), on: fd) == .close else { return }
        // 261 × 251 bytes: a whole number of pattern periods, so consecutive writes continue the pattern.
        let block = LocalHTTPServer.patternBytes(261 * 251)
        var remaining = byteCount
        while remaining > 0, !isStopped {
            // From where the last write stopped in the block, so the pattern continues across writes.
            let start = (byteCount - remaining) % block.count
            let piece = block[start..<min(start + min(remaining, max(1, writeSize)), block.count)]
            let framed =
                chunked ? Data((String(piece.count, radix: 16) + "\r\n").utf8) + piece + Data("\r\n".utf8) : piece
            guard sendData(framed, on: fd) else { return }
            countBodyBytes(piece.count, path: path)
            remaining -= piece.count
            if pause > .zero, remaining > 0, !self.pause(fd, until: ContinuousClock.now + pause) { return }
        }
        if chunked, remaining == 0 { _ = sendData(Data("0\r\n\r\n".utf8), on: fd) }
    }

    private func send(_ data: Data, on fd: Int32) -> Ending {
        _ = sendData(data, on: fd)
        return .close
    }

    private func sendData(_ data: Data, on fd: Int32) -> Bool {
        data.withUnsafeBytes { POSIXSocket.sendAll(fd, $0) }
    }

    private func head(_ code: Int, _ headers: [LocalHTTPServer.HTTPHeader]) -> Data {
        var text = "HTTP/1.1 \(code) \(FetchErrors.reasonPhrase(code))\r\n"
        for header in headers { text += "\(header.name): \(header.value)\r\n" }
        text += "Connection: close\r\n\r\n"
        return Data(text.utf8)
    }

}
