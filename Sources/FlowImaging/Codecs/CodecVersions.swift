internal import CHEIF
internal import CLCMS2
internal import CLibRaw
internal import CPNG
internal import CTIFF
internal import CTurboJPEG
internal import CWebP

/// The codec libraries' versions, part of the implementation version of the tasks that decode or encode: a new
/// libjpeg-turbo, libpng, libwebp, Little CMS, libtiff, libheif or libraw may give other pixels or bytes for the
/// same input, so results of the old one are not reused.
enum CodecVersions {
    static let description: String = {
        let jpeg = Int(cflow_turbojpeg_version)
        let png = String(cString: png_get_libpng_ver(nil))
        let webp = Int(WebPGetDecoderVersion())
        let lcms = Int(cmsGetEncodedCMMversion())
        return "libjpeg-turbo \(jpeg / 1_000_000).\(jpeg / 1000 % 1000).\(jpeg % 1000) libpng \(png) "
            + "libwebp \(webp >> 16).\(webp >> 8 & 0xFF).\(webp & 0xFF) lcms2 \(lcms / 1000).\(lcms / 10 % 100) "
            + "libtiff \(TIFFLIB_VERSION) libheif \(String(cString: heif_get_version())) "
            + "libraw \(libraw)"
    }()

    /// libraw's version, `0.20.2` (without the "-Release" of `libraw_version()`).
    static let libraw: String = {
        let version = Int(libraw_versionNumber())
        return "\(version >> 16).\(version >> 8 & 0xFF).\(version & 0xFF)"
    }()
}
