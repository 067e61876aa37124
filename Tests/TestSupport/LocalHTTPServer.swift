import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 for tests: scripted routes, fault injection and a request log.
///
/// Each test starts its own server on an ephemeral port, so tests run in parallel. The server accepts on one
/// thread and serves each connection on its own thread, one request per connection (`Connection: close`).
/// ``stop()`` wakes every blocked or sleeping thread and waits for all of them; it also runs on `deinit`.
///
/// ```swift
/// let server = try LocalHTTPServer(["/a.txt": .ok(Data("hello".utf8))])
/// defer { server.stop() }
/// let url = server.url("/a.txt")   // http://127.0.0.1:PORT/a.txt
/// ```
package final class LocalHTTPServer: Sendable {
    /// The port the server listens on.
    package let port: UInt16
    private let core: Core

    /// Starts a server with the given routes (path without query → reply).
    /// - Throws: An error naming the failed socket call when the socket cannot be opened.
    package init(_ routes: [String: Reply] = [:]) throws {
        let (fd, port) = try POSIXSocket.listenOnLoopback()
        self.port = port
        self.core = Core(listener: fd, routes: routes)
        core.startAccepting()
    }

    deinit { core.stop() }

    /// Adds or replaces the reply of a path; later requests to it see the new reply.
    package func route(_ path: String, _ reply: Reply) {
        core.state.withLock { $0.routes[path] = reply }
    }

    /// The URL of a path on this server, e.g. `http://127.0.0.1:54321/a.txt`.
    package func url(_ path: String) -> URL {
        // A literal scheme and numeric host and port: only a path with characters a URL cannot hold can fail,
        // and its percent-encoded form cannot.
        let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
        guard let url = URL(string: urlString(path)) ?? URL(string: urlString(encoded)) else {
            preconditionFailure("cannot form a URL for the path '\(path)'")
        }
        return url
    }

    /// The URL of a path on this server, as a string.
    package func urlString(_ path: String) -> String {
        "http://127.0.0.1:\(port)" + (path.hasPrefix("/") ? path : "/" + path)
    }

    /// Every request received so far, in arrival order.
    package var requests: [RecordedRequest] { core.state.withLock { $0.requests } }

    /// The requests received for one path.
    package func requests(to path: String) -> [RecordedRequest] { requests.filter { $0.path == path } }

    /// How many body bytes ``Reply/status(_:headers:body:)`` and ``Reply/stream(byteCount:chunked:pause:)``
    /// replies for `path` have handed to the kernel.
    package func bodyBytesSent(_ path: String) -> Int { core.state.withLock { $0.bodyBytesSent[path] ?? 0 } }

    /// How many connections are open: accepted and not yet closed by the server.
    package var openConnections: Int { core.state.withLock { $0.clients.count } }

    /// Stops accepting, interrupts every connection (blocked reads, stalls, delays) and waits for the server's
    /// threads to end. Calling it again does nothing.
    package func stop() { core.stop() }
}

extension LocalHTTPServer {
    /// The server's threads and state, separate from the public handle so the handle's `deinit` can stop them
    /// (the threads hold the core, never the handle).
    final class Core: Sendable {
        struct State: Sendable {
            var routes: [String: Reply]
            var hits: [String: Int] = [:]
            var requests: [RecordedRequest] = []
            var bodyBytesSent: [String: Int] = [:]
            /// Open connection descriptors. A descriptor is closed only under the lock and removed at the same
            /// time, so `stop()` (which shuts them down under the lock) never touches a reused descriptor number.
            var clients: Set<Int32> = []
            var stopped = false
        }

        let state: Mutex<State>
        let listener: Int32
        /// Entered before each thread starts, left when it ends; `stop()` waits on it.
        let threads = DispatchGroup()

        init(listener: Int32, routes: [String: Reply]) {
            self.listener = listener
            self.state = Mutex(State(routes: routes))
        }

        var isStopped: Bool { state.withLock { $0.stopped } }

        func startAccepting() {
            threads.enter()
            let thread = Thread { [self] in
                acceptLoop()
                threads.leave()
            }
            thread.name = "LocalHTTPServer.accept"
            thread.start()
        }

        private func acceptLoop() {
            // Polling with a short timeout (instead of a blocking accept) lets the loop see `stopped` promptly.
            while !isStopped {
                guard POSIXSocket.waitReadable(listener, milliseconds: 50) else { continue }
                let fd = POSIXSocket.accept(listener)
                guard fd >= 0 else { continue }  // EAGAIN after a spurious wake-up, EINTR, ECONNABORTED
                let admitted = state.withLock { state -> Bool in
                    guard !state.stopped else { return false }
                    state.clients.insert(fd)
                    return true
                }
                guard admitted else {
                    close(fd)
                    break
                }
                threads.enter()
                let thread = Thread { [self] in
                    serve(fd)
                    threads.leave()
                }
                thread.name = "LocalHTTPServer.connection"
                thread.start()
            }
            close(listener)
        }

        func stop() {
            state.withLock { state in
                guard !state.stopped else { return }
                state.stopped = true
                // Wake the accept loop's poll now rather than at its next slice; it closes the listener after
                // it has seen `stopped`, so after this call (the lock orders them).
                shutdown(listener, Int32(SHUT_RDWR))
                // Wake threads blocked in recv/send; each closes its own descriptor afterwards.
                for fd in state.clients { shutdown(fd, Int32(SHUT_RDWR)) }
            }
            threads.wait()
        }

        /// Closes a connection, with a reset instead of a FIN when asked.
        func closeConnection(_ fd: Int32, reset: Bool) {
            state.withLock { state in
                if reset { POSIXSocket.setResetOnClose(fd) }
                state.clients.remove(fd)
                close(fd)
            }
        }

        /// Records a request and picks its reply; returns the reply and how many earlier requests the path had.
        func admit(_ request: RecordedRequest) -> (Reply, hit: Int) {
            state.withLock { state in
                state.requests.append(request)
                let hit = state.hits[request.path, default: 0]
                state.hits[request.path] = hit + 1
                let reply =
                    state.routes[request.path] ?? .status(404, body: Data("no route for \(request.path)\n".utf8))
                return (reply, hit)
            }
        }

        func countBodyBytes(_ count: Int, path: String) {
            state.withLock { $0.bodyBytesSent[path, default: 0] += count }
        }

        /// Waits until `deadline` (or forever when `nil`), returning early when the server stops or the client
        /// hangs up.
        /// - Returns: Whether the wait ran to its deadline, i.e. the reply should go on.
        func pause(_ fd: Int32, until deadline: ContinuousClock.Instant?) -> Bool {
            while !isStopped {
                if let deadline, ContinuousClock.now >= deadline { return true }
                // Short slices keep `stop()` prompt whatever the deadline.
                if POSIXSocket.waitReadable(fd, milliseconds: 20) {
                    // Readable during a pause means the client closed (or sent junk we do not need).
                    if POSIXSocket.receive(fd).isEmpty { return false }
                }
            }
            return false
        }
    }
}
