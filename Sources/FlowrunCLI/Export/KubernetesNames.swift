/// The naming rules Kubernetes and container registries hold a manifest's names to, checked before export so a
/// bad name fails here, not at `argo submit`.
enum KubernetesNames {
    /// A DNS-1123 subdomain, as a PersistentVolumeClaim's name must be: at most 253 characters of lower-case
    /// letters, digits, '-' and '.', each dot-separated label starting and ending with a letter or digit.
    static func isClaimName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 253 else { return false }
        return name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            guard let first = label.first, let last = label.last else { return false }
            return label.allSatisfy { isLowerAlphanumeric($0) || $0 == "-" } && isLowerAlphanumeric(first)
                && isLowerAlphanumeric(last)
        }
    }

    /// An image reference in the distribution grammar: `[host[:port]/]path[:tag][@digest]`, the path
    /// lower-case components separated by '/', each of letters and digits joined by '.', '_', '__' or dashes.
    static func isImageReference(_ reference: String) -> Bool {
        reference.wholeMatch(of: imageReference) != nil
    }

    private static func isLowerAlphanumeric(_ character: Character) -> Bool {
        character.isASCII && (character.isLowercase || character.isNumber)
    }

    nonisolated(unsafe) private static let imageReference =
        #/(?:(?:[A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9-]*[A-Za-z0-9])(?:\.(?:[A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9-]*[A-Za-z0-9]))*(?::[0-9]+)?/)?[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?/#
}
