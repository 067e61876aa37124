import Testing

@testable import FlowKit

/// The pattern language of `s3://` globs and the parsing of locations.
@Suite struct S3GlobTests {
    func matches(_ key: String, _ pattern: String) -> Bool {
        S3Glob.matches(Array(key.unicodeScalars), Array(pattern.unicodeScalars))
    }

    @Test func starsStayInTheirFolderAndDoubleStarsCross() {
        #expect(matches("photos/a.jpg", "photos/*.jpg"))
        #expect(!matches("photos/2024/a.jpg", "photos/*.jpg"))
        #expect(matches("photos/2024/a.jpg", "photos/**/*.jpg"))
        #expect(matches("photos/a.jpg", "photos/**/*.jpg"))
        #expect(matches("photos/2024/06/a.jpg", "photos/**"))
        #expect(!matches("photos/a.png", "photos/**/*.jpg"))
        #expect(matches("photos/ab.jpg", "photos/a?.jpg"))
        #expect(!matches("photos/a/.jpg", "photos/a?.jpg"))
        #expect(matches("exact", "exact"))
        #expect(!matches("exact2", "exact"))
    }

    @Test func manyStarsOnALongKeyFinishQuickly() {
        let key = String(repeating: "a", count: 1000)
        #expect(!matches(key, String(repeating: "*a", count: 40) + "b"))
        #expect(!matches(key, String(repeating: "**a", count: 40) + "b"))
    }

    @Test func locationsAreParsed() {
        #expect(S3Location("s3://bucket/photos/a.jpg") == S3Location(bucket: "bucket", key: "photos/a.jpg"))
        #expect(S3Location("S3://bucket") == S3Location(bucket: "bucket", key: ""))
        #expect(S3Location("s3:///key") == nil)
        #expect(S3Location("photos/a.jpg") == nil)
    }
}
