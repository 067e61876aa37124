/// The `argv` entries of a `command` that name the code it runs, which must be there before it runs: the program
/// when it is a path (`./gen.sh`, `/usr/bin/python3`), and the script an interpreter is given (`sh ./gen.sh`,
/// `python3 scripts/manifest.py`).
///
/// These are among the files ``CommandCode`` keys the command by (every entry naming an existing file of the
/// workflow's folder tree), but narrower: a later entry may be a file the program makes (`-o out/x.txt`), so only
/// the one the interpreter's convention makes the script is required — its first argument that is not an option,
/// when no option gives the code inline (`sh -c '…'`, `python3 -m module`, `perl -e '…'`) and it looks like a file
/// (has a `/` or a script's extension).
enum CommandScript {
    /// The interpreters known, by file name, with the short options that mean no script file follows: the code
    /// given inline (`-c`, `-e`, `-m`), or read from standard input (a shell's `-s`).
    static let interpreters: [String: Set<Character>] = [
        "sh": ["c", "s"], "bash": ["c", "s"], "dash": ["c", "s"], "ksh": ["c", "s"], "zsh": ["c", "s"],
        "python": ["c", "m"], "node": ["e", "p"], "ruby": ["e"], "perl": ["e", "E"], "Rscript": ["e"],
    ]

    /// The long options that give the code inline (`node --eval '…'`).
    static let inlineLongOptions: Set<Substring> = ["--eval", "--print"]

    /// The extensions of scripts, for an entry without a `/` (`python3 gen.py`).
    static let extensions: Set<String> = ["sh", "bash", "zsh", "py", "js", "mjs", "cjs", "ts", "rb", "pl", "R", "r"]

    /// The inline-code options of the interpreter `program` names (by its file name: `/bin/sh` is `sh`,
    /// `python3.12` is `python`), or `nil` when it is no interpreter known.
    static func inlineOptions(of program: String) -> Set<Character>? {
        let name = program.split(separator: "/").last.map(String.init) ?? program
        if let options = interpreters[name] { return options }
        if name.hasPrefix("python"), name.dropFirst(6).allSatisfy({ $0.isNumber || $0 == "." }) {
            return interpreters["python"]
        }
        return nil
    }

    /// The position in `argv` of the script its interpreter runs, if it names one that looks like a file.
    static func scriptPosition(in argv: [String]) -> Int? {
        guard let program = argv.first, let inline = inlineOptions(of: program) else { return nil }
        var position = 1
        while position < argv.count {
            let entry = argv[position]
            if entry == "--" {
                position += 1
                break
            }
            if entry.hasPrefix("--") {
                let name = entry.split(separator: "=", maxSplits: 1).first ?? ""
                if inlineLongOptions.contains(name) { return nil }
            } else if entry.hasPrefix("-"), entry.count > 1 {
                // A cluster of short options (`-ec`, `-lne`): one of them may give the code inline.
                if entry.dropFirst().contains(where: inline.contains) { return nil }
            } else {
                break
            }
            position += 1
        }
        guard position < argv.count, looksLikeFile(argv[position]) else { return nil }
        return position
    }

    /// Whether an entry reads as a file's path: literal, not `-` (standard input), with a `/` or a script's
    /// extension.
    static func looksLikeFile(_ entry: String) -> Bool {
        guard !entry.isEmpty, entry != "-", !entry.contains("${") else { return false }
        return entry.contains("/") || extensions.contains(FilePaths.fileExtension(of: entry))
    }
}
