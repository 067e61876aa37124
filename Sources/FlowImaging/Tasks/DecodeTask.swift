import FlowKit
import Foundation

/// `decode`: JPEG, PNG, WebP, TIFF, HEIC, AVIF or camera raw bytes (recognised from the bytes, not the name) to an
/// RGBA8 ``Image``; a timeout or Ctrl-C stops it midway (HEIC and AVIF: before it starts; raw: between libraw's
/// steps).
///
/// The orientation is applied (EXIF's, else XMP's; HEIF's own rotation); the size is checked against the
/// ``PixelBudget`` before any pixel is allocated. With ``NodeContext/optimize``, a JPEG is decoded at a DCT scale (M/8: 1/2, 3/8, 1/4, …) when
/// every consumer downsamples enough (shrink-on-load, see ``ConsumerAnalysis``), and a raw file at libraw's half
/// size when every consumer keeps at most half of each side.
package struct DecodeTask: TaskType {
    package init() {}
    package var name: String { "decode" }
    package var summary: String {
        "Decodes JPEG, PNG, WebP, TIFF, HEIC, AVIF or camera raw (DNG, CR2, NEF…) bytes (detected from the bytes) "
            + "into an image."
    }
    package var consumes: InputRequirement { .oneOf([.data]) }
    package var provides: ProviderKind? { .image }
    /// 2: ICC profiles converted to sRGB, 16-bit interlaced PNGs read correctly, PNG `eXIf` orientation, WebP.
    /// 3: shrink-on-load keeps more of a JPEG dense with detail.
    /// 4: scales 1/2 and 1/4 sample each block's low frequencies (no box blur), and every JPEG uses the same margin.
    /// 5: TIFF, HEIC and AVIF; orientation from a PNG's `Raw profile type exif` chunk and from XMP.
    /// 6: camera raw files through libraw.
    package var implementationVersion: String { "6 " + CodecVersions.description }
    package func makeOperation(_ context: NodeContext) -> FlowOperation { DecodeOperation(context: context) }

    /// The shrink-on-load scale the decoder asks TurboJPEG for, given the picture's full size (`facts`,
    /// `WIDTHxHEIGHT`) and the consumers: a stored image is reused only for consumers that would get the same. A raw
    /// file's half size is chosen exactly when this scale is 1/2 or less, so the same variant names it too.
    package func outputVariant(facts: String, consumers: [NodeContext.Consumer], optimize: Bool) -> String? {
        let size = facts.split(separator: "x").compactMap { Int($0) }
        guard size.count == 2 else { return "unknown" }
        let fraction =
            optimize ? ConsumerAnalysis.keptFraction(consumers: consumers, width: size[0], height: size[1]) : nil
        let factor = fraction.map { JPEGDecoder.scalingFactor(keeping: $0) } ?? (num: 1, denom: 1)
        return "scale \(factor.num)/\(factor.denom)"
    }
}

/// The operation of ``DecodeTask``.
package final class DecodeOperation: FlowOperation, ImageProvider, @unchecked Sendable {
    /// The decoded image, once finished.
    package var providedImage: Image? { output(as: Image.self) }

    package override func execute() {
        if finishIfCancelled() { return }
        guard let payload = input((any DataProvider).self)?.providedData else {
            return finish(.failure(context.failure(.invalidInput, "no input data (the upstream node provided none)")))
        }
        let consumers = context.consumers
        let optimize = context.optimize
        do {
            let image = try ImageDecoder.decode(
                payload.bytes, source: payload.source,
                keptFraction: { width, height in
                    optimize ? ConsumerAnalysis.keptFraction(consumers: consumers, width: width, height: height) : nil
                },
                warn: { warn($0) },
                shouldContinue: { _ in !isCancelled })
            if finishIfCancelled() { return }
            finish(.success(image))
        } catch {
            if finishIfCancelled() { return }
            let source = payload.source.isEmpty ? "the input" : "'\(payload.source)'"
            finish(.failure(context.failure(.invalidInput, "cannot decode \(source): \(error.message)", cause: error)))
        }
    }
}
