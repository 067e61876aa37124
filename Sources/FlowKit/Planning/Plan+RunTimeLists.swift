extension Plan {
    /// An error at each list made at run time (`forEach: { from: TASK }`), for what cannot take one yet: an export
    /// to a cluster writes every job before anything runs, so it has no list to write jobs for.
    /// - Parameter what: What refuses them, as the message names it (`export slurm`).
    package func runTimeListsRefused(by what: String) -> Diagnostics {
        var diagnostics = Diagnostics()
        for task in workflow.tasks {
            guard let producer = task.forEach?.producer else { continue }
            diagnostics.error(
                "\(what) cannot take task '\(task.id.value)': its list is made at run time by '\(producer.value)', and the jobs are written before anything runs",
                at: producer.location,
                hint: "run the workflow with flowrun itself, or make the list before exporting ({ file: LIST })")
        }
        return diagnostics
    }
}
