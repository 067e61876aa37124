import FlowKit

/// What a `resize` node asks for: a size rule and a filter, read from its parameters.
public struct ResizeSpec: Sendable, Hashable {
    /// How `width` + `height` together are honoured.
    public enum Fit: String, Sendable, Hashable, CaseIterable, ParameterValue {
        /// The largest size inside the box, aspect kept.
        case contain
        /// `contain` that never enlarges unless `withoutEnlargement: false` says so (sharp's name and default).
        case inside
        /// The smallest size covering the box, aspect kept, then cropped to the box at the ``CropPosition``.
        case cover
        /// Exactly the box; the aspect ratio may change.
        case fill
    }

    /// The size rule.
    public enum Size: Sendable, Hashable {
        /// A factor of the original size.
        case scale(Double)
        /// A width; the height keeps the aspect ratio.
        case width(Int)
        /// A height; the width keeps the aspect ratio.
        case height(Int)
        /// A box, honoured according to the fit.
        case box(width: Int, height: Int, fit: Fit)
    }

    /// The size rule.
    public var size: Size
    /// The resampling filter.
    public var filter: ResampleFilter
    /// Whether the picture is never made larger: the scale factor is capped at 1 (on each axis for `fill`).
    public var withoutEnlargement: Bool
    /// Where `fit: cover` crops the resampled picture.
    public var position: CropPosition

    /// Creates a spec.
    public init(
        size: Size, filter: ResampleFilter = .lanczos, withoutEnlargement: Bool = false,
        position: CropPosition = .centre
    ) {
        self.size = size
        self.filter = filter
        self.withoutEnlargement = withoutEnlargement
        self.position = position
    }

    /// Reads a spec from a `resize` node's parameters; `nil` when they name no size.
    package init?(_ parameters: ResizeTask.Parameters) {
        let size: Size
        if let scale = parameters.scale {
            size = .scale(scale)
        } else if let width = parameters.width, let height = parameters.height {
            size = .box(width: width, height: height, fit: parameters.fit)
        } else if let width = parameters.width {
            size = .width(width)
        } else if let height = parameters.height {
            size = .height(height)
        } else {
            return nil
        }
        self.init(
            size: size, filter: parameters.filter,
            withoutEnlargement: parameters.withoutEnlargement.map { $0 != .allowed } ?? (parameters.fit == .inside),
            position: parameters.position)
    }

    /// The size the whole picture is resampled to, before any crop (`cover`), for an original size.
    package func scaledSize(width: Int, height: Int) -> (width: Int, height: Int) {
        let w = Double(width)
        let h = Double(height)
        func clamp(_ v: Double) -> Int { max(1, Int(v.rounded())) }
        // The factor of the whole picture, or `nil` when `withoutEnlargement` keeps the original size.
        func factor(_ f: Double) -> Double? { withoutEnlargement && f >= 1 ? nil : f }
        switch size {
        case .scale(let s):
            guard let f = factor(s) else { return (width, height) }
            return (clamp(w * f), clamp(h * f))
        case .width(let target):
            guard let f = factor(Double(target) / w) else { return (width, height) }
            return (max(1, target), clamp(h * f))
        case .height(let target):
            guard let f = factor(Double(target) / h) else { return (width, height) }
            return (clamp(w * f), max(1, target))
        case .box(let bw, let bh, .fill):
            return withoutEnlargement ? (min(bw, width), min(bh, height)) : (max(1, bw), max(1, bh))
        case .box(let bw, let bh, .contain), .box(let bw, let bh, .inside):
            guard let f = factor(min(Double(bw) / w, Double(bh) / h)) else { return (width, height) }
            return (min(max(1, bw), clamp(w * f)), min(max(1, bh), clamp(h * f)))
        case .box(let bw, let bh, .cover):
            guard let f = factor(max(Double(bw) / w, Double(bh) / h)) else { return (width, height) }
            return (max(bw, clamp(w * f)), max(bh, clamp(h * f)))
        }
    }

    /// What makes the size rule enlarge an original of this size, as a skipped node's cause (`source is 900 px
    /// wide, under 1600`); `nil` when it keeps the size or shrinks. Exactly the size asked is no enlargement.
    package func enlargement(width: Int, height: Int) -> String? {
        let w = Double(width)
        let h = Double(height)
        switch size {
        case .scale(let s):
            return s > 1 ? "scale \(Value.double(s)) would enlarge the \(width)×\(height) source" : nil
        case .width(let target):
            return target > width ? "source is \(width) px wide, under \(target)" : nil
        case .height(let target):
            return target > height ? "source is \(height) px high, under \(target)" : nil
        case .box(let bw, let bh, .contain), .box(let bw, let bh, .inside):
            return min(Double(bw) / w, Double(bh) / h) > 1
                ? "source is \(width)×\(height), inside the \(bw)×\(bh) box" : nil
        case .box(let bw, let bh, .cover), .box(let bw, let bh, .fill):
            return bw > width || bh > height ? "source is \(width)×\(height), short of the \(bw)×\(bh) box" : nil
        }
    }

    /// The size of the result for an original size.
    package func outputSize(width: Int, height: Int) -> (width: Int, height: Int) {
        let scaled = scaledSize(width: width, height: height)
        if case .box(let bw, let bh, .cover) = size {
            return (min(max(1, bw), scaled.width), min(max(1, bh), scaled.height))
        }
        return scaled
    }

    /// The largest fraction of the original size, over both axes, that the resampling keeps.
    ///
    /// Shrink-on-load decodes at a DCT scale no smaller than this (times a safety margin).
    package func keptFraction(width: Int, height: Int) -> Double {
        let scaled = scaledSize(width: width, height: height)
        return max(Double(scaled.width) / Double(width), Double(scaled.height) / Double(height))
    }
}

extension Image {
    /// The image resized as `spec` says, computed against ``originalWidth`` × ``originalHeight``, with any
    /// ``pendingColor`` applied to each row as it is read (the same pixels as applying it first).
    package func resized(_ spec: ResizeSpec) -> Image {
        resized(spec) { _ in true } ?? self
    }

    /// ``resized(_:)``, asking `shouldContinue` (with the rows done) every few rows; `nil` when it returned `false`.
    func resized(_ spec: ResizeSpec, shouldContinue: (_ rowsDone: Int) -> Bool) -> Image? {
        let scaled = spec.scaledSize(width: originalWidth, height: originalHeight)
        var pixels: [UInt8]
        if scaled.width == width && scaled.height == height {
            pixels = materialized().pixels
        } else {
            guard
                let resampled = Resampler.resample(
                    self, width: scaled.width, height: scaled.height, filter: spec.filter,
                    matrix: pendingColor, shouldContinue: shouldContinue)
            else { return nil }
            pixels = resampled
        }
        var result = Image(width: scaled.width, height: scaled.height, pixels: pixels, source: source)
        result.metadata = metadata
        let final = spec.outputSize(width: originalWidth, height: originalHeight)
        if final.width != scaled.width || final.height != scaled.height {
            guard
                let origin = spec.position.origin(
                    of: final.width, final.height, in: result, shouldContinue: shouldContinue)
            else { return nil }
            result = result.cropped(x: origin.x, y: origin.y, width: final.width, height: final.height)
        }
        return result
    }
}
