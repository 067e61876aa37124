import FlowKit

extension TaskRegistry {
    /// The engine's built-in task types plus the image tasks: `decode`, `sepia`, `noir`, `resize`, `write`,
    /// `probe`, `catalogue`.
    public static var standard: TaskRegistry {
        TaskRegistry.builtIn.adding(
            DecodeTask(), SepiaTask(), NoirTask(), ResizeTask(), WriteTask(), ProbeImageTask(), CatalogueTask())
    }
}
