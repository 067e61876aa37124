import FlowKit
import Foundation
import Testing

@Suite struct RunClockTests {
    @Test func theSystemClockReadsTheSameTimeInBothForms() {
        let clock = SystemClock()
        let before = clock.now.seconds
        let seconds = clock.nowSeconds
        let after = clock.now.seconds
        #expect(before <= seconds && seconds <= after)
        #expect(before >= 0 && after < 1)
    }

    @Test func theSystemClockMovesWithRealTime() {
        let clock = SystemClock()
        let start = clock.nowSeconds
        Thread.sleep(forTimeInterval: 0.02)
        let elapsed = clock.nowSeconds - start
        #expect(elapsed >= 0.02 && elapsed < 2)
    }

    @Test func durationsConvertToSeconds() {
        #expect(Duration.milliseconds(1500).seconds == 1.5)
        #expect(Duration.milliseconds(250).seconds == 0.25)
        #expect(Duration.nanoseconds(1).seconds == 1e-9)
        #expect(Duration.seconds(-2).seconds == -2)
        #expect(Duration.zero.seconds == 0)
    }
}
