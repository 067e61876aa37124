import Foundation
import Testing

@testable import FlowKit
@testable import FlowS3

/// Where requests go: virtual-hosted-style on AWS itself (no endpoint set), path-style for a bucket name that
/// cannot be a host name, and path-style under a custom endpoint.
@Suite struct S3AddressingTests {
    private func request(_ location: S3Location, endpoint: String? = nil, query: [(String, String)] = [])
        throws -> (url: String, host: String, path: String)
    {
        let client = S3Client(
            configuration: S3Configuration(
                region: "eu-west-1", endpoint: endpoint.flatMap(URL.init(string:)), credentials: nil))
        var call = S3Client.Call(method: "GET", location: location)
        call.query = query.map { (name: $0.0, value: $0.1) }
        let made = try client.makeRequest(call)
        return (made.url.absoluteString, made.host, made.path)
    }

    @Test func onAWSTheBucketIsPartOfTheHostName() throws {
        let made = try request(S3Location(bucket: "photos", key: "2024/a b.jpg"))
        #expect(made.url == "https://photos.s3.eu-west-1.amazonaws.com/2024/a%20b.jpg")
        #expect(made.host == "photos.s3.eu-west-1.amazonaws.com")
        #expect(made.path == "/2024/a%20b.jpg")
    }

    @Test func aListingOnAWSAsksTheBucketsHost() throws {
        let made = try request(S3Location(bucket: "photos", key: ""), query: [("list-type", "2"), ("prefix", "in/")])
        #expect(made.url == "https://photos.s3.eu-west-1.amazonaws.com/?list-type=2&prefix=in%2F")
        #expect(made.path == "/")
    }

    @Test func aBucketNameThatCannotBeAHostGoesInThePath() throws {
        let dotted = try request(S3Location(bucket: "my.photos", key: "a.jpg"))
        #expect(dotted.url == "https://s3.eu-west-1.amazonaws.com/my.photos/a.jpg")
        #expect(dotted.host == "s3.eu-west-1.amazonaws.com")
        let upper = try request(S3Location(bucket: "Photos", key: "a.jpg"))
        #expect(upper.url == "https://s3.eu-west-1.amazonaws.com/Photos/a.jpg")
    }

    @Test func aCustomEndpointIsAddressedPathStyle() throws {
        let made = try request(S3Location(bucket: "photos", key: "a.jpg"), endpoint: "http://127.0.0.1:9000")
        #expect(made.url == "http://127.0.0.1:9000/photos/a.jpg")
        #expect(made.host == "127.0.0.1:9000")
        #expect(made.path == "/photos/a.jpg")
        let https = try request(S3Location(bucket: "photos", key: "a.jpg"), endpoint: "https://minio.example:443")
        #expect(https.host == "minio.example")
    }
}
