import Foundation
import Testing

@testable import FlowImaging

/// The new operations' kernels stop at their first progress check after a cancel made on another thread.
@Suite struct OperationCancellationTests {
    /// Runs `work` until its first progress report, cancels, and checks that it returned nothing and where it was.
    static func expectStops(
        atProgress expected: Int, sourceLocation: SourceLocation = #_sourceLocation,
        _ work: @escaping @Sendable (_ shouldContinue: (Int) -> Bool) -> Image?
    ) {
        let (result, last) = KernelCancellationTests.cancelOnFirstProgress(work)
        #expect(
            result != nil && result.flatMap { $0 } == nil, "a cancelled kernel returns no image",
            sourceLocation: sourceLocation)
        #expect(last == expected, "stopped after \(last)", sourceLocation: sourceLocation)
    }

    static let image = Fixtures.gradient(width: 300, height: 200)

    @Test func blurAndSharpen() {
        Self.expectStops(atProgress: 15) { GaussianBlur.blurred(Self.image, sigma: 2, shouldContinue: $0) }
        Self.expectStops(atProgress: 15) {
            GaussianBlur.sharpened(Self.image, sigma: 1, amount: 1, threshold: 0, shouldContinue: $0)
        }
    }

    @Test func rotateAndFlip() {
        Self.expectStops(atProgress: 16) {
            Rotation.rotated(Self.image, degrees: 10, background: RGBAColor("black")!, shouldContinue: $0)
        }
        Self.expectStops(atProgress: 64) { Self.image.rotated(quarterTurns: 1, shouldContinue: $0) }
        Self.expectStops(atProgress: 63) { Self.image.flipped(horizontal: true, shouldContinue: $0) }
    }

    @Test func overlayAndSmartCrop() {
        let logo = Fixtures.noise(width: 100, height: 100)
        Self.expectStops(atProgress: 15) {
            Self.image.overlaid(with: logo, x: 10, y: 10, opacity: 1, shouldContinue: $0)
        }
        Self.expectStops(atProgress: 63) { shouldContinue in
            CropPosition.attention.origin(of: 50, 50, in: Self.image, shouldContinue: shouldContinue).map { _ in
                Self.image
            }
        }
    }
}
