import FlowS3
import Foundation
import TestSupport
import Testing

@testable import FlowKit

/// Credentials, region and endpoint found as the AWS tools find them.
@Suite struct S3ConfigurationTests {
    /// Stands for the home folder; removed with the suite's value.
    let folder: TemporaryFolder
    var home: String { folder.path }

    init() throws {
        folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/.aws", withIntermediateDirectories: true)
        try """
        [default]
        aws_access_key_id = FILEID
        aws_secret_access_key = FILESECRET

        [work]
        aws_access_key_id=WORKID
        aws_secret_access_key=WORKSECRET
        aws_session_token=WORKTOKEN
        """.write(toFile: folder.path + "/.aws/credentials", atomically: true, encoding: .utf8)
        try """
        [default]
        region = eu-west-1

        [profile work]
        region = eu-central-1
        endpoint_url = http://127.0.0.1:9000
        s3 =
          endpoint_url = http://ignored.example
        [profile configonly]
        aws_access_key_id = CONFIGID
        aws_secret_access_key = CONFIGSECRET
        """.write(toFile: folder.path + "/.aws/config", atomically: true, encoding: .utf8)
    }

    func resolve(_ environment: [String: String]) throws -> S3Configuration {
        try S3Configuration.resolve(environment: environment, home: home)
    }

    @Test func theEnvironmentComesBeforeTheFiles() throws {
        let configuration = try resolve([
            "AWS_ACCESS_KEY_ID": "ENVID", "AWS_SECRET_ACCESS_KEY": "ENVSECRET", "AWS_SESSION_TOKEN": "ENVTOKEN",
            "AWS_REGION": "ap-south-1", "AWS_ENDPOINT_URL": "http://127.0.0.1:1",
            "AWS_ENDPOINT_URL_S3": "http://127.0.0.1:2",
        ])
        #expect(
            configuration
                == S3Configuration(
                    region: "ap-south-1", endpoint: URL(string: "http://127.0.0.1:2"),
                    credentials: S3Credentials(
                        accessKeyID: "ENVID", secretAccessKey: "ENVSECRET", sessionToken: "ENVTOKEN")))
    }

    @Test func theDefaultProfileOfTheFiles() throws {
        #expect(
            try resolve([:])
                == S3Configuration(
                    region: "eu-west-1", endpoint: nil,
                    credentials: S3Credentials(accessKeyID: "FILEID", secretAccessKey: "FILESECRET")))
    }

    @Test func aNamedProfileWithItsEndpoint() throws {
        #expect(
            try resolve(["AWS_PROFILE": "work", "AWS_DEFAULT_REGION": "us-west-2"])
                == S3Configuration(
                    region: "us-west-2", endpoint: URL(string: "http://127.0.0.1:9000"),
                    credentials: S3Credentials(
                        accessKeyID: "WORKID", secretAccessKey: "WORKSECRET", sessionToken: "WORKTOKEN")))
        #expect(
            try resolve(["AWS_PROFILE": "configonly"]).credentials
                == S3Credentials(accessKeyID: "CONFIGID", secretAccessKey: "CONFIGSECRET"))
    }

    @Test func withoutCredentialsRequestsAreAnonymous() throws {
        let configuration = try S3Configuration.resolve(environment: [:], home: home + "/nowhere")
        #expect(configuration == S3Configuration(region: "us-east-1", endpoint: nil, credentials: nil))
    }

    @Test func aMissingProfileAndABadEndpointAreRefused() {
        #expect {
            try resolve(["AWS_PROFILE": "absent"])
        } throws: {
            ($0 as? S3Error)?.message
                == "AWS_PROFILE names the profile 'absent', which neither \(home)/.aws/credentials nor"
                + " \(home)/.aws/config has"
        }
        #expect {
            try resolve(["AWS_ENDPOINT_URL": "ftp://host"])
        } throws: {
            ($0 as? S3Error)?.message == "the S3 endpoint 'ftp://host' is not an http(s) URL"
        }
    }
}
