import FlowImagingBench
import FlowKit
import Foundation
import Testing

@testable import FlowImaging

/// PNG and WebP decodes stop midway when asked — a timeout or Ctrl-C — as JPEG decodes do: libpng reads its input
/// through a stream that asks before each read, and libwebp's incremental decoder is fed the file part by part.
@Suite struct DecodeCancellationTests {
    /// `rows` rows of `pixelsPerRow` pixels of `bytesPerPixel` bytes, each row a copy of a noise tile's row shifted
    /// by the row number, so that no two rows are alike (libpng and libwebp have real work on each) while the
    /// pixels cost only a few copies to make. With 4 bytes per pixel, every pixel is opaque.
    static func texture(pixelsPerRow: Int, rows: Int, bytesPerPixel: Int) -> [UInt8] {
        var tile = Fixtures.noise(width: 1024, height: 1, seed: 5).pixels
        if bytesPerPixel == 4 { for i in stride(from: 3, to: tile.count, by: 4) { tile[i] = 255 } }
        let rowBytes = pixelsPerRow * bytesPerPixel
        return [UInt8](unsafeUninitializedCapacity: rowBytes * rows) { out, initialized in
            tile.withUnsafeBufferPointer { src in
                for y in 0..<rows {
                    var x = 0
                    while x < rowBytes {
                        let start = (y * 7 * bytesPerPixel + x) % tile.count
                        let count = min(rowBytes - x, tile.count - start)
                        (out.baseAddress! + y * rowBytes + x).update(from: src.baseAddress! + start, count: count)
                        x += count
                    }
                }
            }
            initialized = rowBytes * rows
        }
    }

    /// A 4000×3000 RGB PNG, compressed by libpng: a full decode takes a good fraction of a second in a test build.
    static let largePNG: Data = {
        let (width, height) = (4000, 3000)
        let pixels = texture(pixelsPerRow: width, rows: height, bytesPerPixel: 3)
        return try! PNGCodec.encode(pixels: pixels, width: width, height: height, channels: 3)
    }()

    /// A 2400×1800 lossy WebP, many times ``WebPCodec/bytesPerCheck`` long.
    static let largeWebP: Data = {
        let (width, height) = (2400, 1800)
        let pixels = texture(pixelsPerRow: width, rows: height, bytesPerPixel: 4)
        let image = Image(width: width, height: height, pixels: pixels, source: "")
        return try! WebPCodec.encode(image, quality: 90, lossless: false)
    }()

    /// A 256×256 16-bit interlaced RGB PNG, stored uncompressed: the row-API path of ``PNGCodec``.
    static let interlaced16BitPNG: Data = {
        let (width, height) = (256, 256)
        let bytes = texture(pixelsPerRow: width, rows: height, bytesPerPixel: 6)
        let rows = (0..<height).map { Array(bytes[$0 * width * 6..<($0 + 1) * width * 6]) }
        return PNGFixtureWriter.png(
            width: width, height: height, bitDepth: 16, colorType: .rgb, rows: rows, interlaced: true)
    }()

    static func file(_ name: String) -> Data {
        switch name {
        case "png": largePNG
        case "webp": largeWebP
        default: interlaced16BitPNG
        }
    }

    /// The part of a file read or fed before the decoder asks again.
    static func bytesPerCheck(_ name: String) -> Int {
        name == "webp" ? WebPCodec.bytesPerCheck : CheckedStream.bytesPerCheck
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }

    /// Decodes `data`, answering `shouldContinue` with `keepGoing(secondsSoFar)`.
    /// - Returns: The error's message (`nil` when the decode finished), the seconds taken, and the work done at the
    ///   last check (0 if never asked).
    static func decode(_ data: Data, keepGoing: (Double) -> Bool) -> (error: String?, seconds: Double, done: Int) {
        let clock = ContinuousClock()
        let start = clock.now
        var lastDone = 0
        do {
            let image = try ImageDecoder.decode(
                data, source: "",
                shouldContinue: { done in
                    lastDone = done
                    return keepGoing(seconds(start.duration(to: clock.now)))
                })
            #expect(image.width > 0)
            return (nil, seconds(start.duration(to: clock.now)), lastDone)
        } catch {
            return (error.message, seconds(start.duration(to: clock.now)), lastDone)
        }
    }

    @Test(arguments: ["png", "webp", "png16-interlaced"])
    func aStopIsHeardAtTheFirstCheck(format: String) {
        let data = Self.file(format)
        #expect(data.count > 4 * Self.bytesPerCheck(format), "the file is several parts long: \(data.count) bytes")
        let stopped = Self.decode(data) { _ in false }
        #expect(stopped.error == "the decode was stopped")
        #expect(stopped.done > 0 && stopped.done <= Self.bytesPerCheck(format), "asked first at \(stopped.done) bytes")
        let finished = Self.decode(data) { _ in true }
        #expect(finished.error == nil, "checks that say go on change nothing: \(finished.error ?? "")")
    }

    /// A timeout during a long decode ends it well before a full decode would finish, measured in the same test.
    @Test(arguments: ["png", "webp"])
    func aTimeoutEndsTheDecodeWellBeforeAFullOne(format: String) {
        let data = Self.file(format)
        let full = Self.decode(data) { _ in true }
        #expect(full.error == nil)
        let timeout = full.seconds / 10
        // Up to three tries, as a loaded machine may pause one: a decode that cannot stop midway fails them all.
        var tries: [String] = []
        for _ in 0..<3 {
            let stopped = Self.decode(data) { $0 < timeout }
            #expect(stopped.error == "the decode was stopped")
            if stopped.seconds < full.seconds / 2 { return }
            tries.append("stopped after \(stopped.seconds) s")
        }
        Issue.record(
            "\(tries.joined(separator: "; ")) with a \(timeout) s timeout; a full decode took \(full.seconds) s")
    }

    /// A `decode` node cancelled during a long PNG decode ends cancelled, without an image, long before the decode
    /// would have finished.
    @Test func aCancelledDecodeNodeEndsPromptlyWithoutAnImage() throws {
        let clock = ContinuousClock()
        let payload = DataPayload(Self.largePNG, source: "large.png")
        // The baseline: the quicker of two whole decodes, so that a first run's page faults do not inflate it.
        var full = Duration.seconds(1000)
        for _ in 0..<2 {
            let fullStart = clock.now
            let whole = DecodeOperation(context: context("decode"))
            guard case .success? = run(whole, after: BytesOperation(payload: payload)) else {
                Issue.record("the uncancelled decode failed: \(String(describing: whole.outcome))")
                return
            }
            full = min(full, fullStart.duration(to: clock.now))
        }

        // Up to five tries: a decode that is not stopped midway takes a whole decode's time on every try, while
        // a loaded machine may delay one try's threads past the bound.
        var tries: [String] = []
        for _ in 0..<5 {
            let decode = DecodeOperation(context: context("decode"))
            let upstream = BytesOperation(payload: payload)
            decode.addDependency(upstream)
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 2
            let start = clock.now
            queue.addOperations([upstream, decode], waitUntilFinished: false)
            // As a timeout would: the cancel comes from another thread while the decode runs.
            Thread.sleep(forTimeInterval: Self.seconds(full) / 10)
            let cancelledAt = start.duration(to: clock.now)
            decode.cancel(reason: .timedOut(.milliseconds(1)))
            queue.waitUntilAllOperationsAreFinished()
            let taken = start.duration(to: clock.now)
            guard case .cancelled? = decode.outcome else {
                Issue.record("expected cancelled, got \(String(describing: decode.outcome))")
                return
            }
            #expect(decode.providedImage == nil)
            if taken < full * 3 / 4 { return }
            tries.append("cancelled at \(cancelledAt) (a tenth of \(full)), ended after \(taken)")
        }
        Issue.record("never ended within three quarters of a full decode: \(tries.joined(separator: "; "))")
    }
}
