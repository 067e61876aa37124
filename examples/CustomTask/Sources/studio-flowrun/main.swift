import FlowImaging
import FlowrunCLI
import StudioTasks

// Everything `flowrun` does — run, validate, graph, tasks, schema — with two more task types.
FlowrunMain.run(registry: .studio)
