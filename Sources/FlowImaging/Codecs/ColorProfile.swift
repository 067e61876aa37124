internal import CLCMS2
import Foundation

/// Colour profiles through Little CMS 2: embedded ICC profiles are converted to sRGB at decode, as sharp does by
/// default, so that `sepia` and `noir` (defined on sRGB) and every output see sRGB.
///
/// A photo from a phone (Display P3) or a camera (Adobe RGB) stores numbers that mean different colours than the
/// same numbers in sRGB; showing them as sRGB dulls or shifts them. The conversion uses the perceptual intent
/// (relative colorimetric for matrix-shaper profiles, which have no perceptual table) and copies alpha.
enum ColorProfile {
    /// An sRGB profile made by lcms2 (IEC 61966-2.1 primaries and curve), embedded when `write` keeps `icc`.
    static let sRGB: [UInt8] = {
        guard let profile = cmsCreate_sRGBProfile() else { return [] }
        defer { cmsCloseProfile(profile) }
        var size: cmsUInt32Number = 0
        guard cmsSaveProfileToMem(profile, nil, &size) != 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        guard cmsSaveProfileToMem(profile, &bytes, &size) != 0 else { return [] }
        return bytes
    }()

    /// Converts an image's pixels from the colour space of an embedded ICC profile to sRGB.
    ///
    /// Profiles that describe sRGB already (their description names it) are left alone, so that the common
    /// sRGB-tagged photo costs nothing and keeps its exact pixels. Profiles that are not RGB (grayscale, CMYK) or that
    /// lcms2 cannot read are ignored, with a warning: the pixels are then taken as sRGB, as before.
    /// - Returns: Whether the pixels are now sRGB because of a conversion or because the profile was sRGB.
    static func convertToSRGB(_ image: inout Image, profile bytes: [UInt8], warn: (String) -> Void) -> Bool {
        guard let source = bytes.withUnsafeBytes({ cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) })
        else {
            warn("ignored a damaged ICC profile (\(bytes.count) bytes); colours taken as sRGB")
            return false
        }
        defer { cmsCloseProfile(source) }
        guard cmsGetColorSpace(source) == cmsSigRgbData else {
            warn("ignored an ICC profile for \(spaceName(cmsGetColorSpace(source))) pixels decoded as RGB")
            return false
        }
        if description(of: source).localizedCaseInsensitiveContains("sRGB") { return true }
        guard let destination = cmsCreate_sRGBProfile() else { return false }
        defer { cmsCloseProfile(destination) }
        guard
            let transform = cmsCreateTransform(
                source, cflow_lcms_type_rgba_8, destination, cflow_lcms_type_rgba_8, cmsUInt32Number(INTENT_PERCEPTUAL),
                cmsUInt32Number(cmsFLAGS_COPY_ALPHA))
        else {
            warn("ignored an ICC profile lcms2 cannot convert from; colours taken as sRGB")
            return false
        }
        defer { cmsDeleteTransform(transform) }
        let count = image.width * image.height
        let converted = [UInt8](unsafeUninitializedCapacity: count * 4) { out, initialized in
            image.pixels.withUnsafeBytes { input in
                cmsDoTransform(transform, input.baseAddress, out.baseAddress, cmsUInt32Number(count))
            }
            initialized = count * 4
        }
        image.pixels = converted
        return true
    }

    /// The description of an ICC profile ("Display P3", "sRGB IEC61966-2.1"), or `nil` when lcms2 cannot read it or
    /// it has none.
    static func name(of bytes: [UInt8]) -> String? {
        guard let profile = bytes.withUnsafeBytes({ cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) })
        else { return nil }
        defer { cmsCloseProfile(profile) }
        let text = description(of: profile)
        return text.isEmpty ? nil : text
    }

    /// The profile's description (tag `desc`), in English if it has several.
    static func description(of profile: cmsHPROFILE) -> String {
        var buffer = [wchar_t](repeating: 0, count: 256)
        let length = cmsGetProfileInfo(profile, cmsInfoDescription, "en", "US", &buffer, cmsUInt32Number(256 * 4))
        guard length > 0 else { return "" }
        let scalars = buffer.prefix { $0 != 0 }.compactMap { Unicode.Scalar(UInt32(bitPattern: $0)) }
        return String(String.UnicodeScalarView(scalars))
    }

    private static func spaceName(_ space: cmsColorSpaceSignature) -> String {
        switch space {
        case cmsSigGrayData: "grayscale"
        case cmsSigCmykData: "CMYK"
        default: "non-RGB"
        }
    }
}
