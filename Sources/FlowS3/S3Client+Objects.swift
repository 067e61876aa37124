import FlowBasics
import Foundation

/// Reading, writing and listing objects.
extension S3Client {
    /// An object's bytes and version.
    package struct Object: Sendable {
        package var bytes: Data
        /// The `ETag` as the server sent it (quoted).
        package var etag: String?
    }

    /// Parts of a multipart upload: 8 MiB (S3's minimum is 5 MiB for all but the last).
    package static let partSize = 8 << 20
    /// Bodies from this size on go up in parts.
    package static let multipartThreshold = 16 << 20

    /// Downloads an object, failing once it exceeds `maxBytes` (checked as it streams in).
    package func get(_ location: S3Location, maxBytes: Int, cancellation: S3Cancellation? = nil) throws(S3Error)
        -> Object
    {
        var call = Call(method: "GET", location: location, maxBytes: maxBytes)
        call.bodyDeadline = nil
        let response = try send(call, cancellation: cancellation)
        return Object(bytes: response.body, etag: response.header("ETag"))
    }

    /// The object's current `ETag`, asked with a HEAD (no body is sent).
    package func etag(of location: S3Location, cancellation: S3Cancellation? = nil) throws(S3Error) -> String? {
        // No limit: a HEAD's Content-Length is the object's size, and no body follows.
        try send(Call(method: "HEAD", location: location, maxBytes: .max), cancellation: cancellation).header("ETag")
    }

    /// Stores `bytes` as the object, atomically: readers see the old object or the new one, never a part.
    /// Large bodies go up in parts, which S3 shows only once the upload is completed (and aborts on failure).
    /// - Returns: The new object's `ETag`.
    @discardableResult
    package func put(
        _ bytes: Data, at location: S3Location, contentType: String? = nil,
        cancellation: S3Cancellation? = nil
    ) throws(S3Error) -> String? {
        var headers: [String: String] = [:]
        if let contentType { headers["content-type"] = contentType }
        guard bytes.count >= Self.multipartThreshold else {
            return try send(
                Call(method: "PUT", location: location, headers: headers, body: bytes), cancellation: cancellation
            ).header("ETag")
        }
        return try putInParts(bytes, at: location, headers: headers, cancellation: cancellation)
    }

    /// Stores `bytes` as the object unless one is there already (content-addressed objects: an existing one holds
    /// the same bytes). Asks the server to refuse an overwrite (`If-None-Match: *`, answered 412 when the object
    /// exists); a server that ignores the condition overwrites it with the same bytes, which is harmless. Large
    /// bodies, which go up in parts, are checked with a HEAD first.
    /// - Returns: Whether the object was written (`false`: it was there).
    @discardableResult
    package func putIfAbsent(_ bytes: Data, at location: S3Location, cancellation: S3Cancellation? = nil)
        throws(S3Error) -> Bool
    {
        guard bytes.count < Self.multipartThreshold else {
            do throws(S3Error) {
                _ = try etag(of: location, cancellation: cancellation)
                return false
            } catch  where error.kind == .notFound {
                try putInParts(bytes, at: location, headers: [:], cancellation: cancellation)
                return true
            }
        }
        do throws(S3Error) {
            _ = try send(
                Call(method: "PUT", location: location, headers: ["if-none-match": "*"], body: bytes),
                cancellation: cancellation)
            return true
        } catch  where error.status == 412 {
            return false
        }
    }

    @discardableResult
    private func putInParts(
        _ bytes: Data, at location: S3Location, headers: [String: String], cancellation: S3Cancellation?
    ) throws(S3Error) -> String? {
        let created = try send(
            Call(method: "POST", location: location, query: [("uploads", "")], headers: headers),
            cancellation: cancellation)
        guard let uploadID = S3XML.parse(created.body)?.values["UploadId"], !uploadID.isEmpty else {
            throw S3Error(
                kind: .service, message: "S3 started no multipart upload for '\(location)' (no UploadId)",
                isTransient: true)
        }
        do throws(S3Error) {
            var parts: [String] = []
            var offset = 0
            while offset < bytes.count {
                let end = min(offset + Self.partSize, bytes.count)
                let answer = try send(
                    Call(
                        method: "PUT", location: location,
                        query: [("partNumber", "\(parts.count + 1)"), ("uploadId", uploadID)],
                        body: bytes.subdata(in: offset..<end)),
                    cancellation: cancellation)
                parts.append(answer.header("ETag") ?? "")
                offset = end
            }
            let list = parts.enumerated().map {
                "<Part><PartNumber>\($0.offset + 1)</PartNumber><ETag>\(MarkupText.escaped($0.element, for: .xml))</ETag></Part>"
            }
            let document = "<CompleteMultipartUpload>\(list.joined())</CompleteMultipartUpload>"
            let completed = try send(
                Call(
                    method: "POST", location: location, query: [("uploadId", uploadID)],
                    body: Data(document.utf8)),
                cancellation: cancellation)
            // A 200 may still carry an error document (S3 reports late failures of a completion that way).
            let answer = S3XML.parse(completed.body)
            if let code = answer?.values["Code"] {
                throw S3Error.answer(
                    status: 200, code: code, serverMessage: answer?.values["Message"], method: "POST",
                    location: location)
            }
            return answer?.values["ETag"] ?? completed.header("ETag")
        } catch {
            // Not under the cancellation that may have ended the upload: the parts are removed either way.
            _ = try? send(
                Call(method: "DELETE", location: location, query: [("uploadId", uploadID)]), cancellation: nil)
            throw error
        }
    }

    /// The most pages one listing may take: 100 million keys at S3's 1,000 a page. A server that pages on past it
    /// (a fresh token each time, pages of few or no keys) fails the listing rather than keeping it going for ever.
    package static let maxListPages = 100_000

    /// Lists the objects under `prefix`, one page (up to 1,000 keys) at a time, handing each page to `page`
    /// before asking for the next, so memory holds one page whatever the number of objects.
    ///
    /// A page is taken only whole (``S3XML/listingPage(_:)``): part of a bucket never passes for all of it. A
    /// continuation token the listing was given before, or more than `maxPages` pages, fails it with the cause.
    /// - Returns: The number of list requests made.
    @discardableResult
    package func list(
        bucket: String, prefix: String, maxPages: Int = S3Client.maxListPages, cancellation: S3Cancellation? = nil,
        page: ([ListedObject]) throws(S3Error) -> Void
    ) throws(S3Error) -> Int {
        var token: String?
        var seen = Set<String>()
        var requests = 0
        let listing = "the listing of 's3://\(bucket)/\(prefix)'"
        repeat {
            guard requests < maxPages else {
                throw S3Error(
                    kind: .service, message: "\(listing) took more than \(maxPages) pages; it was stopped there",
                    isTransient: false)
            }
            var query = [("list-type", "2"), ("prefix", prefix)]
            if let token { query.append(("continuation-token", token)) }
            let call = Call(
                method: "GET", location: S3Location(bucket: bucket, key: ""), query: query, maxBytes: 16 << 20)
            let response = try send(call, cancellation: cancellation)
            requests += 1
            let document: S3XML
            switch S3XML.listingPage(response.body) {
            case .success(let parsed): document = parsed
            case .failure(let fault):
                throw S3Error(
                    kind: .service,
                    message:
                        "\(listing) failed: page \(requests) (GET \(requestText(call))) "
                        + "\(fault.reason)",
                    isTransient: false)
            }
            try page(document.entries)
            token = document.values["IsTruncated"] == "true" ? document.values["NextContinuationToken"] : nil
            if let token, !seen.insert(token).inserted {
                throw S3Error(
                    kind: .service,
                    message:
                        "\(listing) does not end: page \(requests) gave the continuation token '\(token)' that an "
                        + "earlier page gave; it was stopped there",
                    isTransient: false)
            }
        } while token != nil
        return requests
    }

    /// A request's path and query as sent, for a message.
    private func requestText(_ call: Call) -> String {
        guard let request = try? makeRequest(call) else { return "'\(call.location)'" }
        return request.path + (request.url.query.map { "?" + $0 } ?? "")
    }
}
