import Foundation
import Synchronization
import Testing

@testable import FlowImaging

/// Long kernels stop within a few rows of a cancel made on another thread, as a timeout or Ctrl-C makes it.
@Suite struct KernelCancellationTests {
    /// Runs `work` on another thread; once it reports progress, cancels from this thread, then returns what the
    /// work returned and the progress it reported last.
    static func cancelOnFirstProgress<Result: Sendable>(
        _ work: @escaping @Sendable (_ shouldContinue: (Int) -> Bool) -> Result
    ) -> (result: Result?, lastProgress: Int) {
        let cancelled = Atomic(false)
        let lastProgress = Atomic(0)
        let progressed = DispatchSemaphore(value: 0)
        let acknowledged = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let box = Mutex<Result?>(nil)
        Thread.detachNewThread {
            let result = work { done in
                lastProgress.store(done, ordering: .sequentiallyConsistent)
                if !cancelled.load(ordering: .sequentiallyConsistent) {
                    progressed.signal()
                    // Wait for the cancel so that the test does not depend on how fast either thread runs.
                    acknowledged.wait()
                }
                return !cancelled.load(ordering: .sequentiallyConsistent)
            }
            box.withLock { $0 = result }
            done.signal()
        }
        progressed.wait()
        cancelled.store(true, ordering: .sequentiallyConsistent)
        acknowledged.signal()
        done.wait()
        return (box.withLock { $0 }, lastProgress.load(ordering: .sequentiallyConsistent))
    }

    @Test(arguments: FilterKernel.allCases)
    func resizeStopsWithinAFewRowsOfACancel(kernel: FilterKernel) throws {
        try #require(FilterKernel.available.contains(kernel), "this CPU cannot run \(kernel)")
        let image = Fixtures.gradient(width: 600, height: 400)
        let (result, last) = Self.cancelOnFirstProgress { shouldContinue in
            Resampler.resample(
                image, width: 180, height: 120, filter: .lanczos, matrix: .sepia(intensity: 1), kernel: kernel,
                shouldContinue: shouldContinue)
        }
        #expect(result == .some(nil), "a cancelled resample returns no pixels")
        #expect(last == Resampler.rowsPerCheck, "it stopped at the first check after the cancel, of 520 rows")
    }

    @Test func colorMatrixStopsWithinABatchOfACancel() {
        let image = Fixtures.gradient(width: 1024, height: 200)
        let (result, last) = Self.cancelOnFirstProgress { shouldContinue in
            ColorMatrix.sepia(intensity: 1).applied(to: image.pixels, kernel: .best, shouldContinue: shouldContinue)
        }
        #expect(result == .some(nil))
        #expect(last == PixelBatches.size, "it stopped after one batch of \(image.width * image.height) pixels")
    }

    @Test func noirStopsWithinABatchOfACancel() {
        let image = Fixtures.gradient(width: 1024, height: 200)
        let (result, last) = Self.cancelOnFirstProgress { shouldContinue in
            Noir.applied(to: image.pixels, shouldContinue: shouldContinue)
        }
        #expect(result == .some(nil))
        #expect(last == PixelBatches.size)
    }

    @Test func jpegDecodeStopsWithinAFewRowsOfACancel() throws {
        let jpeg = try JPEGEncoder.encode(Fixtures.gradient(width: 320, height: 400), quality: 80)
        let (result, last) = Self.cancelOnFirstProgress { shouldContinue -> String? in
            do throws(ImageCodecError) {
                _ = try ImageDecoder.decode(jpeg, source: "", shouldContinue: shouldContinue)
                return nil
            } catch {
                return error.message
            }
        }
        #expect(result == .some("the decode was stopped"))
        #expect(last == JPEGDecoder.rowsPerCheck, "it stopped at the first check after the cancel, of 400 rows")
    }

    /// The same kernels, never stopped, give the pixels of the plain calls.
    @Test func checksThatContinueChangeNothing() throws {
        let image = Fixtures.noise(width: 300, height: 250, seed: 7)
        let checked = ColorMatrix.sepia(intensity: 0.7).applied(to: image.pixels, kernel: .best) { _ in true }
        #expect(checked == ColorMatrix.sepia(intensity: 0.7).applied(to: image.pixels))
        #expect(Noir.applied(to: image.pixels) { _ in true } == Noir.applied(to: image.pixels))
    }
}
