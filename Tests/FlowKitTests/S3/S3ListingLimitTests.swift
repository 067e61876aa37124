import Foundation
import TestSupport
import Testing

@testable import FlowKit
@testable import FlowS3

/// A listing that pages on with a fresh token each time stops at its page limit, naming it; keys with dot
/// segments make no request.
@Suite struct S3ListingLimitTests {
    @Test func aListingThatNeverEndsStopsAtItsPageLimit() throws {
        let server = try LocalHTTPServer()
        defer { server.stop() }
        server.route(
            "/photos/",
            .handler { request in
                // A new token each page, and never a last page.
                let token = "T\(request.target.count)-\(UUID().uuidString)"
                return .ok(
                    Data(
                        ("<ListBucketResult><IsTruncated>true</IsTruncated><NextContinuationToken>\(token)"
                            + "</NextContinuationToken></ListBucketResult>").utf8))
            })
        let client = S3Client(
            configuration: S3Configuration(
                region: "us-east-1", endpoint: URL(string: "http://127.0.0.1:\(server.port)"), credentials: nil))
        var pages = 0
        #expect {
            try client.list(bucket: "photos", prefix: "in/", maxPages: 5) { _ in pages += 1 }
        } throws: { error in
            (error as? S3Error)?.message
                == "the listing of 's3://photos/in/' took more than 5 pages; it was stopped there"
        }
        #expect(pages == 5)
        #expect(server.requests(to: "/photos/").count == 5)
    }

    @Test func aKeyWithADotSegmentMakesNoRequest() {
        let client = S3Client(
            configuration: S3Configuration(
                region: "us-east-1", endpoint: URL(string: "http://127.0.0.1:9"), credentials: nil))
        for (bucket, key) in [("b", "in/../x"), ("b", "./x"), ("b", "a/."), ("..", "x")] {
            #expect(throws: S3Error.self) {
                try client.makeRequest(S3Client.Call(method: "GET", location: S3Location(bucket: bucket, key: key)))
            }
        }
        #expect(S3Location(bucket: "b", key: "a..b/.c/d.").dotSegmentProblem == nil)
    }
}
