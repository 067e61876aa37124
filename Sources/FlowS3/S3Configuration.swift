import Foundation

/// Where S3 requests go and how they are signed, found as the AWS command-line tools find them.
///
/// Credentials: `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` / `AWS_SESSION_TOKEN`, else the profile's keys in
/// the shared credentials file, else in the config file, else none (anonymous requests, for public buckets).
/// The profile is `AWS_PROFILE` (else `default`); the files are `AWS_SHARED_CREDENTIALS_FILE` and
/// `AWS_CONFIG_FILE`, else `~/.aws/credentials` and `~/.aws/config`. Region: `AWS_REGION`,
/// `AWS_DEFAULT_REGION`, the profile's `region`, else `us-east-1`. Endpoint: `AWS_ENDPOINT_URL_S3`,
/// `AWS_ENDPOINT_URL`, the profile's `endpoint_url`, else AWS itself.
package struct S3Configuration: Sendable, Equatable {
    /// The signing region.
    package var region: String
    /// A custom endpoint (MinIO, SeaweedFS, a proxy): requests then use path-style addressing.
    package var endpoint: URL?
    /// `nil` for anonymous requests.
    package var credentials: S3Credentials?

    /// Creates a configuration.
    package init(region: String, endpoint: URL?, credentials: S3Credentials?) {
        self.region = region
        self.endpoint = endpoint
        self.credentials = credentials
    }

    /// The configuration the environment and the AWS files describe.
    /// - Parameters:
    ///   - environment: The process environment (a test passes its own).
    ///   - home: The home folder, for `~/.aws`.
    /// - Throws: `S3Error.configuration` for an endpoint that is not an http(s) URL, or a profile named
    ///   by `AWS_PROFILE` that neither file has.
    package static func resolve(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        home: String = NSHomeDirectory()
    ) throws(S3Error) -> S3Configuration {
        func variable(_ name: String) -> String? {
            guard let value = environment[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else {
                return nil
            }
            return value
        }
        let explicitProfile = variable("AWS_PROFILE")
        let profile = explicitProfile ?? "default"
        let credentialsFile = AWSProfileFile(
            path: variable("AWS_SHARED_CREDENTIALS_FILE") ?? home + "/.aws/credentials", isConfig: false)
        let configFile = AWSProfileFile(path: variable("AWS_CONFIG_FILE") ?? home + "/.aws/config", isConfig: true)
        let fromCredentials = credentialsFile.settings(of: profile)
        let fromConfig = configFile.settings(of: profile)
        if let explicitProfile, fromCredentials == nil, fromConfig == nil {
            throw .configuration(
                "AWS_PROFILE names the profile '\(explicitProfile)', which neither \(credentialsFile.path) nor"
                    + " \(configFile.path) has")
        }
        let region =
            variable("AWS_REGION") ?? variable("AWS_DEFAULT_REGION") ?? fromConfig?["region"] ?? "us-east-1"
        var endpoint: URL?
        if let text = variable("AWS_ENDPOINT_URL_S3") ?? variable("AWS_ENDPOINT_URL") ?? fromConfig?["endpoint_url"] {
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                scheme == "http" || scheme == "https", url.host?.isEmpty == false
            else { throw .configuration("the S3 endpoint '\(text)' is not an http(s) URL") }
            endpoint = url
        }
        return S3Configuration(
            region: region, endpoint: endpoint,
            credentials: credentials(
                environment: variable, profiles: [fromCredentials, fromConfig].compactMap { $0 }))
    }

    private static func credentials(environment: (String) -> String?, profiles: [[String: String]])
        -> S3Credentials?
    {
        if let id = environment("AWS_ACCESS_KEY_ID"), let secret = environment("AWS_SECRET_ACCESS_KEY") {
            return S3Credentials(
                accessKeyID: id, secretAccessKey: secret, sessionToken: environment("AWS_SESSION_TOKEN"))
        }
        for settings in profiles {
            if let id = settings["aws_access_key_id"], let secret = settings["aws_secret_access_key"] {
                return S3Credentials(
                    accessKeyID: id, secretAccessKey: secret, sessionToken: settings["aws_session_token"])
            }
        }
        return nil
    }
}

/// One of the AWS INI files: `[name]` sections in the credentials file, `[default]` and `[profile name]` in
/// the config file, `key = value` lines. Indented lines (a service's nested settings) are not read.
struct AWSProfileFile {
    let path: String
    let isConfig: Bool

    /// The settings of `profile`, or `nil` when the file or the section is missing.
    func settings(of profile: String) -> [String: String]? {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8)
        else { return nil }
        let wanted = isConfig && profile != "default" ? "profile \(profile)" : profile
        var inSection = false
        var found: [String: String]?
        for rawLine in text.split(whereSeparator: \.isNewline) {
            guard let first = rawLine.first, first != " ", first != "\t" else { continue }
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                let name = line.dropFirst().dropLast().split(separator: " ", omittingEmptySubsequences: true)
                    .joined(separator: " ")
                inSection = name == wanted
                if inSection, found == nil { found = [:] }
                continue
            }
            guard inSection, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            found?[key] = value
        }
        return found
    }
}
