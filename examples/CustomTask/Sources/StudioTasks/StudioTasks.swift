import FlowImaging
import FlowKit

extension TaskRegistry {
    /// flowrun's standard task types plus this package's.
    public static var studio: TaskRegistry {
        TaskRegistry.standard.adding(VignetteTask(), ChecksumTask())
    }
}
