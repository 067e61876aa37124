import FlowImagingBench
import FlowKit
import Foundation
import TestSupport
import Testing

@testable import FlowImaging

/// Camera raw files through libraw, on DNGs made by ``DNGFixture`` (no camera's file can be downloaded here): the
/// develop's colours, orientation, metadata, `probe`, shrink-on-load at half size, and the failures — a header over
/// the pixel budget, a file cut short, a stop asked for midway, a raw file libraw cannot open.
@Suite struct RawDecodeTests {
    /// sRGB's tone curve, 0 to 255.
    static func srgb(_ linear: Double) -> Double {
        let v = min(max(linear, 0), 1)
        return 255 * (v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055)
    }

    @Test func aDNGDevelopsToTheSceneInSRGB() throws {
        let fixture = DNGFixture()
        let data = Data(fixture.bytes)
        #expect(ImageFormat.sniff(data) == .raw)
        let image = try ImageDecoder.decode(data, source: "t.dng")
        #expect(image.width == 96 && image.height == 64 && image.decodedScale == 1)
        // Away from the checkerboard's edges (where demosaicing blends the squares) each pixel is the scene's colour
        // through sRGB's curve: the camera's white balance undid AsShotNeutral, ColorMatrix1 made camera RGB sRGB.
        var worst = 0.0
        for y in stride(from: 4, to: 60, by: 16) {
            for x in stride(from: 4, to: 92, by: 16) {
                let (r, g, b) = DNGFixture.scene(x: x, y: y, width: 96, height: 64)
                let pixel = image[x, y]
                for (got, want) in zip([pixel.x, pixel.y, pixel.z], [r, g, b]) {
                    worst = max(worst, abs(Double(got) - Self.srgb(want)))
                }
                #expect(pixel.w == 255)
            }
        }
        #expect(worst <= 3, "largest difference from the scene: \(worst) levels")
    }

    @Test func theOrientationTagTurnsTheDevelopedPicture() throws {
        let upright = try ImageDecoder.decode(Data(DNGFixture().bytes), source: "")
        for orientation in ExifOrientation.allCases {
            let turned = try ImageDecoder.decode(Data(DNGFixture(orientation: orientation.rawValue).bytes), source: "")
            let expected = upright.oriented(orientation)
            #expect(turned.width == expected.width && turned.height == expected.height, "\(orientation)")
            #expect(turned.pixels == expected.pixels, "orientation \(orientation.rawValue)")
        }
    }

    @Test func theCamerasFactsAreKeptAsEXIFAndGPSGoesWhenStripped() throws {
        let image = try ImageDecoder.decode(Data(DNGFixture().bytes), source: "")
        let exif = try #require(image.metadata.exif)
        let summary = ExifSummary(try #require(TIFFStructure(exif)))
        #expect(summary.make == "Flowrun" && summary.model == "Test DNG")
        #expect(summary.dateTaken == "2024-06-01T14:03:22")
        #expect(summary.exposureTime == 1.0 / 125 && summary.fNumber == 4 && summary.iso == 200)
        #expect(summary.focalLength == 50)
        #expect(abs((summary.latitude ?? 0) - 43.480233) < 1e-4, "\(String(describing: summary.latitude))")
        #expect(abs((summary.longitude ?? 0) + 2.5936) < 1e-4, "\(String(describing: summary.longitude))")
        #expect(image.metadata.orientation == .up, "the pixels are upright")
        let stripped = image.metadata.keeping([.exif], stripping: [.gps])
        let kept = ExifSummary(try #require(stripped.exif.flatMap(TIFFStructure.init)))
        #expect(kept.latitude == nil && kept.longitude == nil && kept.model == "Test DNG")
    }

    @Test func probeReadsTheSizeAsShownTheCameraAndTheRawFormat() throws {
        let probe = try ImageProbe(Data(DNGFixture(orientation: 6).bytes))
        #expect(probe.format == .raw && probe.formatName == "dng")
        #expect(probe.width == 64 && probe.height == 96 && probe.orientation == .right)
        #expect(probe.exif?.make == "Flowrun" && probe.exif?.iso == 200 && !probe.hasAlpha)
        let json = String(decoding: probe.json(source: "t.dng"), as: UTF8.self)
        #expect(json.contains(#""format":"dng""#) && json.contains(#""model":"Test DNG""#), "\(json)")
    }

    @Test func consumersThatKeepHalfOrLessGetAHalfSizeDevelop() throws {
        let data = Data(DNGFixture(width: 97, height: 64).bytes)
        let full = try ImageDecoder.decode(data, source: "", keptFraction: { _, _ in 0.6 })
        #expect(full.width == 97 && full.decodedScale == 1)
        var asked: (Int, Int)?
        let half = try ImageDecoder.decode(
            data, source: "",
            keptFraction: { width, height in
                asked = (width, height)
                return 0.5
            })
        #expect(asked.map { $0 == (97, 64) } == true, "asked with the full size")
        // libraw rounds up, as TurboJPEG: 97 columns give 49, the last half covered.
        #expect(half.width == 49 && half.height == 32)
        #expect(half.originalWidth == 97 && half.originalHeight == 64 && half.decodedScale == 0.5)
        let (r, g, b) = DNGFixture.scene(x: 8, y: 8, width: 97, height: 64)
        let pixel = half[4, 4]
        for (got, want) in zip([pixel.x, pixel.y, pixel.z], [r, g, b]) {
            #expect(abs(Double(got) - Self.srgb(want)) <= 4, "\(got) for \(Self.srgb(want))")
        }
    }

    /// Separate libraw handles on separate threads do not disturb each other (libraw_r): four develops at once give
    /// the pixels of one alone.
    @Test func developsOnSeveralThreadsAtOnceGiveThePixelsOfOneAlone() throws {
        let data = Data(DNGFixture(width: 400, height: 300).bytes)
        let alone = try ImageDecoder.decode(data, source: "")
        let results = LockedResults()
        DispatchQueue.concurrentPerform(iterations: 4) { index in
            results.record(index, Result { try ImageDecoder.decode(data, source: "").pixels })
        }
        for (index, result) in results.all {
            #expect((try? result.get()) == alone.pixels, "develop \(index)")
        }
    }

    /// What concurrent develops returned, by index.
    final class LockedResults: @unchecked Sendable {
        private let lock = NSLock()
        private var results: [Int: Result<[UInt8], any Error>] = [:]
        func record(_ index: Int, _ result: Result<[UInt8], any Error>) { lock.withLock { results[index] = result } }
        var all: [(Int, Result<[UInt8], any Error>)] { lock.withLock { results.sorted { $0.key < $1.key } } }
    }

    /// libraw halves only mosaic data: a linear DNG comes back whole, and says so.
    @Test func aLinearDNGAskedAtHalfSizeComesBackWholeAndSaysSo() throws {
        var fixture = DNGFixture()
        fixture.linear = true
        let image = try ImageDecoder.decode(Data(fixture.bytes), source: "", keptFraction: { _, _ in 0.5 })
        #expect(image.width == 96 && image.height == 64 && image.decodedScale == 1 && image.originalWidth == 96)
        let (r, g, b) = DNGFixture.scene(x: 40, y: 20, width: 96, height: 64)
        let pixel = image[40, 20]
        for (got, want) in zip([pixel.x, pixel.y, pixel.z], [r, g, b]) {
            #expect(abs(Double(got) - Self.srgb(want)) <= 3, "\(got) for \(Self.srgb(want))")
        }
    }

    @Test func aHeaderOverTheBudgetFailsBeforeUnpacking() throws {
        var bomb = DNGFixture()
        bomb.claimedSize = (20000, 20000)
        let bytes = bomb.bytes
        #expect(bytes.count < 20_000, "\(bytes.count) bytes claim 400 megapixels")
        #expect(
            throws: ImageCodecError(
                "the DNG would be 20000×20000 pixels, over the budget of \(PixelBudget.defaultMaximum) "
                    + "(raise it with FLOWRUN_MAX_PIXELS if the machine has the memory)")
        ) { try ImageDecoder.decode(Data(bytes), source: "") }
        // `probe` allocates no pixels: it reads the claim.
        #expect(try ImageProbe(Data(bytes)).width == 20000)
    }

    @Test(arguments: [0.3, 0.6, 0.95])
    func aDNGCutShortFailsNamingTheTruncation(fraction: Double) {
        let bytes = DNGFixture().bytes
        let cut = Data(bytes.prefix(Int(Double(bytes.count) * fraction)))
        #expect(throws: ImageCodecError("DNG data is truncated (libraw reached the end of the file)")) {
            try ImageDecoder.decode(cut, source: "")
        }
    }

    @Test func aStopAskedAtAnyStepStopsTheDevelopThere() throws {
        let data = Data(DNGFixture().bytes)
        var steps = 0
        _ = try ImageDecoder.decode(
            data, source: "",
            shouldContinue: {
                steps = $0
                return true
            })
        #expect(steps >= 4, "libraw reports reading, scaling, interpolating and converting: \(steps) steps")
        // The four stages named above, not every call: libraw's later calls vary from run to run (8 or 9 seen).
        for stop in 1...4 {
            var asked = 0
            #expect(throws: ImageCodecError("the decode was stopped")) {
                try ImageDecoder.decode(
                    data, source: "",
                    shouldContinue: {
                        asked = $0
                        return $0 < stop
                    })
            }
            #expect(asked == stop, "stopped at step \(stop), not later")
        }
    }

    /// Holds the first caller until the test lets it go: the decode is caught between reading the header and
    /// developing, where the consumers are asked how much they need.
    final class Gate: @unchecked Sendable {
        let reached = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var passed = false

        func pass() {
            let first = lock.withLock {
                defer { passed = true }
                return !passed
            }
            guard first else { return }
            reached.signal()
            release.wait()
        }
    }

    /// A downsampling consumer that waits at ``Gate`` when the decode asks for its size.
    struct GatedResize: ResamplingTask {
        struct Parameters: TaskParameters {
            @Parameter(help: "Unused.", range: 1...4) var times = 1
        }
        let gate: Gate
        var name: String { "gated" }
        var summary: String { "Waits, then quarters the size (test)." }
        var consumes: InputRequirement { .oneOf([.image]) }
        var provides: ProviderKind? { .image }
        func resizeSpec(_ parameters: Parameters) -> ResizeSpec? {
            gate.pass()
            return ResizeSpec(size: .scale(0.25))
        }
        func makeOperation(_ context: NodeContext) -> FlowOperation { NoirOperation(context: context) }
    }

    /// A `decode` node cancelled from another thread while it decodes a DNG, as a timeout would: the node is held
    /// after libraw read the header (where it asks its consumers how much they need), cancelled, then let go, so the
    /// cancel lands midway; libraw's first step hears it. The node ends cancelled, without an image.
    @Test(.timeLimit(.minutes(20))) func aDecodeNodeCancelledMidwayEndsCancelledWithoutAnImage() throws {
        let gate = Gate()
        let payload = DataPayload(Data(DNGFixture().bytes), source: "t.dng")
        let decode = DecodeOperation(
            context: context("decode", consumers: [consumer(GatedResize(gate: gate))], optimize: true))
        let upstream = BytesOperation(payload: payload)
        decode.addDependency(upstream)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 2
        queue.addOperations([upstream, decode], waitUntilFinished: false)
        gate.reached.wait()
        decode.cancel(reason: .timedOut(.milliseconds(1)))
        gate.release.signal()
        queue.waitUntilAllOperationsAreFinished()
        let ended: String
        switch decode.outcome {
        case .cancelled?: ended = "cancelled"
        case .success?: ended = "succeeded"
        case .failure(let failure)?: ended = "failed: \(failure.message)"
        case .skipped(let cause)?: ended = "skipped: \(cause)"
        case nil: ended = "not ended"
        }
        #expect(ended == "cancelled")
        #expect(decode.providedImage == nil)
    }

    @Test func aRawFileLibrawCannotOpenIsNamedWithTheAdvice() {
        // A CR2's header and a first directory naming the maker, then nothing libraw can identify.
        var head = FormatTests.tiffHead { [$0.ascii(0x010F, "Canon")] }
        head[8] = 0x43
        head[9] = 0x52
        #expect(ImageFormat.sniff(head) == .raw)
        let message = Self.message(head)
        #expect(
            message.hasPrefix("this is a Canon CR2 raw file libraw \(CodecVersions.libraw) cannot open ("), "\(message)"
        )
        #expect(message.hasSuffix("; " + UnreadableFormat.rawAdvice), "\(message)")
    }

    static func message(_ bytes: [UInt8]) -> String {
        do {
            _ = try ImageDecoder.decode(Data(bytes), source: "")
            return ""
        } catch {
            return error.message
        }
    }
}
