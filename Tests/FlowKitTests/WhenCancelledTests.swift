import FlowKit
import Foundation
import Synchronization
import Testing

/// ``FlowOperation/whenCancelled(_:)``, the one way I/O operations stop the work they started: a cancel that
/// arrives while the work is being set up stops it at once, a later one stops it once, and a finished operation
/// never calls it.
@Suite struct WhenCancelledTests {
    /// An operation whose `execute()` is a closure and whose "work" counts how often it was stopped.
    final class WorkOperation: FlowOperation, @unchecked Sendable {
        let stops = Mutex(0)
        private let script: @Sendable (WorkOperation) -> Void

        init(_ script: @escaping @Sendable (WorkOperation) -> Void) {
            self.script = script
            super.init(context: NodeContext(nodeID: "work", typeName: "work"))
        }

        override func execute() { script(self) }

        func startWork() { whenCancelled { [self] in stops.withLock { $0 += 1 } } }
        var stopCount: Int { stops.withLock { $0 } }
    }

    @Test func aCancelWhileTheWorkIsBeingSetUpStopsItAtOnce() {
        let stoppedDuringSetUp = Mutex<Int?>(nil)
        let operation = WorkOperation { operation in
            operation.cancel()  // arrives before the work is registered: nothing to stop yet
            operation.startWork()
            stoppedDuringSetUp.withLock { $0 = operation.stopCount }
            operation.finish(.cancelled)
        }
        operation.start()
        #expect(stoppedDuringSetUp.withLock { $0 } == 1)
        #expect(operation.stopCount == 1)
        #expect(operation.isFinished)
    }

    @Test func aLaterCancelStopsTheWorkOnce() {
        let operation = WorkOperation { $0.startWork() }
        operation.start()
        #expect(operation.isExecuting)
        #expect(operation.stopCount == 0)
        operation.cancel(reason: .timedOut(.seconds(1)))
        operation.cancel()
        #expect(operation.stopCount == 1)
        operation.finish(.cancelled)
        #expect(operation.stopCount == 1)
    }

    @Test func aFinishedOperationNeverStopsItsWork() {
        let operation = WorkOperation { operation in
            operation.startWork()
            operation.finish(.success(nil))
            operation.startWork()  // registered too late: the operation has ended
        }
        operation.start()
        operation.cancel()
        #expect(operation.stopCount == 0)
        #expect(operation.isFinished)
    }
}
