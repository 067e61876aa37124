import FlowKit
import Foundation

/// The submit script's text.
struct SlurmScript {
    let workflow: ExportedWorkflow
    let shards: Int
    let flowrun: String
    /// What each job gets as `--state-dir`: a folder every node sees, or a bucket.
    let stateDirectory: String
    /// Where the jobs' logs and the gather's report go: the state folder, or with a bucket `.flowrun` beside the
    /// workflow.
    let logDirectory: String
    /// `--partition=…`, `--time=…`, `--mem=…` as given.
    let sbatchOptions: [String]

    func render() -> String {
        let name = Self.quoted(workflow.plan.workflow.name)
        let cpus = workflow.cpus
        let common =
            [
                "--parsable", "--job-name=" + Self.quoted("flowrun-" + workflow.plan.workflow.name),
                "--chdir=" + Self.quoted(workflow.folder), "--cpus-per-task=\(cpus)",
            ] + sbatchOptions.map(Self.quoted)
        let flowrunArguments =
            [Self.quoted(workflow.absolutePath)] + workflow.overrides.map { "--param " + Self.quoted($0) }
        let runOptions = "--state-dir \(Self.quoted(stateDirectory)) --no-progress --max-concurrent \(cpus)"
        let log = Self.quoted(logDirectory + "/slurm/")
        let report = Self.quoted(
            logDirectory + "/" + URL(fileURLWithPath: workflow.absolutePath).lastPathComponent + ".report.json")
        let shared =
            BucketStore.isBucket(stateDirectory)
            ? "The workflow and its inputs must be at the same path on every node; the store is in "
                + Self.quoted(stateDirectory) + "."
            : "The workflow, its inputs and " + Self.quoted(stateDirectory)
                + " must be on a filesystem every node sees at the same path."
        let lists = workflow.split.hasRunTimeLists
        let header = """
            #!/usr/bin/env bash
            # Submits \(name) (\(Self.quoted(workflow.absolutePath))) to Slurm\(lists ? ": its lists job, then" : " in") \
            \(shards) shard\(shards == 1 ? "" : "s"), then its gather job. Made by `flowrun export slurm`.
            # \(shared)
            # Rerun some shards: SHARDS=2,4 bash THIS_FILE. Another flowrun binary: FLOWRUN=/path/to/flowrun.
            set -euo pipefail
            if [[ -z "${FLOWRUN:-}" ]]; then FLOWRUN=\(Self.quoted(flowrun)); fi
            export FLOWRUN
            mkdir -p \(log)


            """
        // The shards split the lists the lists step recorded: they start after it, and every shard replays them.
        let listsStep = """
            # The lists step: the tasks that make lists at run time run once; every shard replays their lists from the
            # store and takes the items whose keys name it.
            lists=$(sbatch \(common.joined(separator: " ")) --output=\(log)'%x-%j.out' <<'LISTS'
            #!/usr/bin/env bash
            exec "$FLOWRUN" \(flowrunArguments.joined(separator: " ")) --lists \(runOptions)
            LISTS
            )
            lists=${lists%%;*}


            """
        let afterLists = lists ? " --dependency=\"afterok:$lists\" --kill-on-invalid-dep=yes" : ""
        return header + (lists ? listsStep : "") + """
            # One array task per shard; `sbatch --parsable` prints "jobid" or "jobid;cluster".
            shards=$(sbatch \(common.joined(separator: " "))\(afterLists) --array="${SHARDS:-1-\(shards)}" \\
                --output=\(log)'%x-%A_%a.out' <<'SHARD'
            #!/usr/bin/env bash
            exec "$FLOWRUN" \(flowrunArguments.joined(separator: " ")) --shard "$SLURM_ARRAY_TASK_ID/\(shards)" \(runOptions)
            SHARD
            )
            shards=${shards%%;*}

            # The gather phase once every shard succeeded; cancelled, not left pending, if one fails.
            gather=$(sbatch \(common.joined(separator: " ")) --dependency="afterok:$shards" --kill-on-invalid-dep=yes \\
                --output=\(log)'%x-%j.out' <<'GATHER'
            #!/usr/bin/env bash
            exec "$FLOWRUN" \(flowrunArguments.joined(separator: " ")) --gather \(runOptions) --report \(report)
            GATHER
            )
            gather=${gather%%;*}

            \(lists ? "echo \"lists: job $lists\"\n" : "")echo "shards: job $shards (array ${SHARDS:-1-\(shards)})"
            echo "gather: job $gather (after every shard succeeded)"

            """
    }

    /// A word for bash: as is when it holds only safe characters, else quoted so that it is one word wherever
    /// it lands — a command, a comment, a heredoc body. Words with a control character (a newline above all) are
    /// written as `$'…'` with the character escaped, so no word spans two lines: a comment cannot end early and
    /// no line of a heredoc body can be its delimiter.
    static func quoted(_ word: String) -> String {
        let safe =
            !word.isEmpty && word.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "/._-+=:,@%".contains($0)) }
        if safe { return word }
        guard word.unicodeScalars.contains(where: isControl) else {
            return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }
        var out = "$'"
        for scalar in word.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "'": out += "\\'"
            // Bytes, not `\\u`: bash decodes `\\u` by the locale, `\\x` as the byte it names.
            case _ where isControl(scalar): out += String(scalar).utf8.map { String(format: "\\x%02X", $0) }.joined()
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "'"
    }

    /// C0 and C1 controls and DEL: what may end a line or a comment, or move a terminal's cursor.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
