import Foundation
import Testing

/// A node may read what a `write` upstream of it made: a `probe` takes the written file as its data, and a `fetch`
/// of the written path that depends on the `write` reads it once written. A reader that does not wait for the write
/// is still refused: it would read the file while the run replaces it.
@Suite struct ReadWrittenOutputTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
        for name in ["friends", "sunset"] {
            _ = try scratch.write("photos/\(name).jpg", Fixtures.photo(name))
        }
    }

    @Test func aProbeOfTheWrittenFilesCataloguesWhatWasMade() async throws {
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, forEach: { glob: "photos/*.jpg" }, url: "${item}" }
              decode: { type: decode, dependsOn: read }
              small: { type: resize, width: 100, dependsOn: decode }
              save: { type: write, path: "out/${item.stem}.webp", dependsOn: small }
              look: { type: probe, dependsOn: save }
              sizes: { type: catalogue, gather: true, path: out/sizes.csv, dependsOn: look }

            """)
        let first = try await Child.runFlowrun(["flow.yaml", "--no-progress"], in: scratch.url)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let expected = """
            alpha,altitude,colorProfile,dateTaken,exposureTime,fNumber,focalLength,format,height,iso,latitude,\
            lens,longitude,make,model,orientation,source,width\r
            false,,,,,,,webp,150,,,,,,,1,out/friends.webp,100\r
            false,,,,,,,webp,67,,,,,,,1,out/sunset.webp,100\r

            """
        #expect(try String(contentsOfFile: scratch.path("out/sizes.csv"), encoding: .utf8) == expected)

        let again = try await Child.runFlowrun(["flow.yaml", "--no-progress"], in: scratch.url)
        #expect(again.stdout.hasPrefix("11 nodes: 11 cached in "), "\(again.stdout)")
    }

    @Test func aFetchThatWaitsForTheWriteReadsWhatItWrote() async throws {
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, url: photos/friends.jpg }
              save: { type: write, path: out/copy.jpg, dependsOn: read }
              again: { type: fetch, url: out/copy.jpg, dependsOn: save }
              keep: { type: write, path: kept/copy.jpg, dependsOn: again }

            """)
        let result = try await Child.runFlowrun(["flow.yaml", "--no-progress"], in: scratch.url)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: scratch.path("kept/copy.jpg")))
                == Fixtures.photo("friends"))
    }

    @Test func aFetchThatDoesNotWaitForTheWriteIsRefused() async throws {
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, url: photos/friends.jpg }
              save: { type: write, path: out/copy.jpg, dependsOn: read }
              early: { type: fetch, url: out/copy.jpg }

            """)
        let result = try await Child.runFlowrun(["validate", "flow.yaml"], in: scratch.url)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr == """
                flow.yaml:4:30: error: 'save' writes 'out/copy.jpg', which 'early' reads
                 4 |   save: { type: write, path: out/copy.jpg, dependsOn: read }
                   |                              ^
                    hint: write outputs to another folder: the run would replace one of its own inputs
                flow.yaml:5:30: note: 'early' reads it here
                1 error in flow.yaml; nothing was run

                """, "\(result.stderr)")
    }
}
