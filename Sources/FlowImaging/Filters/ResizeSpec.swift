import FlowKit

/// What a `resize` node asks for: a size rule and a filter, read from its parameters.
public struct ResizeSpec: Sendable, Hashable {
    /// How `width` + `height` together are honoured.
    public enum Fit: String, Sendable, Hashable, CaseIterable, ParameterValue {
        /// The largest size inside the box, aspect kept.
        case contain
        /// The smallest size covering the box, aspect kept, then centre-cropped to the box.
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

    /// Creates a spec.
    public init(size: Size, filter: ResampleFilter = .lanczos) {
        self.size = size
        self.filter = filter
    }

    /// Reads a spec from a `resize` node's parameters; `nil` when they name no size.
    package init?(_ parameters: ResizeTask.Parameters) {
        let filter = parameters.filter
        if let scale = parameters.scale {
            self.init(size: .scale(scale), filter: filter)
        } else if let width = parameters.width, let height = parameters.height {
            self.init(size: .box(width: width, height: height, fit: parameters.fit), filter: filter)
        } else if let width = parameters.width {
            self.init(size: .width(width), filter: filter)
        } else if let height = parameters.height {
            self.init(size: .height(height), filter: filter)
        } else {
            return nil
        }
    }

    /// The size the whole picture is resampled to, before any crop (`cover`), for an original size.
    package func scaledSize(width: Int, height: Int) -> (width: Int, height: Int) {
        let w = Double(width)
        let h = Double(height)
        func clamp(_ v: Double) -> Int { max(1, Int(v.rounded())) }
        switch size {
        case .scale(let factor):
            return (clamp(w * factor), clamp(h * factor))
        case .width(let target):
            return (max(1, target), clamp(h * Double(target) / w))
        case .height(let target):
            return (clamp(w * Double(target) / h), max(1, target))
        case .box(let bw, let bh, .fill):
            return (max(1, bw), max(1, bh))
        case .box(let bw, let bh, .contain):
            let factor = min(Double(bw) / w, Double(bh) / h)
            return (min(max(1, bw), clamp(w * factor)), min(max(1, bh), clamp(h * factor)))
        case .box(let bw, let bh, .cover):
            let factor = max(Double(bw) / w, Double(bh) / h)
            return (max(bw, clamp(w * factor)), max(bh, clamp(h * factor)))
        }
    }

    /// The size of the result for an original size.
    package func outputSize(width: Int, height: Int) -> (width: Int, height: Int) {
        if case .box(let bw, let bh, .cover) = size { return (max(1, bw), max(1, bh)) }
        return scaledSize(width: width, height: height)
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
            result = result.cropped(toWidth: final.width, height: final.height)
        }
        return result
    }

    /// The centre `width` × `height` of the image (sizes clamped to the image's).
    package func cropped(toWidth targetWidth: Int, height targetHeight: Int) -> Image {
        let w = min(targetWidth, width)
        let h = min(targetHeight, height)
        let x0 = (width - w) / 2
        let y0 = (height - h) / 2
        var out = [UInt8](repeating: 0, count: w * h * 4)
        for y in 0..<h {
            let from = ((y0 + y) * width + x0) * 4
            out.replaceSubrange(y * w * 4..<(y + 1) * w * 4, with: pixels[from..<from + w * 4])
        }
        var result = Image(width: w, height: h, pixels: out, source: source)
        result.pendingColor = pendingColor
        result.metadata = metadata
        return result
    }
}
