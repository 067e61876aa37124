import FlowKit
import Foundation

/// Small previews of images for reports (the contact sheet of `--html`), made from the pixels already in memory.
///
/// A preview is a thumbnail, not a resize: each output pixel averages a grid of at most 3 × 3 samples spread
/// over its footprint instead of every source pixel under it. That keeps its cost to about a hundred thousand
/// reads whatever the image's size (a full box filter over a 12-megapixel image reads all 48 MB), at the price
/// of some aliasing that a 128-pixel picture hardly shows.
enum ImagePreview {
    /// The JPEG quality of previews: about 2.5 KB each (3.3 KB as base64), so a page of 1,000 stays well under 5 MB.
    static let quality = 60
    /// Samples per axis in each output pixel's footprint, at most.
    static let maxSamples = 3

    /// A JPEG of the image scaled to fit `maxSide` × `maxSide` (never enlarged), its pending colour applied.
    static func jpeg(of image: Image, maxSide: Int = Artifact.maxPreviewSide) -> Data? {
        try? JPEGEncoder.encode(thumbnail(of: image, maxSide: maxSide), quality: quality)
    }

    /// The image scaled down to fit `maxSide` × `maxSide`, with its pending colour carried along.
    static func thumbnail(of image: Image, maxSide: Int) -> Image {
        let scale = min(1, Double(maxSide) / Double(max(image.width, image.height)))
        let width = max(1, Int((Double(image.width) * scale).rounded()))
        let height = max(1, Int((Double(image.height) * scale).rounded()))
        // Byte offsets of the samples: `columns[x * perColumn + k]` within a row, `rows[y * perRow + k]` of a row.
        let (columns, perColumn) = samples(source: image.width, target: width, stride: 4)
        let (rows, perRow) = samples(source: image.height, target: height, stride: image.width * 4)
        let count = UInt32(perColumn * perRow)
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        image.pixels.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { target in
                var out = 0
                for y in 0..<height {
                    for x in 0..<width {
                        var (r, g, b, a) = (count / 2, count / 2, count / 2, count / 2)  // rounds the mean
                        for row in rows[(y * perRow)..<((y + 1) * perRow)] {
                            for column in columns[(x * perColumn)..<((x + 1) * perColumn)] {
                                let index = row + column
                                r &+= UInt32(source[index])
                                g &+= UInt32(source[index + 1])
                                b &+= UInt32(source[index + 2])
                                a &+= UInt32(source[index + 3])
                            }
                        }
                        target[out] = UInt8(truncatingIfNeeded: r / count)
                        target[out + 1] = UInt8(truncatingIfNeeded: g / count)
                        target[out + 2] = UInt8(truncatingIfNeeded: b / count)
                        target[out + 3] = UInt8(truncatingIfNeeded: a / count)
                        out += 4
                    }
                }
            }
        }
        var thumbnail = Image(width: width, height: height, pixels: pixels, source: image.source)
        thumbnail.pendingColor = image.pendingColor
        return thumbnail
    }

    /// The sample positions along one axis, as byte offsets (`position * stride`): for each target coordinate,
    /// `perTarget` positions evenly spaced across its footprint.
    private static func samples(source: Int, target: Int, stride: Int) -> (offsets: [Int], perTarget: Int) {
        let footprint = Double(source) / Double(target)
        let perTarget = min(maxSamples, max(1, Int(footprint.rounded(.up))))
        var offsets: [Int] = []
        offsets.reserveCapacity(target * perTarget)
        for index in 0..<target {
            for sample in 0..<perTarget {
                let position = (Double(index) + (Double(sample) + 0.5) / Double(perTarget)) * footprint
                offsets.append(min(source - 1, Int(position)) * stride)
            }
        }
        return (offsets, perTarget)
    }
}
