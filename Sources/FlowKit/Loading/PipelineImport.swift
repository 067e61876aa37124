/// A task that imports a pipeline file as a group of tasks:
///
/// ```yaml
/// thumbs:
///   uses: pipelines/thumbnail.yaml
///   with: { width: 320 }
///   dependsOn: fetch
/// ```
struct PipelineImport {
    /// The task id, which becomes the group id.
    var id: Located<String>
    /// The pipeline file, relative to the importing file's folder.
    var path: Located<String>
    /// `with:`: values for the pipeline's params, written in the importing file's scope.
    var with: [YAMLPair]
    /// What the pipeline's entry tasks depend on.
    var dependsOn: [Located<String>]
    /// Where its tasks go among the importing file's tasks (the position of the `uses:` task).
    var position = 0
}

extension WorkflowDecoder {
    /// The keys a `uses:` task takes.
    static let importKeys = ["uses", "with", "dependsOn"]

    /// Reads a `uses:` task.
    mutating func decodeImport(id: Located<String>, fields: [YAMLPair]) {
        var path: Located<String>?
        var with: [YAMLPair] = []
        var dependsOn: [Located<String>] = []
        for field in fields {
            switch field.key.scalar ?? "" {
            case "uses": path = reader.string(field.value, "'uses'")
            case "with": with = reader.mapping(field.value, "'with'") ?? []
            case "dependsOn": dependsOn = decodeIDList(field.value, "'dependsOn'")
            default:
                reader.unknownKey(field.key, in: "task '\(id.value)' (uses)", candidates: Self.importKeys)
            }
        }
        guard let path else { return }
        imports.append(PipelineImport(id: id, path: path, with: with, dependsOn: dependsOn))
    }
}
