import FlowKit

extension TaskRegistry {
    /// The engine's built-in task types plus the image tasks: `decode`, `sepia`, `noir`, `resize`, `write`,
    /// `probe`, `catalogue`, and the operations `crop`, `rotate`, `flip`, `blur`, `sharpen`, `overlay`.
    public static var standard: TaskRegistry {
        TaskRegistry.builtIn.adding(
            DecodeTask(), SepiaTask(), NoirTask(), ResizeTask(), WriteTask(), ProbeImageTask(), CatalogueTask(),
            CropTask(), RotateTask(), FlipTask(), BlurTask(), SharpenTask(), OverlayTask())
    }
}
