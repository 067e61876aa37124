import Foundation

/// The most pixels one image may have, checked before any buffer for it is allocated: by every decoder once it has
/// read the header's size, and by every task that makes an image once it knows the output's size.
///
/// A header of a few dozen bytes may claim any size (a WebP of 16383×16383 is 1 GiB of RGBA), and a parameter may ask
/// for any (`resize` to 65535×65535 is 17 GB): without a budget each costs the memory before the decode or the kernel
/// fails. The default, ``defaultMaximum`` (2²⁷ pixels, 512 MiB of RGBA: a 150-megapixel medium-format photo fits),
/// is overridden for the whole process with the environment variable `FLOWRUN_MAX_PIXELS` (a whole number of pixels).
///
/// New image tasks call ``check(width:height:making:)`` with the size they are about to allocate, or override
/// ``ImageOperation/outputSize(for:)`` so that their base checks it.
package enum PixelBudget {
    /// The budget when `FLOWRUN_MAX_PIXELS` is not set.
    package static let defaultMaximum = 1 << 27
    /// The environment variable that overrides ``defaultMaximum``.
    package static let environmentVariable = "FLOWRUN_MAX_PIXELS"

    /// The budget in force: `FLOWRUN_MAX_PIXELS` when set, else ``defaultMaximum``; an error naming the variable when
    /// it is set to something other than a positive whole number.
    package static let maximum: Result<Int, ImageCodecError> = maximum(
        environment: ProcessInfo.processInfo.environment[environmentVariable])

    /// The budget a value of `FLOWRUN_MAX_PIXELS` sets (`nil`: not set).
    static func maximum(environment value: String?) -> Result<Int, ImageCodecError> {
        guard let value else { return .success(defaultMaximum) }
        guard let pixels = Int(value.trimmingCharacters(in: .whitespaces)), pixels > 0 else {
            return .failure(
                ImageCodecError("\(environmentVariable)='\(value)' is not a positive whole number of pixels"))
        }
        return .success(pixels)
    }

    /// Throws unless an image of `width` × `height` fits the budget (and each side is positive).
    /// - Parameters:
    ///   - what: What is being made, for the message: "a TIFF", "the resized image".
    package static func check(width: Int, height: Int, making what: String) throws(ImageCodecError) {
        try check(width: width, height: height, making: what, maximum: maximum.get())
    }

    /// ``check(width:height:making:)`` against a given budget.
    static func check(width: Int, height: Int, making what: String, maximum: Int) throws(ImageCodecError) {
        guard width > 0, height > 0 else { throw ImageCodecError("\(what) has no pixels (\(width)×\(height))") }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= maximum else {
            throw ImageCodecError(
                "\(what) would be \(width)×\(height) pixels, over the budget of \(maximum) "
                    + "(raise it with \(environmentVariable) if the machine has the memory)")
        }
    }
}
