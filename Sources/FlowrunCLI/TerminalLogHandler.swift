import Logging

/// The log handler of the terminal: swift-log's stream handler on stderr, with the control characters of every
/// message and metadata value made visible (``Terminal/visible(_:)``), since they carry node ids, item names and
/// failure text.
struct TerminalLogHandler: LogHandler {
    private var stream: StreamLogHandler

    init(label: String) { stream = StreamLogHandler.standardError(label: label) }

    var logLevel: Logger.Level {
        get { stream.logLevel }
        set { stream.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { stream.metadata }
        set { stream.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { stream[metadataKey: key] }
        set { stream[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        var visible = event
        visible.message = "\(Terminal.visible(event.message.description))"
        visible.metadata = event.metadata?.mapValues { .string(Terminal.visible($0.description)) }
        stream.log(event: visible)
    }
}
