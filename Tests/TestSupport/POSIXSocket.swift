#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failed socket call, with the call's name and `errno`.
struct SocketError: Error, CustomStringConvertible {
    var call: String
    var code: Int32
    var description: String { "\(call) failed: \(String(cString: strerror(code))) (errno \(code))" }
}

/// The few POSIX socket calls ``LocalHTTPServer`` needs, with the platform differences in one place.
///
/// Every descriptor is created close-on-exec: tests in the same process spawn children (the `command` task),
/// and a child that inherited a connection would keep it open after the server closed it, so the client
/// would never see the end of a truncated body.
enum POSIXSocket {
    /// A non-blocking TCP socket listening on 127.0.0.1 at an ephemeral port.
    static func listenOnLoopback(backlog: Int32 = 64) throws -> (fd: Int32, port: UInt16) {
        try bindLoopback(listening: backlog)
    }

    /// A TCP socket bound to 127.0.0.1 at an ephemeral port, listening only when `backlog` is given.
    static func bindLoopback(listening backlog: Int32?) throws -> (fd: Int32, port: UInt16) {
        #if os(Linux)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
            if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        #endif
        guard fd >= 0 else { throw SocketError(call: "socket", code: errno) }
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))

        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0  // the kernel picks a free port, so parallel tests never collide
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, backlog.map({ listen(fd, $0) == 0 }) ?? true else {
            let code = errno
            close(fd)
            throw SocketError(call: "bind/listen", code: code)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            let code = errno
            close(fd)
            throw SocketError(call: "getsockname", code: code)
        }
        // Non-blocking so the accept loop can poll with a timeout and notice `stop()`.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    /// Accepts one connection as a blocking, close-on-exec descriptor, or returns -1.
    static func accept(_ listener: Int32) -> Int32 {
        // `accept4(SOCK_CLOEXEC)` is not exported by the Glibc module; the window between accept and fcntl is
        // the only one where a concurrently spawned child could inherit the descriptor.
        #if canImport(Darwin)
            let fd = Darwin.accept(listener, nil, nil)
        #elseif canImport(Glibc)
            let fd = Glibc.accept(listener, nil, nil)
        #else
            let fd = Musl.accept(listener, nil, nil)
        #endif
        if fd >= 0 {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            // Linux does not pass O_NONBLOCK on to accepted sockets; Darwin does, so clear it there.
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        }
        return fd
    }

    /// Waits up to `milliseconds` for the descriptor to become readable (or hung up).
    /// - Returns: Whether it is readable.
    static func waitReadable(_ fd: Int32, milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) > 0
    }

    /// Receives up to `count` bytes; an empty result means the peer closed or the call failed.
    static func receive(_ fd: Int32, max count: Int = 16 * 1024) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        let received = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, count, 0) }
        guard received > 0 else { return [] }
        return Array(buffer.prefix(received))
    }

    /// Sends every byte, or stops at the first error (the peer went away).
    /// - Returns: Whether everything was sent.
    @discardableResult
    static func sendAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            // MSG_NOSIGNAL: a client that hung up must give us EPIPE, not kill the test process with SIGPIPE.
            #if os(Linux)
                let flags = Int32(MSG_NOSIGNAL)
            #else
                let flags: Int32 = 0
            #endif
            guard let base = bytes.baseAddress else { return true }  // only an empty buffer has none
            let sent = send(fd, base + offset, bytes.count - offset, flags)
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// Makes the next `close` send a TCP RST instead of a FIN (SO_LINGER with a zero timeout).
    static func setResetOnClose(_ fd: Int32) {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }
}
