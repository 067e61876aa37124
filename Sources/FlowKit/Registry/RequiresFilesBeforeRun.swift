/// A task type whose files read (the `reads` of ``TaskType/fileAccess(_:)``) are inputs of the workflow that must
/// be there before it runs — `overlay`'s image: validation reports one that is missing (``RequiredFileValidator``),
/// instead of each node failing for it after everything before it ran.
///
/// `fetch` is not one: a local source that is missing fails its own node, as an unreachable URL does.
package protocol RequiresFilesBeforeRun: TaskType {}
