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
