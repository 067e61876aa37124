import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Reads the small XML documents S3 answers with: each leaf element's text by name, and the `Contents`
/// entries of a listing page (at most 1,000 per page, so a page's memory is bounded).
final class S3XML: NSObject, XMLParserDelegate {
    /// One object of a listing page.
    struct Entry: Sendable, Equatable {
        var key: String
        var etag: String
        var size: Int
    }

    /// The first text of each leaf element outside `Contents`, by name (`Code`, `Message`, `UploadId` …).
    private(set) var values: [String: String] = [:]
    private(set) var entries: [Entry] = []
    private var text = ""
    private var entry: [String: String]?

    /// Parses `data`; `nil` when it is not XML.
    static func parse(_ data: Data) -> S3XML? {
        let reader = S3XML()
        let parser = XMLParser(data: data)
        parser.delegate = reader
        return parser.parse() ? reader : nil
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        text = ""
        if elementName == "Contents" { entry = [:] }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        text += string
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        if elementName == "Contents" {
            if let fields = entry, let key = fields["Key"] {
                entries.append(Entry(key: key, etag: fields["ETag"] ?? "", size: Int(fields["Size"] ?? "") ?? 0))
            }
            entry = nil
        } else if entry != nil {
            entry?[elementName] = text
        } else if values[elementName] == nil {
            values[elementName] = text
        }
        text = ""
    }
}
