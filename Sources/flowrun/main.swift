import FlowImaging
import FlowKit
import FlowrunCLI

FlowrunMain.run(registry: .builtIn)
