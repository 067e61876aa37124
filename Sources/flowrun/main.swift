import FlowImaging
import FlowKit
import FlowrunCLI

// Image buffers are megabytes each: keep them in the process for reuse rather than returning them to the
// kernel after every photo (a third of the pipeline's time went to page faults otherwise).
ImageMemory.keepLargeBuffersForReuse()
FlowrunMain.run(registry: .standard)
