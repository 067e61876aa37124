import FlowKit

extension ProviderKind {
    /// Decoded RGBA8 pixels (``ImageProvider``).
    public static let image = ProviderKind("image", valueType: Image.self)
}
