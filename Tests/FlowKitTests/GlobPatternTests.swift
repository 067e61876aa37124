import Testing

@testable import FlowKit

/// Glob patterns over '/'-separated paths, without a file system: matching, bases, pruning and bad patterns.
@Suite struct GlobPatternTests {
    @Test(arguments: [
        ("photos/*.jpg", "photos/a.jpg", true),
        ("photos/*.jpg", "photos/2024/a.jpg", false),
        ("photos/**/*.jpg", "photos/a.jpg", true),
        ("photos/**/*.jpg", "photos/2024/basque/bridge.jpg", true),
        ("photos/**/*.jpg", "other/a.jpg", false),
        ("**/*.jpg", "a.jpg", true),
        ("**/*.jpg", "x/y/z/a.jpg", true),
        ("**", "x/y/z", true),
        ("a/**/b/**/c", "a/b/c", true),
        ("a/**/b/**/c", "a/x/b/y/z/c", true),
        ("a/**/b/**/c", "a/x/c", false),
        ("*.{jpg,png,webp}", "a.png", true),
        ("*.{jpg,png,webp}", "a.webp", true),
        ("*.{jpg,png,webp}", "a.gif", false),
        ("{raw/**/*.cr2,edits/*.{jpg,png}}", "raw/2024/a.cr2", true),
        ("{raw/**/*.cr2,edits/*.{jpg,png}}", "edits/a.png", true),
        ("{raw/**/*.cr2,edits/*.{jpg,png}}", "edits/a.cr2", false),
        ("img-?.jpg", "img-1.jpg", true),
        ("img-?.jpg", "img-10.jpg", false),
        ("img-[0-9].jpg", "img-7.jpg", true),
        ("img-[!0-9].jpg", "img-7.jpg", false),
        ("img-[^0-9].jpg", "img-x.jpg", true),
        ("[]a].txt", "].txt", true),
        ("a-[x-].txt", "a--.txt", true),
        ("\\*.txt", "*.txt", true),
        ("\\*.txt", "a.txt", false),
        ("a*b*c", "aXXbYYbZc", true),
        ("a*b*c", "aXXbYYbZ", false),
        ("*", "", false),
        ("./photos/*.jpg", "photos/a.jpg", true),
        ("photos//*.jpg", "photos/a.jpg", true),
        ("/data/**/*.jpg", "/data/x/a.jpg", true),
        ("/data/**/*.jpg", "data/x/a.jpg", false),
        ("photos/*.jpg", "photos/my photo's \"best\".jpg", true),
        ("café/*.jpg", "café/é.jpg", true),
        ("../shared/*.jpg", "../shared/a.jpg", true),
    ])
    func matches(_ pattern: String, _ path: String, _ expected: Bool) throws {
        #expect(try GlobPattern(pattern).matches(path) == expected)
    }

    @Test(arguments: [
        ("photos/*.jpg", "photos/.hidden.jpg", false),
        ("photos/**/*.jpg", "photos/.cache/a.jpg", false),
        ("photos/**", "photos/.git", false),
        ("photos/.*", "photos/.hidden", true),
        ("photos/.cache/*.jpg", "photos/.cache/a.jpg", true),
        ("photos/**/.cache/*.jpg", "photos/x/.cache/a.jpg", true),
        ("photos/?hidden", "photos/.hidden", false),
        ("photos/[.]hidden", "photos/.hidden", false),
        (".config/*.yaml", ".config/a.yaml", true),
    ])
    func hiddenNamesMatchOnlyWhenThePatternNamesThem(_ pattern: String, _ path: String, _ expected: Bool) throws {
        #expect(try GlobPattern(pattern).matches(path) == expected)
    }

    @Test func ignoreCaseFoldsWhatFollowsTheBase() throws {
        let pattern = try GlobPattern("Photos/**/*.{jpg,png}", ignoreCase: true)
        #expect(pattern.matches("Photos/2024/IMG_1.JPG"))
        #expect(pattern.matches("Photos/Basque/a.Png"))
        #expect(!pattern.matches("photos/a.jpg"))  // the base is a place, named as written
        #expect(try !GlobPattern("*.jpg").matches("a.JPG"))
        #expect(try GlobPattern("*.[a-z]pg", ignoreCase: true).matches("A.JPG"))
    }

    @Test(arguments: [
        ("photos/2024/**/*.jpg", "photos/2024"),
        ("photos/*.jpg", "photos"),
        ("photos/a.jpg", "photos"),
        ("a.jpg", ""),
        ("*/x.jpg", ""),
        ("{a,b}/x.jpg", ""),
        ("photos/{a,b}/x.jpg", "photos"),
        ("photos/x\\*/a.jpg", "photos"),
        ("./photos/*.jpg", "photos"),
        ("/data/in/*.jpg", "/data/in"),
        ("/*.jpg", "/"),
        ("../shared/**/*.jpg", "../shared"),
    ])
    func baseIsTheLeadingSegmentsWithoutWildcards(_ pattern: String, _ base: String) throws {
        #expect(try GlobPattern(pattern).base == base)
    }

    @Test func prunesFoldersThatCannotHoldMatches() throws {
        let recursive = try GlobPattern("photos/**/*.jpg")
        #expect(recursive.mayMatch(inside: "photos"))
        #expect(recursive.mayMatch(inside: "photos/2024/basque"))
        #expect(!recursive.mayMatch(inside: "photos/.git"))
        #expect(!recursive.mayMatch(inside: "other"))
        let flat = try GlobPattern("photos/*/*.jpg")
        #expect(flat.mayMatch(inside: "photos/2024"))
        #expect(!flat.mayMatch(inside: "photos/2024/basque"))
        let alternatives = try GlobPattern("{raw,edits}/*.jpg")
        #expect(alternatives.mayMatch(inside: "raw"))
        #expect(!alternatives.mayMatch(inside: "cache"))
    }

    @Test func steppingNameByNameAgreesWithMatchingWholePaths() throws {
        let pattern = try GlobPattern("Photos/**/{raw,edits}/*.{jpg,png}", ignoreCase: true)
        var position = pattern.start
        var verdicts: [(Bool, Bool)] = []
        for name in ["Photos", "2024", "EDITS", "a.PNG"] {
            position = pattern.position(position, after: Substring(name))
            verdicts.append((pattern.accepts(position), pattern.mayMatchBelow(position)))
        }
        #expect(verdicts.map(\.0) == [false, false, false, true])
        #expect(verdicts.map(\.1) == [true, true, true, true])
        #expect(pattern.matches("Photos/2024/EDITS/a.PNG"))
        #expect(pattern.position(pattern.start, after: "photos").isDead, "the base is matched as written")
        #expect(throws: GlobPattern.SyntaxError(message: "the pattern has more than 63 segments")) {
            try GlobPattern(String(repeating: "a/", count: 64) + "*.jpg")
        }
    }

    @Test func namesHiddenWhenASegmentStartsWithADot() throws {
        #expect(try GlobPattern("photos/.cache/*.jpg").namesHidden)
        #expect(try GlobPattern("photos/{.cache,raw}/*.jpg").namesHidden)
        #expect(try !GlobPattern("photos/**/*.jpg").namesHidden)
    }

    @Test(arguments: [
        ("", "the pattern is empty"),
        ("/", "the pattern is empty"),
        ("photos/[a-z.jpg", "'[' is not closed by ']'"),
        ("photos/*.{jpg,png", "'{' at character 3 is not closed by '}'"),
        ("photos/*.jpg\\", "the pattern ends with '\\'"),
        ("a[b/c]d", "a '[' set cannot hold '/'"),
        (String(repeating: "{a,b,c,d}", count: 6), "the braces spell out more than 1024 patterns"),
    ])
    func rejectsWhatCannotBeRead(_ pattern: String, _ message: String) {
        #expect(throws: GlobPattern.SyntaxError(message: message)) { try GlobPattern(pattern) }
    }

    @Test func manyStarsDoNotBacktrackExponentially() throws {
        let pattern = try GlobPattern(String(repeating: "**/", count: 20) + String(repeating: "*a", count: 20) + "b")
        let path = String(repeating: "x/", count: 40) + String(repeating: "a", count: 60)
        #expect(!pattern.matches(path))
    }
}
