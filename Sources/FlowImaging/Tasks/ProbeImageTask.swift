import FlowKit
import Foundation

/// `probe`: an image file's facts as one line of JSON — format, size as shown, orientation, colour profile, alpha,
/// and the EXIF fields photos are sorted by — read from its header and metadata without decoding pixels.
///
/// The output is data: a `catalogue` gather collects the objects of a folder into one JSON or CSV file.
package struct ProbeImageTask: TaskType {
    package init() {}
    package var name: String { "probe" }
    package var summary: String {
        "Reads an image's format, size, orientation, profile, alpha and EXIF (date, camera, lens, exposure, GPS) as "
            + "JSON, without decoding pixels."
    }
    package var consumes: InputRequirement { .oneOf([.data]) }
    package var provides: ProviderKind? { .data }
    /// 2: camera raw files through libraw.
    package var implementationVersion: String { "2 " + CodecVersions.description }

    /// `probe` has no parameters.
    package struct Parameters: TaskParameters {
        package init() {}
    }

    package func makeOperation(_ context: NodeContext) -> FlowOperation { ProbeImageOperation(context: context) }
}

/// The operation of ``ProbeImageTask``.
package final class ProbeImageOperation: FlowOperation, DataProvider, @unchecked Sendable {
    /// The JSON object (one line, ending in a newline), once finished.
    package var providedData: DataPayload? { output(as: DataPayload.self) }

    package override func execute() {
        if finishIfCancelled() { return }
        guard let payload = input((any DataProvider).self)?.providedData else {
            return finish(.failure(context.failure(.invalidInput, "no input data (the upstream node provided none)")))
        }
        do {
            var json = try ImageProbe(payload.bytes).json(source: payload.source)
            json.append(0x0A)
            finish(.success(DataPayload(json, source: payload.source)))
        } catch {
            let source = payload.source.isEmpty ? "the input" : "'\(payload.source)'"
            finish(.failure(context.failure(.invalidInput, "cannot probe \(source): \(error.message)", cause: error)))
        }
    }
}
