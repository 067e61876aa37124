import FlowKit
import Foundation

/// `crop`: keeps a box of an image — given by its corner, or placed by `position` — or the largest region of an
/// aspect ratio, placed by `position` (a gravity, or `attention`/`entropy` for the most interesting part).
package struct CropTask: TaskType {
    package init() {}
    package var name: String { "crop" }
    package var summary: String { "Crops an image to a box, or to an aspect ratio at a position (or a smart crop)." }
    package var consumes: InputRequirement { .oneOf([.image]) }
    package var provides: ProviderKind? { .image }

    /// The parameters of ``CropTask``: `width` and `height` (with `left` and `top`, or a `position`), or `aspect`.
    package struct Parameters: TaskParameters {
        @Parameter(help: "The box's width in pixels.", range: 1...65535)
        package var width: Int?
        @Parameter(help: "The box's height in pixels.", range: 1...65535)
        package var height: Int?
        @Parameter(help: "The box's left edge in pixels (instead of position).", range: 0...65535)
        package var left: Int?
        @Parameter(help: "The box's top edge in pixels (instead of position).", range: 0...65535)
        package var top: Int?
        @Parameter(help: "Instead of a box: the largest region of this aspect ratio, e.g. \"16:9\", \"1:1\" or 1.5.")
        package var aspect: String?
        @Parameter(
            help: "Where the region is taken: centre, an edge or corner (north, southeast, …), attention, entropy.")
        package var position = CropPosition.centre
        package init() {}

        package static var rules: [ParameterRule<Self>] {
            [
                .atLeastOne(of: \.$width, \.$aspect),
                .atMostOne(of: \.$width, \.$aspect),
                .atMostOne(of: \.$height, \.$aspect),
                .given(\.$width, requires: \.$height),
                .given(\.$height, requires: \.$width),
                .given(\.$left, requires: \.$width, \.$top),
                .given(\.$top, requires: \.$width, \.$left),
                .atMostOne(of: \.$left, \.$position),
            ]
        }

        /// The aspect ratio is `W:H` or a number, both positive.
        package func validate(reading input: ProviderKind?, into diagnostics: inout Diagnostics) {
            if let aspect, !aspect.contains("${"), Self.ratio(aspect) == nil {
                diagnostics.error(
                    "crop's aspect '\(aspect)' is not a ratio", at: $aspect.location,
                    hint: "write width:height, e.g. \"16:9\" or \"1:1\", or one positive number, e.g. 1.5")
            }
        }

        /// Width over height from `W:H` or a number; `nil` unless both are finite and positive.
        static func ratio(_ text: String) -> Double? {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            let numbers = parts.compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard numbers.count == parts.count, numbers.allSatisfy({ $0.isFinite && $0 > 0 }) else { return nil }
            switch numbers.count {
            case 1: return numbers[0]
            case 2: return numbers[0] / numbers[1]
            default: return nil
            }
        }
    }

    package func makeOperation(_ context: NodeContext) -> FlowOperation { CropOperation(context: context) }
}

/// The operation of ``CropTask``.
package final class CropOperation: ImageOperation, @unchecked Sendable {
    package override func transform(_ image: Image) throws(ImageOperationError) -> Image {
        let parameters = context.parameters(as: CropTask.Parameters.self)
        let image = image.materialized()
        let (w, h) = (image.width, image.height)
        let size: (width: Int, height: Int)
        if let aspect = parameters.aspect {
            guard let ratio = CropTask.Parameters.ratio(aspect) else {
                throw ImageOperationError("crop's aspect '\(aspect)' is not a ratio: write e.g. \"16:9\" or 1.5")
            }
            size =
                Double(w) / Double(h) > ratio
                ? (min(w, max(1, Int((Double(h) * ratio).rounded()))), h)
                : (w, min(h, max(1, Int((Double(w) / ratio).rounded()))))
        } else if let width = parameters.width, let height = parameters.height {
            size = (width, height)
        } else {
            return image
        }
        let origin: (x: Int, y: Int)
        if let left = parameters.left, let top = parameters.top {
            origin = (left, top)
        } else {
            guard size.width <= w, size.height <= h else { throw outside(size, at: nil, of: image) }
            guard
                let placed = parameters.position.origin(
                    of: size.width, size.height, in: image, shouldContinue: shouldContinue)
            else { return image }
            origin = placed
        }
        guard origin.x + size.width <= w, origin.y + size.height <= h else {
            throw outside(size, at: origin, of: image)
        }
        return image.cropped(x: origin.x, y: origin.y, width: size.width, height: size.height)
    }

    /// The error for a box that does not fit the image.
    private func outside(_ size: (width: Int, height: Int), at origin: (x: Int, y: Int)?, of image: Image)
        -> ImageOperationError
    {
        let corner = origin.map { " at \($0.x),\($0.y)" } ?? ""
        return ImageOperationError(
            "crop box \(size.width)×\(size.height)\(corner) does not fit the \(image.width)×\(image.height) image")
    }
}
