import Foundation
import TestSupport
import Testing

/// The files a workflow needs before it runs — a `command`'s program and script, its `inputs:`, an `overlay`'s
/// image — are checked by `validate`, the dry run and the run, through the binary: a misspelt program or a missing
/// script is an error at its `argv` entry, exit 2, nothing run; output paths and files the run makes first are not.
@Suite struct ValidateFilesExistTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
        try executable("bin/python3", "#!/bin/sh\necho python\n")
    }

    /// Writes an executable file.
    func executable(_ name: String, _ text: String) throws {
        try scratch.write(name, text)
        chmod(scratch.path(name), 0o755)
    }

    /// Writes `site.yaml` (`SCRATCH` standing for the scratch folder) and runs flowrun on it.
    func flowrun(_ yaml: String, _ arguments: [String] = ["validate"]) async throws -> Flowrun.Result {
        try scratch.write("site.yaml", yaml.replacingOccurrences(of: "SCRATCH", with: scratch.path))
        return try await Child.runFlowrun(arguments + ["site.yaml"], in: scratch.url)
    }

    /// The exit status and standard error, the scratch folder's path as `SCRATCH`.
    func stderr(_ result: Flowrun.Result) -> String {
        "exit \(result.status)\n" + CILogTests.normalized(result.stderr, scratch: scratch)
    }

    @Test func aMisspeltProgramPathIsAnErrorWithWhatWasMeantAndNothingRuns() async throws {
        let yaml = """
            version: 1
            tasks:
              first: { type: command, argv: [touch, ran.txt] }
              gen: { type: command, argv: [SCRATCH/bin/pyhton3, -V], dependsOn: first }

            """
        let expected = """
            exit 2
            site.yaml:4:32: error: program 'SCRATCH/bin/pyhton3' does not exist (did you mean 'SCRATCH/bin/python3'?)
             4 |   gen: { type: command, argv: [SCRATCH/bin/pyhton3, -V], dependsOn: first }
               |                                ^
                hint: a program named with a '/' is run from that path
            1 error in site.yaml; nothing was run

            """
        for arguments in [["validate"], ["run", "--dry-run"], ["run"]] {
            #expect(stderr(try await flowrun(yaml, arguments)) == expected, "\(arguments)")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.path("ran.txt")))
    }

    @Test func aProgramNotOnPathIsAnError() async throws {
        let result = try await flowrun(
            """
            version: 1
            tasks:
              local: { type: command, argv: [pyhton3, -V], env: { PATH: SCRATCH/bin } }
              installed: { type: command, argv: [flowrun-no-such-program-xyz] }
              found: { type: command, argv: [python3], env: { PATH: "/nowhere:SCRATCH/bin" } }
              perNode: { type: command, argv: [pyhton3], env: { PATH: "${env.HOME}/bin" } }

            """)
        #expect(
            stderr(result) == """
                exit 2
                site.yaml:3:34: error: 'pyhton3' is not found on PATH (did you mean 'python3'?)
                 3 |   local: { type: command, argv: [pyhton3, -V], env: { PATH: SCRATCH/bin } }
                   |                                  ^
                    hint: the task's env sets PATH to 'SCRATCH/bin'
                site.yaml:4:38: error: 'flowrun-no-such-program-xyz' is not found on PATH
                 4 |   installed: { type: command, argv: [flowrun-no-such-program-xyz] }
                   |                                      ^
                    hint: install it, or name it by its path (with a '/')
                2 errors in site.yaml; nothing was run

                """)
    }

    @Test func aMissingScriptIsAnErrorAtItsArgvEntry() async throws {
        try scratch.write("scripts/manifest.py", "print(1)\n")
        try scratch.write("notes.txt", "not run\n")
        let result = try await flowrun(
            """
            version: 1
            tasks:
              viaSh: { type: command, argv: [sh, -e, ./gen.sh, out/list.txt] }
              direct: { type: command, argv: [./gen.sh, "${inputs}"] }
              python: { type: command, argv: [python3, -u, scripts/manfest.py], env: { PATH: SCRATCH/bin } }
              inFolder: { type: command, argv: [bash, run.sh], workingDirectory: scripts }

            """)
        #expect(
            stderr(result) == """
                exit 2
                site.yaml:3:42: error: script './gen.sh' does not exist
                 3 |   viaSh: { type: command, argv: [sh, -e, ./gen.sh, out/list.txt] }
                   |                                          ^
                    hint: relative to the workflow file's folder; looked for 'gen.sh'
                site.yaml:4:35: error: program './gen.sh' does not exist
                 4 |   direct: { type: command, argv: [./gen.sh, "${inputs}"] }
                   |                                   ^
                    hint: relative to the workflow file's folder; looked for 'gen.sh'
                site.yaml:5:48: error: script 'scripts/manfest.py' does not exist (did you mean 'scripts/manifest.py'?)
                 5 |   python: { type: command, argv: [python3, -u, scripts/manfest.py], env: { PATH: SCRATCH/bin } }
                   |                                                ^
                    hint: relative to the workflow file's folder; looked for 'scripts/manfest.py'
                site.yaml:6:43: error: script 'run.sh' does not exist
                 6 |   inFolder: { type: command, argv: [bash, run.sh], workingDirectory: scripts }
                   |                                           ^
                    hint: relative to its workingDirectory; looked for 'scripts/run.sh'
                4 errors in site.yaml; nothing was run

                """)
    }

    @Test func aProgramThatIsNotExecutableOrAFolderIsAnError() async throws {
        try scratch.write("gen.sh", "echo gen\n")
        try scratch.write("tools/readme.txt", "a folder\n")
        let result = try await flowrun(
            """
            version: 1
            tasks:
              gen: { type: command, argv: [./gen.sh] }
              tools: { type: command, argv: [./tools] }
              made: { type: command, argv: [sh, -c, "chmod +x gen.sh"] }
              afterChmod: { type: command, argv: [./gen.sh], dependsOn: made }

            """)
        #expect(
            stderr(result) == """
                exit 2
                site.yaml:3:32: error: program './gen.sh' is not executable
                 3 |   gen: { type: command, argv: [./gen.sh] }
                   |                                ^
                    hint: make it executable (chmod +x), or put its interpreter before it in argv (e.g. [sh, ./gen.sh])
                site.yaml:4:34: error: program './tools' is a folder, not a program
                 4 |   tools: { type: command, argv: [./tools] }
                   |                                  ^
                    hint: relative to the workflow file's folder; looked for 'tools'
                2 errors in site.yaml; nothing was run

                """)
    }

    @Test func aMissingScriptInAPipelineUsedTwiceIsOneError() async throws {
        try scratch.write("p/gen.yaml", "version: 1\ntasks:\n  gen: { type: command, argv: [sh, ./gen.sh] }\n")
        let result = try await flowrun(
            """
            version: 1
            tasks:
              one: { uses: p/gen.yaml }
              two: { uses: p/gen.yaml }

            """)
        #expect(
            stderr(result) == """
                exit 2
                p/gen.yaml:3:36: error: script './gen.sh' does not exist
                 3 |   gen: { type: command, argv: [sh, ./gen.sh] }
                   |                                    ^
                    hint: relative to the workflow file's folder; looked for 'gen.sh'
                site.yaml:3:16: note: in the pipeline imported here
                site.yaml:4:16: note: in the pipeline imported here
                1 error in site.yaml; nothing was run

                """)
    }

    /// A graph needs no program, and an exported job checks its files on the machine that runs it.
    @Test func theGraphAndAnExportDoNotCheckFiles() async throws {
        let yaml = """
            version: 1
            tasks:
              gen: { type: command, argv: [sh, ./gen.sh] }

            """
        #expect(try await flowrun(yaml).status == 2)
        for arguments in [["graph"], ["export", "slurm", "--shards", "1"]] {
            let result = try await flowrun(yaml, arguments)
            #expect(result.status == 0 && result.stderr.isEmpty, "\(arguments): \(result.stderr)")
        }
    }

    @Test func presentScriptsAndOutputPathsPass() async throws {
        try scratch.write("gen.sh", "echo gen \"$@\"\n")
        try executable("run.sh", "#!/bin/sh\necho run\n")
        try scratch.write("a.txt", "a\n")
        let result = try await flowrun(
            """
            version: 1
            tasks:
              viaSh: { type: command, argv: [sh, ./gen.sh, -o, out/x.txt] }
              direct: { type: command, argv: [./run.sh, out/y.sh, new/z.py] }
              copy: { type: command, argv: [cp, a.txt, out/b.sh] }
              inline: { type: command, argv: [sh, -c, "cat > made.sh", made.sh] }
              fromStdin: { type: command, argv: [bash, -s, out/d.sh] }
              module: { type: command, argv: [python3, -m, json.tool, out/c.py], env: { PATH: SCRATCH/bin } }
              perItem: { type: command, forEach: [a, b], argv: [sh, "scripts/${item}.sh"] }

            """)
        #expect(stderr(result) == "exit 0\n")
    }

    @Test func aScriptTheRunMakesFirstIsNotAnError() async throws {
        try scratch.write("template.txt", "echo written\n")
        let result = try await flowrun(
            """
            version: 1
            tasks:
              build: { type: command, argv: [sh, -c, "echo 'echo made' > made.sh"] }
              use: { type: command, argv: [sh, made.sh], inputs: [made.sh], dependsOn: build }
              show: { type: write, path: out/made.txt, dependsOn: use }
              template: { type: fetch, url: template.txt }
              writeScript: { type: write, path: written.sh, dependsOn: template }
              runWritten: { type: command, argv: [sh, written.sh], dependsOn: writeScript }
              showWritten: { type: write, path: out/written.txt, dependsOn: runWritten }

            """, ["run", "--no-progress"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try String(contentsOfFile: scratch.path("out/made.txt"), encoding: .utf8) == "made\n")
        #expect(try String(contentsOfFile: scratch.path("out/written.txt"), encoding: .utf8) == "written\n")
    }

    @Test func aMissingInputsFileIsAnErrorAndAnEmptyGlobAWarning() async throws {
        try scratch.write("data/one.txt", "one\n")
        let result = try await flowrun(
            """
            version: 1
            tasks:
              index: { type: command, argv: [cat, data/one.txt], inputs: [data/on.txt, "missing/*.txt", "data/*.txt"] }

            """)
        #expect(
            stderr(result) == """
                exit 2
                site.yaml:3:63: error: 'inputs' file 'data/on.txt' does not exist (did you mean 'data/one.txt'?)
                 3 |   index: { type: command, argv: [cat, data/one.txt], inputs: [data/on.txt, "missing/*.txt", "data/*.txt"] }
                   |                                                               ^
                    hint: paths are relative to the workflow file's folder; looked for 'data/on.txt'
                site.yaml:3:76: warning: 'inputs' pattern 'missing/*.txt' matches no file
                 3 |   index: { type: command, argv: [cat, data/one.txt], inputs: [data/on.txt, "missing/*.txt", "data/*.txt"] }
                   |                                                                            ^
                    hint: the files it names are part of the command's key; none is
                1 error in site.yaml; nothing was run

                """)
    }

    @Test func aMissingOverlayFileIsAnError() async throws {
        try scratch.write("photo.jpg", "not decoded by validate")
        try scratch.write("logo.png", "not decoded by validate")
        let result = try await flowrun(
            """
            version: 1
            tasks:
              read: { type: fetch, url: photo.jpg }
              decode: { type: decode, dependsOn: read }
              mark: { type: overlay, path: log.png, dependsOn: decode }
              save: { type: write, path: out/photo.jpg, dependsOn: mark }

            """)
        #expect(
            stderr(result) == """
                exit 2
                site.yaml:5:32: error: overlay file 'log.png' does not exist (did you mean 'logo.png'?)
                 5 |   mark: { type: overlay, path: log.png, dependsOn: decode }
                   |                                ^
                    hint: paths are relative to the workflow file's folder; looked for 'log.png'
                1 error in site.yaml; nothing was run

                """)
    }
}
