import FlowS3
import Foundation
import Testing

@testable import FlowKit

/// How a store in a bucket names what it keeps: segments that sort by upload time and never collide, the
/// workflow's journals told from another workflow's, a local folder named by a digest.
@Suite struct BucketStoreNamingTests {
    @Test func segmentsSortByUploadTimeAndCarryIt() {
        let early = BucketStore.segmentName(at: Date(timeIntervalSince1970: 9))
        let late = BucketStore.segmentName(at: Date(timeIntervalSince1970: 1_800_000_000.5))
        #expect(early.hasPrefix("00000000009000000000-") && early.hasSuffix(".journal"), "\(early)")
        #expect(early < late)
        #expect(BucketStore.uploadTime(of: late) == 1_800_000_000_500_000_000)
        #expect(BucketStore.uploadTime(of: "notes.journal") == nil)
        let now = Date()
        #expect(BucketStore.segmentName(at: now) != BucketStore.segmentName(at: now))
    }

    @Test func aWorkflowsJournalsAreItsOwnAndItsParts() {
        #expect(BucketStore.isJournal("thumbs.yaml", of: "thumbs.yaml"))
        #expect(BucketStore.isJournal("thumbs.yaml.shard-2-of-4", of: "thumbs.yaml"))
        #expect(BucketStore.isJournal("thumbs.yaml.gather", of: "thumbs.yaml"))
        #expect(!BucketStore.isJournal("thumbs.yaml2", of: "thumbs.yaml"))
        #expect(!BucketStore.isJournal("thumbs.yaml..", of: "thumbs.yaml"))
        #expect(!BucketStore.isJournal("thumbs.yaml.a b", of: "thumbs.yaml"))
        #expect(!BucketStore.isJournal("thumbs.yml", of: "thumbs.yaml"))
    }

    @Test func theLocalFolderIsADigestUnderTheCacheFolder() {
        let location = S3Location(bucket: "state", key: "../../etc")
        let folder = BucketStore.localDirectory(
            for: location, endpoint: URL(string: "http://127.0.0.1:9000"), environment: ["XDG_CACHE_HOME": "/c"])
        #expect(folder.wholeMatch(of: #/\/c\/flowrun\/buckets\/[0-9a-f]{24}/#) != nil, "\(folder)")
        let elsewhere = BucketStore.localDirectory(for: location, endpoint: nil, environment: ["XDG_CACHE_HOME": "/c"])
        #expect(elsewhere != folder)
        let relative = BucketStore.localDirectory(for: location, endpoint: nil, environment: ["XDG_CACHE_HOME": "c"])
        #expect(relative.hasPrefix(NSHomeDirectory() + "/.cache/flowrun/buckets/"))
    }
}
