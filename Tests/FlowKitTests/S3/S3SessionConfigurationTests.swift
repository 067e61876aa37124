import Foundation
import Testing

@testable import FlowKit
@testable import FlowS3

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// FlowS3 cannot reach FlowKit's fetch sessions, so its sessions make their configuration themselves: it must stay
/// the one a `fetch` of http(s) gets.
@Suite struct S3SessionConfigurationTests {
    @Test func s3SessionsAreConfiguredAsFetchSessionsAre() {
        let s3 = S3Session.configuration()
        let fetch = FetchSessionDelegate.configuration()
        #expect(s3.urlCache == nil && fetch.urlCache == nil)
        #expect(s3.requestCachePolicy == fetch.requestCachePolicy)
        #expect(s3.httpShouldSetCookies == fetch.httpShouldSetCookies)
        #expect(
            s3.httpAdditionalHeaders as? [String: String] == fetch.httpAdditionalHeaders as? [String: String])
        #expect(s3.timeoutIntervalForRequest == fetch.timeoutIntervalForRequest)
        #expect(s3.timeoutIntervalForResource == fetch.timeoutIntervalForResource)
    }
}
