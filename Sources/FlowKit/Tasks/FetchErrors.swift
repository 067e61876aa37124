import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Messages for failed HTTP fetches: what went wrong, in words, with the URL.
package enum FetchErrors {
    /// The failure for a transfer error from URLSession.
    static func failure(for error: any Error, url: URL, idleTimeout: Duration, context: NodeContext) -> NodeFailure {
        let target = url.absoluteString
        guard let urlError = error as? URLError else {
            return context.failure(.network, "could not fetch \(target): \(error.localizedDescription)", cause: error)
        }
        let (code, cause): (NodeFailure.Code, String) =
            switch urlError.code {
            case .cannotConnectToHost: (.network, "connection refused")
            case .networkConnectionLost: (.network, "the connection was lost (reset or closed by the server)")
            case .cannotFindHost, .dnsLookupFailed: (.network, "could not resolve host '\(url.host ?? "")'")
            case .notConnectedToInternet: (.network, "not connected to a network")
            case .timedOut: (.network, "no data from the server for \(idleTimeout.shortDescription) (idleTimeout)")
            case .badServerResponse, .cannotParseResponse: (.network, "the server sent a malformed response")
            case .httpTooManyRedirects: (.http, "too many redirects")
            case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
                .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected:
                (.network, "TLS failed: \(urlError.localizedDescription)")
            case .unsupportedURL: (.unsupported, "unsupported URL")
            // libcurl refuses more than 100 KB of response headers with "Out of memory" (CURLE_OUT_OF_MEMORY).
            case _ where urlError.localizedDescription == "Out of memory":
                (.http, "the response headers are too large (libcurl reads at most 100 KB of them)")
            // libcurl's "transfer closed with N bytes remaining to read" arrives as an unknown error.
            case _ where urlError.localizedDescription.contains("remaining to read"):
                (.network, "the body was truncated: \(urlError.localizedDescription)")
            default: (.network, urlError.localizedDescription)
            }
        return context.failure(
            code, "could not fetch \(target): \(cause) (URLError \(urlError.code.rawValue))", cause: error)
    }

    /// The standard reason phrase of an HTTP status ("Not Found"); corelibs does not expose the server's.
    package static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 203: "Non-Authoritative Information"
        case 204: "No Content"
        case 206: "Partial Content"
        case 300: "Multiple Choices"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 402: "Payment Required"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 407: "Proxy Authentication Required"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 416: "Range Not Satisfiable"
        case 418: "I'm a teapot"
        case 421: "Misdirected Request"
        case 422: "Unprocessable Content"
        case 425: "Too Early"
        case 426: "Upgrade Required"
        case 428: "Precondition Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 451: "Unavailable For Legal Reasons"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        case 507: "Insufficient Storage"
        case 508: "Loop Detected"
        case 511: "Network Authentication Required"
        default: HTTPURLResponse.localizedString(forStatusCode: status).capitalized
        }
    }
}
