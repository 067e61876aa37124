internal import CJPEG
internal import CPNG

/// The codec libraries' versions, part of the implementation version of the tasks that decode or encode: a new
/// libjpeg-turbo or libpng may give other pixels or bytes for the same input, so results of the old one are not
/// reused.
enum CodecVersions {
    static let description: String = {
        let jpeg = Int(cflow_turbojpeg_version)
        let png = String(cString: png_get_libpng_ver(nil))
        return "libjpeg-turbo \(jpeg / 1_000_000).\(jpeg / 1000 % 1000).\(jpeg % 1000) libpng \(png)"
    }()
}
