/// A task type whose nodes do nothing and make nothing — no output, no file, no side effect — so the store has
/// nothing to keep of them: `noop`.
///
/// The store neither journals nor (unless a node it keeps depends on one) keys such a node. It is up to date when
/// the store holds results of the workflow and nothing it waits for runs, and runs otherwise (``RunCause/waitsFor(node:)``),
/// which costs nothing: rerunning it has no effect. A graph of trivial nodes then costs the store no work per node.
package protocol StatelessTask: TaskType {}
