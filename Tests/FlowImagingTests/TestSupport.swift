import FlowImaging
import FlowKit
import Foundation

/// Small images and graph pieces shared by the FlowImaging tests.
enum Fixtures {
    /// A smooth RGBA gradient with a little texture, `width` × `height`, alpha 255.
    static func gradient(width: Int, height: Int) -> Image {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                pixels[i] = UInt8(x * 255 / max(width - 1, 1))
                pixels[i + 1] = UInt8(y * 255 / max(height - 1, 1))
                pixels[i + 2] = UInt8((x + y) * 127 / max(width + height - 2, 1) + 64)
            }
        }
        return Image(width: width, height: height, pixels: pixels, source: "gradient")
    }

    /// Pseudo-random pixels (a fixed linear congruential sequence), alpha varying too.
    static func noise(width: Int, height: Int, seed: UInt32 = 1) -> Image {
        var state = seed
        let pixels = (0..<width * height * 4).map { _ -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        return Image(width: width, height: height, pixels: pixels, source: "noise")
    }

    /// An image whose four quadrants are solid red, green, blue and white (A B / C D).
    static let quadrantColors: [SIMD4<UInt8>] = [
        SIMD4(220, 30, 30, 255), SIMD4(30, 200, 40, 255),
        SIMD4(30, 40, 210, 255), SIMD4(240, 240, 240, 255),
    ]
    static func quadrants(width: Int, height: Int) -> Image {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let q = (y < height / 2 ? 0 : 2) + (x < width / 2 ? 0 : 1)
                let c = quadrantColors[q]
                for k in 0..<4 { pixels[(y * width + x) * 4 + k] = c[k] }
            }
        }
        return Image(width: width, height: height, pixels: pixels, source: "quadrants")
    }

    /// The largest difference between two images' channels.
    static func maxDifference(_ a: Image, _ b: Image) -> Int {
        zip(a.pixels, b.pixels).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
    }

    /// Whether two colours are within `tolerance` on every channel.
    static func close(_ a: SIMD4<UInt8>, _ b: SIMD4<UInt8>, tolerance: Int) -> Bool {
        (0..<4).allSatisfy { abs(Int(a[$0]) - Int(b[$0])) <= tolerance }
    }
}

/// A source node that provides an image, standing in for `decode` upstream of the node under test.
final class ImageSourceOperation: FlowOperation, ImageProvider, @unchecked Sendable {
    private let image: Image
    init(_ image: Image) {
        self.image = image
        super.init(context: NodeContext(nodeID: "source", typeName: "source"))
    }
    override func execute() { finish(.success(image)) }
    var providedImage: Image? { output(as: Image.self) }
}

/// Runs `operation` after `upstream` on an `OperationQueue`, as the runner would, and waits.
func run(_ operation: FlowOperation, after upstream: FlowOperation) -> FlowOperation.Outcome? {
    operation.addDependency(upstream)
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 2
    queue.addOperation(upstream)
    queue.addOperation(operation)
    queue.waitUntilAllOperationsAreFinished()
    return operation.outcome
}

/// Runs a chain of operations (each depending on the previous) on a queue and waits.
func runChain(_ operations: [FlowOperation]) {
    for (up, down) in zip(operations, operations.dropFirst()) { down.addDependency(up) }
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 2
    queue.addOperations(operations, waitUntilFinished: true)
}

/// The failure message of an outcome, if it failed.
func failureMessage(_ outcome: FlowOperation.Outcome?) -> String? {
    if case .failure(let failure)? = outcome { return failure.message }
    return nil
}

/// A context for a node under test.
func context(
    _ type: String, _ parameters: [String: Value] = [:], consumers: [NodeContext.Consumer] = [],
    optimize: Bool = false, directory: String = "."
) -> NodeContext {
    NodeContext(
        nodeID: type, typeName: type, parameters: ParameterValues(parameters),
        workflowDirectory: directory, consumers: consumers, optimize: optimize)
}

/// A consumer description, as the runner gives it to upstream nodes.
func consumer(_ type: any TaskType, _ parameters: [String: Value] = [:], then more: [NodeContext.Consumer] = [])
    -> NodeContext.Consumer
{
    NodeContext.Consumer(type: type, parameters: ParameterValues(parameters)) { more }
}

/// The operation a `sepia` node runs.
func sepiaOperation(_ context: NodeContext) -> ColorMatrixOperation {
    ColorMatrixOperation(
        context: context, matrix: SepiaTask().colorMatrix(context.parameters(as: SepiaTask.Parameters.self)))
}
