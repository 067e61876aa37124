import FlowKit

/// A place in a picture named by the edges it touches: the centre, an edge or a corner (sharp's gravities).
public enum Gravity: String, Sendable, Hashable, CaseIterable, ParameterValue {
    case centre, north, northeast, east, southeast, south, southwest, west, northwest

    /// The top-left corner of a `width` × `height` region placed at this gravity in a `outerWidth` × `outerHeight`
    /// area (negative or beyond when the region is larger than the area), moved `inset` pixels away from the
    /// edges the gravity touches (right and down on a centred axis).
    package func origin(
        of width: Int, _ height: Int, inWidth outerWidth: Int, height outerHeight: Int, inset: (x: Int, y: Int) = (0, 0)
    ) -> (x: Int, y: Int) {
        let x: Int
        switch self {
        case .west, .northwest, .southwest: x = inset.x
        case .east, .northeast, .southeast: x = outerWidth - width - inset.x
        case .centre, .north, .south: x = (outerWidth - width) / 2 + inset.x
        }
        let y: Int
        switch self {
        case .north, .northwest, .northeast: y = inset.y
        case .south, .southwest, .southeast: y = outerHeight - height - inset.y
        case .centre, .west, .east: y = (outerHeight - height) / 2 + inset.y
        }
        return (x, y)
    }
}

/// Which part of a picture a crop keeps: a ``Gravity``, or the most interesting part as sharp's smart crop finds
/// it (`attention`, `entropy`; see `SmartCrop`).
public enum CropPosition: String, Sendable, Hashable, CaseIterable, ParameterValue {
    case centre, north, northeast, east, southeast, south, southwest, west, northwest
    /// The region with the most edges, saturated colour and skin tones.
    case attention
    /// The region whose luminance has the most information (histogram entropy).
    case entropy

    /// The position as a fixed place, or `nil` for a smart crop, which looks at the pixels.
    var gravity: Gravity? { Gravity(rawValue: rawValue) }

    /// The top-left corner of the `width` × `height` region (at most the image's size) kept from `image`; `nil`
    /// when `shouldContinue` stopped a smart crop.
    func origin(
        of width: Int, _ height: Int, in image: Image, shouldContinue: (Int) -> Bool = { _ in true }
    ) -> (x: Int, y: Int)? {
        switch self {
        case .attention:
            return SmartCrop.attention(image, width: width, height: height, shouldContinue: shouldContinue)
        case .entropy:
            return SmartCrop.entropy(image, width: width, height: height, shouldContinue: shouldContinue)
        default:
            return gravity?.origin(of: width, height, inWidth: image.width, height: image.height)
        }
    }
}
