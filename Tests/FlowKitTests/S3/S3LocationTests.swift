import FlowS3
import Testing

@testable import FlowKit

/// `s3://bucket/key` as written in workflows.
@Suite struct S3LocationTests {
    @Test func locationsAreParsed() {
        #expect(S3Location("s3://bucket/photos/a.jpg") == S3Location(bucket: "bucket", key: "photos/a.jpg"))
        #expect(S3Location("S3://bucket") == S3Location(bucket: "bucket", key: ""))
        #expect(S3Location("s3://bucket/photos/a.jpg")?.description == "s3://bucket/photos/a.jpg")
        #expect(S3Location("s3:///key") == nil)
        #expect(S3Location("photos/a.jpg") == nil)
        #expect(S3Location("s3:") == nil)
    }

    @Test func whatIsMeantAsALocationIsToldByItsSchemeInEitherCase() {
        #expect(S3Location.isS3("s3://bucket/k") && S3Location.isS3("S3://") && S3Location.isS3("s3://"))
        #expect(!S3Location.isS3("") && !S3Location.isS3("s") && !S3Location.isS3("s3:/x"))
        #expect(!S3Location.isS3("sx://b/k") && !S3Location.isS3("/s3://b") && !S3Location.isS3("out/s3://b"))
        #expect(S3Location("S3://") == nil)
    }

    @Test func aLocationStaysAsWrittenWhereLocalPathsAreResolved() {
        #expect(NodeContext.resolve("s3://b/k.jpg", in: "/work/flows") == "s3://b/k.jpg")
        #expect(NodeContext.resolve("out/k.jpg", in: "/work/flows") == "/work/flows/out/k.jpg")
    }

    @Test func writtenImagesGetTheirMediaType() {
        #expect(S3Upload.contentType(of: "thumbs/a.JPG") == "image/jpeg")
        #expect(S3Upload.contentType(of: "thumbs/a.png") == "image/png")
        #expect(S3Upload.contentType(of: "thumbs/a.webp") == "image/webp")
        #expect(S3Upload.contentType(of: "thumbs/a.bin") == nil)
    }
}
