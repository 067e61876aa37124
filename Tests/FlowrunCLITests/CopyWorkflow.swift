extension Scratch {
    /// Three one-line sources (`in/a.txt`, `in/b.txt`, `in/c.txt`, saying `photo a` …) and `flow.yaml`, which
    /// copies each to `out/`: the smallest workflow whose written files a store keeps. In `folder` (a path in the
    /// scratch folder ending with `/`, or "" for its top).
    func writeCopyWorkflow(in folder: String = "") throws {
        for name in ["a", "b", "c"] { try write("\(folder)in/\(name).txt", "photo \(name)\n") }
        try write(
            "\(folder)flow.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, forEach: { glob: "in/*.txt" }, url: "${item}" }
              save: { type: write, path: "out/${item.stem}.txt", dependsOn: read }

            """)
    }
}
