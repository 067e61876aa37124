/// A task type whose nodes read their dependencies' outputs or not depending on their parameters: a `command`
/// reads them only with `stdin: true`. A node that reads nothing needs only that its dependencies finished, so
/// they are judged on their own records rather than run for it.
package protocol ParameterDependentInput: TaskType {
    /// Whether a node with these parameters reads its dependencies' outputs.
    func readsInput(_ parameters: Parameters) -> Bool
    /// Whether a node with these parameters names the files its dependencies wrote (a `command`'s `${inputs}`):
    /// an up-to-date `write` then serves its recorded file to it.
    func readsInputFiles(_ parameters: Parameters) -> Bool
}

extension ParameterDependentInput {
    package func readsInputFiles(_ parameters: Parameters) -> Bool { false }

    /// ``readsInput(_:)`` of parameters as the plan holds them; `true` while a required one is missing.
    func readsInput(_ values: ParameterValues) -> Bool {
        Parameters(complete: values).map(readsInput) ?? true
    }

    /// ``readsInputFiles(_:)`` of parameters as the plan holds them; `true` while a required one is missing.
    func readsInputFiles(_ values: ParameterValues) -> Bool {
        Parameters(complete: values).map(readsInputFiles) ?? true
    }
}

extension TaskType {
    /// What the store needs of a node's parameters as the plan holds them, from one decoding: the file it writes
    /// (``outputPath(_:)``) and the source it reads (``sourceIdentity(_:directory:cache:)``); both `nil` while a
    /// required parameter is missing.
    package func storeFacts(_ values: ParameterValues, directory: String, cache: CacheSetting?)
        -> (outputPath: String?, source: SourceIdentity?)
    {
        guard let parameters = Parameters(complete: values) else { return (nil, nil) }
        return (outputPath(parameters), sourceIdentity(parameters, directory: directory, cache: cache))
    }
}

/// A task type whose source, when it is a local file, its parameters name without reading anything (`fetch` of a
/// path): validation keeps that path (``ResolvedNodes``), and the store takes the file's identity from it.
package protocol LocalSourceFile: TaskType {
    /// The local file a node with these parameters reads, resolved against `directory`; `nil` when its source is
    /// elsewhere (an http(s) URL, an object in a bucket). Where it is a path, ``TaskType/sourceIdentity(_:directory:cache:)``
    /// must be that file's (``SourceIdentity/file(atPath:byContent:)``).
    func sourceFile(_ parameters: Parameters, directory: String) -> String?
}

extension LocalSourceFile {
    /// ``sourceFile(_:directory:)`` of the typed parameters already read from a node's values, for a caller that
    /// knows this type only as a ``TaskType`` (planning): `nil` for parameters of another type.
    func sourceFile(of parameters: some TaskParameters, directory: String) -> String? {
        (parameters as? Parameters).flatMap { sourceFile($0, directory: directory) }
    }
}
