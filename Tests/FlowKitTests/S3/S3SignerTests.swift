import Foundation
import Testing

@testable import FlowKit
@testable import FlowS3

/// Signature V4 against requests signed independently by botocore's `S3SigV4Auth` (credentials
/// `AKIDEXAMPLE` / `wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY`, region us-east-1, 2026-11-25 12:34:56 UTC): an
/// `AWSRequest` for the same URL, signed by `S3SigV4Auth(...).add_auth` with `botocore.auth.get_current_datetime`
/// patched to that moment; the canonical request and string to sign are its `canonical_request` and
/// `string_to_sign`.
@Suite struct S3SignerTests {
    let signer = S3Signer(
        credentials: S3Credentials(
            accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1")
    let date = Date(timeIntervalSince1970: 1_795_610_096)
    let host = "127.0.0.1:8333"

    func headers(_ request: S3Signer.Request) -> [String: String] {
        ["host": host, "x-amz-date": "20261125T123456Z", "x-amz-content-sha256": S3Signer.emptyHash]
    }

    @Test func getOfAKeyNeedingEscapesMatchesBotocore() {
        let request = S3Signer.Request(
            method: "GET", path: "/photos/" + S3Signer.encode("2024/a b+.jpg", keepSlash: true), query: [],
            headers: [:])
        let canonical = signer.canonicalRequest(request, headers: headers(request), payloadHash: S3Signer.emptyHash)
        #expect(
            canonical == """
                GET
                /photos/2024/a%20b%2B.jpg

                host:127.0.0.1:8333
                x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                x-amz-date:20261125T123456Z

                host;x-amz-content-sha256;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """)
        #expect(
            signer.stringToSign(
                canonical: canonical, timestamp: "20261125T123456Z", scope: "20261125/us-east-1/s3/aws4_request")
                    == """
                    AWS4-HMAC-SHA256
                    20261125T123456Z
                    20261125/us-east-1/s3/aws4_request
                    bf27879a3597f18b14026a7795e9c726a3041fba152b5c7f84dfd7c990c79fa5
                    """)
        let signed = signer.sign(request, host: host, payloadHash: S3Signer.emptyHash, date: date)
        #expect(
            signed == [
                "x-amz-date": "20261125T123456Z",
                "x-amz-content-sha256": S3Signer.emptyHash,
                "Authorization": "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261125/us-east-1/s3/aws4_request, "
                    + "SignedHeaders=host;x-amz-content-sha256;x-amz-date, "
                    + "Signature=157da559f47d58a8035178e39875e69d6cebd9b5cb79b6449dc0f44c5e261182",
            ])
    }

    @Test func listingQueryIsSortedAndEncodedAsBotocoreDoes() {
        let request = S3Signer.Request(
            method: "GET", path: "/photos",
            query: [("prefix", "2024/x y"), ("list-type", "2"), ("continuation-token", "a/b=")], headers: [:])
        let canonical = signer.canonicalRequest(request, headers: headers(request), payloadHash: S3Signer.emptyHash)
        #expect(
            canonical.split(separator: "\n", omittingEmptySubsequences: false)[2]
                == "continuation-token=a%2Fb%3D&list-type=2&prefix=2024%2Fx%20y")
        let signed = signer.sign(request, host: host, payloadHash: S3Signer.emptyHash, date: date)
        #expect(
            signed["Authorization"]?.hasSuffix(
                "Signature=4d814fb0873aefedd04977a74428fe2b236ce5d3e0027c6157cfeeca0330ff78") == true)
    }

    @Test func aSessionTokenIsSentAndSigned() {
        var withToken = signer.credentials
        withToken.sessionToken = "TOKEN"
        let signed = S3Signer(credentials: withToken, region: "us-east-1").sign(
            S3Signer.Request(method: "GET", path: "/b/k", query: [], headers: [:]), host: host,
            payloadHash: S3Signer.emptyHash, date: date)
        #expect(signed["x-amz-security-token"] == "TOKEN")
        #expect(
            signed["Authorization"]?.contains(
                "SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,") == true)
    }

    @Test func credentialsNeverShowTheirSecret() {
        let credentials = S3Credentials(accessKeyID: "AKID", secretAccessKey: "SECRETVALUE", sessionToken: "TOKENVALUE")
        for text in [credentials.description, "\(credentials)", String(reflecting: credentials)] {
            #expect(!text.contains("SECRETVALUE"))
            #expect(!text.contains("TOKENVALUE"))
        }
    }
}
