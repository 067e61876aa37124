import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Reads the small XML documents S3 answers with: each leaf element's text by name, and the `Contents`
/// entries of a listing page (at most 1,000 per page, so a page's memory is bounded).
final class S3XML: NSObject, XMLParserDelegate {
    /// The first text of each leaf element outside `Contents`, by name (`Code`, `Message`, `UploadId` …).
    private(set) var values: [String: String] = [:]
    private(set) var entries: [S3Client.ListedObject] = []
    /// The name of the document's root element.
    private(set) var root: String?
    /// Whether the root element was closed: the document came whole.
    private(set) var isClosed = false
    /// Why an entry of a listing cannot be taken, for the first such entry: a `Contents` without a `Key` or with a
    /// `Size` that is not a number.
    private(set) var badEntry: String?
    private var text = ""
    private var entry: [String: String]?
    private var depth = 0

    /// Parses `data`; `nil` when it is not XML.
    static func parse(_ data: Data) -> S3XML? {
        let reader = S3XML()
        let parser = XMLParser(data: data)
        parser.delegate = reader
        return parser.parse() ? reader : nil
    }

    /// Why a page of a `ListObjectsV2` answer cannot be taken as one, or `nil` when it can: it must be XML, whole,
    /// a `ListBucketResult` whose every entry has a key and a size, and say whether more pages follow
    /// (`IsTruncated`), with the token of the next when they do. Anything less would make part of a bucket
    /// pass for all of it.
    static func listingPage(_ data: Data) -> Result<S3XML, ListingFault> {
        guard let page = parse(data) else { return .failure(ListingFault("is not XML, or not whole")) }
        return page.listingFault.map { .failure(ListingFault($0)) } ?? .success(page)
    }

    /// Why a page of a listing is not one (``listingPage(_:)``).
    struct ListingFault: Error {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }

    private var listingFault: String? {
        let page = self
        guard page.isClosed else { return "ends before its root element is closed" }
        guard page.root == "ListBucketResult" else {
            return "is an <\(page.root ?? "")> document, not a <ListBucketResult>"
        }
        if let bad = page.badEntry { return bad }
        switch page.values["IsTruncated"] {
        case "false": return nil
        case "true":
            guard page.values["NextContinuationToken"]?.isEmpty == false else {
                return "says more pages follow (IsTruncated) but gives no NextContinuationToken"
            }
            return nil
        case let other?: return "gives IsTruncated as '\(other)', neither true nor false"
        case nil: return "has no IsTruncated"
        }
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        text = ""
        if depth == 0 { root = elementName }
        depth += 1
        if elementName == "Contents" { entry = [:] }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        text += string
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        depth -= 1
        if depth == 0 { isClosed = true }
        if elementName == "Contents" {
            let fields = entry ?? [:]
            if let key = fields["Key"], let size = Int(fields["Size"] ?? "") {
                entries.append(
                    S3Client.ListedObject(
                        key: key, etag: fields["ETag"] ?? "", size: size,
                        lastModified: fields["LastModified"].flatMap(S3Client.ListedObject.date)))
            } else if badEntry == nil {
                badEntry =
                    fields["Key"] == nil
                    ? "has entry \(entries.count + 1) with no Key"
                    : "gives the Size of '\(fields["Key"] ?? "")' as '\(fields["Size"] ?? "")', not a number"
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
