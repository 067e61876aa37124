internal import CTurboJPEG

/// One TurboJPEG compressor or decompressor; destroyed with the object.
///
/// TurboJPEG reports failures as return codes plus a per-handle message (`tjGetErrorStr2`), so unlike
/// plain libjpeg no `setjmp` is needed and Swift can call it directly.
final class TurboJPEGHandle {
    let raw: tjhandle

    private init(_ raw: tjhandle) { self.raw = raw }

    /// A decompressor.
    static func decompressor() throws(ImageCodecError) -> TurboJPEGHandle {
        guard let raw = tjInitDecompress() else { throw ImageCodecError("cannot start TurboJPEG: \(globalError)") }
        return TurboJPEGHandle(raw)
    }

    /// A compressor.
    static func compressor() throws(ImageCodecError) -> TurboJPEGHandle {
        guard let raw = tjInitCompress() else { throw ImageCodecError("cannot start TurboJPEG: \(globalError)") }
        return TurboJPEGHandle(raw)
    }

    deinit { tjDestroy(raw) }

    /// The message of the last failure on this handle.
    var errorMessage: String { String(cString: tjGetErrorStr2(raw)) }

    /// Whether the last failure was only a warning (the image was still produced).
    var lastFailureIsWarning: Bool { tjGetErrorCode(raw) == Int32(TJERR_WARNING.rawValue) }

    private static var globalError: String { String(cString: tjGetErrorStr2(nil)) }
}
