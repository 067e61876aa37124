import FlowKit

/// Looks down the graph from a node, through ``NodeContext/consumers``, to decide whether it may do less work.
///
/// Two optimisations use it, both only when ``NodeContext/optimize`` is set:
///
/// Both key on what consumers' task types declare (``ResamplingTask``, ``PointwiseColorTask``, ``ColorMatrixTask``),
/// never on their names, so a custom task that declares a capability gets the same treatment.
///
/// - **Shrink-on-load** (`decode`): when every path from the decoder ends in a ``ResamplingTask`` (`resize`) that
///   keeps at most 3/8 of each side (so that ``ConsumerAnalysis/qualityMargin`` times that is at most
///   ``ConsumerAnalysis/largestScale``) — possibly through ``PointwiseColorTask``s (`sepia`, `noir`), which do not
///   care about size, and ``OrientingTask``s (`flip`, `rotate` by quarter turns), which only move pixels —
///   TurboJPEG decodes at a reduced DCT scale, M/8 (7/8 … 1/2 … 1/8), much cheaper than a full decode. The factor is
///   the smallest that still leaves ``ConsumerAnalysis/qualityMargin`` × the final size
///   (``ConsumerAnalysis/detailedMargin`` × for a JPEG dense with detail, unless the first gives 1/2), so the
///   Lanczos pass still has real pixels to filter. `resize` computes its target from the original size the image remembers, and maps
///   coordinates through ``Image/decodedScale`` so the shrunk pixels line up exactly with the full image. A camera's
///   raw file is developed at libraw's half size when that fraction is at most 1/2 (``RawCodec``).
/// - **Colour fused into the resize** (``ColorMatrixTask``, `sepia`): when every consumer is a ``ResamplingTask``
///   that reduces the pixel count — or another ``ColorMatrixTask`` that will itself defer — the matrix is attached as ``Image/pendingColor`` and the resize
///   applies it to each source row as it reads it, rounded and clamped exactly as `sepia` would: the same pixels,
///   without writing and reading a full-size buffer. (Moving the matrix *after* the resample is not exact: clipping
///   does not commute with Lanczos' negative lobes.) `noir` is not deferred.
package enum ConsumerAnalysis {
    /// The decoded image keeps at least this multiple of the final size on each side.
    ///
    /// 1.5: a reduction to 30 % decodes at 1/2. On the benchmark's 20 photos (decode → sepia 0.8 → resize ×0.3,
    /// `bench/image/cli.sh`) the optimised thumbnails are 48.6–56.5 dB from the literal ones (largest difference
    /// 26 levels, at edges). That holds for photos dense with fine detail too because scale 1/2 samples each
    /// block's low frequencies instead of averaging its pixels in 2×2 squares, as libjpeg's own 4×4 IDCT does
    /// (a blur that left the five densest photos at 43.1–45.0 dB; see `Sources/CFlowShims/jpeg_sampled_idct.c`).
    /// A margin of 2 (decode at 5/8) costs about 10 % more, through libjpeg's scalar 5×5 and 10×10 IDCTs.
    /// `--no-optimize` gives the literal result.
    package static let qualityMargin = 1.5

    /// The margin for a JPEG dense with fine detail (more than ``detailedBitsPerPixel``) where the margin of 1.5
    /// would pick a scale other than 1/2.
    ///
    /// A reduced DCT decode drops each block's high frequencies, and the Lanczos pass of the literal pipeline
    /// would have folded part of them into the thumbnail; the densest photos lose most. At 1/2 the sampled IDCT
    /// keeps them above 47 dB even at a margin of 1.5 (×0.33), but at 3/8 and 1/4 they fall to 42.8 dB (×0.25,
    /// ×0.15, life.jpg) where a margin of 2 keeps ≥ 45.8. The compressed size is known before decoding and counts
    /// the coefficients a reduced decode drops, so it decides before any work is done; a file that is large for
    /// other reasons (big metadata) only costs a larger decode, never fidelity.
    package static let detailedMargin = 2.0

    /// The compressed density above which a JPEG counts as detailed: bits of entropy-coded data (from the first scan
    /// on) per pixel of its full size. The benchmark's five densest photos have 2.2–3.2, the others below 1.95.
    package static let detailedBitsPerPixel = 2.2

    /// The largest DCT scale worth decoding at: above it a reduced decode saves too little.
    package static let largestScale = 0.75

    /// The fraction of each side of an `width` × `height` original that is enough for every consumer, or `nil`
    /// when some path needs the full resolution (no consumer, a `write`, a task without a capability, an
    /// enlarging resize).
    package static func keptFraction(consumers: [NodeContext.Consumer], width: Int, height: Int) -> Double? {
        guard let needed = neededFraction(consumers: consumers, width: width, height: height) else { return nil }
        let withMargin = needed * qualityMargin
        return withMargin <= largestScale ? withMargin : nil
    }

    /// The largest fraction any path keeps, without margin; `nil` when some path needs everything.
    private static func neededFraction(consumers: [NodeContext.Consumer], width: Int, height: Int) -> Double? {
        guard !consumers.isEmpty else { return nil }
        var needed = 0.0
        for consumer in consumers {
            switch consumer.type {
            case let resampling as any ResamplingTask:
                guard let spec = resampling.resizeSpec(consumer.parameters) else { return nil }
                needed = max(needed, spec.keptFraction(width: width, height: height))
            case is any PointwiseColorTask:
                guard let fraction = neededFraction(consumers: consumer.consumers(), width: width, height: height)
                else { return nil }
                needed = max(needed, fraction)
            case let orienting as any OrientingTask:
                guard let size = orienting.orientedSize(consumer.parameters, width: width, height: height),
                    let fraction = neededFraction(
                        consumers: consumer.consumers(), width: size.width, height: size.height)
                else { return nil }
                needed = max(needed, fraction)
            default:
                return nil
            }
        }
        return needed
    }

    /// Whether a colour matrix may be left pending for an image of this original size: every consumer is a
    /// ``ResamplingTask`` producing fewer pixels, or a ``ColorMatrixTask`` that may defer in turn.
    package static func mayDeferColor(consumers: [NodeContext.Consumer], width: Int, height: Int) -> Bool {
        guard !consumers.isEmpty else { return false }
        return consumers.allSatisfy { consumer in
            switch consumer.type {
            case let resampling as any ResamplingTask:
                guard let spec = resampling.resizeSpec(consumer.parameters) else { return false }
                let out = spec.scaledSize(width: width, height: height)
                return out.width * out.height < width * height
            case is any ColorMatrixTask:
                return mayDeferColor(consumers: consumer.consumers(), width: width, height: height)
            default:
                return false
            }
        }
    }
}
