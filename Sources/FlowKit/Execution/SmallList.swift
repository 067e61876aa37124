/// A list that keeps its first element inline and only allocates from the second on.
///
/// The runner's per-completion lists — the nodes a completion admits, an admitted node's finished
/// dependencies, the outputs it releases — and an operation's finished dependencies hold one element in the
/// common case (a chain, a pipeline), and an array would allocate and free a buffer for it every time.
struct SmallList<Element>: Sequence {
    private var first: Element?
    private var rest: [Element] = []

    init() {}

    var isEmpty: Bool { first == nil }

    var count: Int { first == nil ? 0 : 1 + rest.count }

    mutating func append(_ element: Element) {
        if first == nil {
            first = element
        } else {
            rest.append(element)
        }
    }

    /// Removes the first element that matches.
    /// - Returns: Whether one did.
    mutating func removeFirst(where matches: (Element) -> Bool) -> Bool {
        if let element = first, matches(element) {
            first = rest.isEmpty ? nil : rest.removeFirst()
            return true
        }
        guard let index = rest.firstIndex(where: matches) else { return false }
        rest.remove(at: index)
        return true
    }

    mutating func removeAll() {
        first = nil
        rest = []
    }

    func makeIterator() -> Iterator {
        Iterator(first: first, rest: rest.makeIterator())
    }

    struct Iterator: IteratorProtocol {
        fileprivate var first: Element?
        fileprivate var rest: IndexingIterator<[Element]>

        mutating func next() -> Element? {
            if let element = first {
                first = nil
                return element
            }
            return rest.next()
        }
    }
}

extension SmallList: Sendable where Element: Sendable {}
