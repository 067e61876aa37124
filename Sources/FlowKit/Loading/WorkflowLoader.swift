import Foundation
import OrderedCollections

/// Loads a workflow file and turns it into a ``Plan``: parse, decode, validate, expand — reporting every
/// problem found on the way, never only the first.
///
/// ```swift
/// let loader = WorkflowLoader(registry: .builtIn, paramOverrides: [("outDir", "out")])
/// let result = loader.plan(path: "workflows/hello.yaml")
/// if let plan = result.plan {
///     print(Runner(plan: plan).run().exitCode)
/// } else {
///     print(DiagnosticRenderer(sources: result.sources).render(result.diagnostics))
/// }
/// ```
public struct WorkflowLoader: Sendable {
    /// The outcome of loading: a plan or the diagnostics, plus what was loaded for rendering.
    public struct LoadResult: Sendable {
        /// The plan, when the workflow is valid.
        public var plan: Plan?
        /// Every diagnostic, warnings included.
        public var diagnostics: Diagnostics
        /// The text of the file, by path, for source snippets.
        public var sources: [String: String]

        /// Creates a result.
        package init(plan: Plan?, diagnostics: Diagnostics, sources: [String: String]) {
            self.plan = plan
            self.diagnostics = diagnostics
            self.sources = sources
        }
    }

    /// The task types workflows may use.
    public var registry: TaskRegistry
    /// `--param k=v` overrides, in order.
    public var paramOverrides: [(name: String, value: String)]
    /// The environment for `${env.NAME}`.
    public var environment: [String: String]
    /// Bounds on YAML aliases and nesting.
    public var limits: YAMLDocument.Limits
    /// `--target` task and node ids: when given, the plan holds only them and what they need.
    public var targets: [String] = []
    /// `--strict`: a `forEach` glob that matches no files is an error, not a warning.
    public var strict = false
    /// Whether the files that must be there before a run are checked — a `command`'s program and script, its
    /// `inputs:`, an `overlay`'s image; `false` for a workflow exported to run elsewhere, where they are checked.
    public var checksFiles = true
    /// Other files the run reads before it starts (`--env-file`s): like the workflow's own files, no node may
    /// write them.
    public var alsoReads: [String] = []

    /// Creates a loader.
    public init(
        registry: TaskRegistry, paramOverrides: [(name: String, value: String)] = [],
        environment: [String: String] = ProcessInfo.processInfo.environment, limits: YAMLDocument.Limits = .init()
    ) {
        self.registry = registry
        self.paramOverrides = paramOverrides
        self.environment = environment
        self.limits = limits
    }

    /// Reads and plans a workflow file.
    public func plan(path: String) -> LoadResult {
        switch DefinitionFile.read(path) {
        case .success(let bytes):
            return plan(bytes: bytes, path: path)
        case .failure(let failure):
            var diagnostics = Diagnostics()
            diagnostics.error("cannot read workflow '\(path)': \(failure.reason)", at: nil)
            return LoadResult(plan: nil, diagnostics: diagnostics, sources: [:])
        }
    }

    /// Plans a workflow from its bytes; `path` names it in diagnostics and anchors relative paths.
    public func plan(bytes: [UInt8], path: String) -> LoadResult {
        var diagnostics = Diagnostics()
        var sources = [path: String(decoding: bytes, as: UTF8.self)]
        var aliases: [AliasUse] = []
        guard
            let root = YAMLDocument.parse(
                bytes, path: path, limits: limits, diagnostics: &diagnostics, aliases: &aliases)
        else {
            if !diagnostics.hasErrors {
                diagnostics.error(
                    "the workflow is empty", at: SourceLocation(path: path, line: 1, column: 1),
                    hint: "start with 'version: 1' and a 'tasks:' map")
            }
            return LoadResult(plan: nil, diagnostics: diagnostics, sources: sources)
        }
        var decoder = WorkflowDecoder(registry: registry, path: path, directory: FilePaths.folder(of: path))
        var (workflow, decodeDiagnostics) = decoder.decode(root)
        diagnostics.append(contentsOf: decodeDiagnostics)
        // The workflow's own params first, so `with:` values see overrides; a group's (`thumbs.width`) exist
        // only once the pipelines are imported.
        applyOverrides(to: &workflow, grouped: false, diagnostics: &diagnostics)
        var importer = PipelineImporter(registry: registry, limits: limits, environment: environment)
        importer.expand(&workflow, imports: decoder.imports, chain: [.init(path: FilePaths.normalised(path, in: "."))])
        diagnostics.append(contentsOf: importer.diagnostics)
        sources.merge(importer.sources) { first, _ in first }
        applyOverrides(to: &workflow, grouped: true, diagnostics: &diagnostics)
        workflow.definitionFiles = sources.keys.sorted() + alsoReads

        var plan = ValidationPass.plan(
            workflow, registry: registry, environment: environment, strict: strict,
            checksFiles: checksFiles, diagnostics: &diagnostics)
        if !targets.isEmpty, !diagnostics.hasErrors {
            plan = plan?.restricted(to: targets, diagnostics: &diagnostics)
        }
        // Problems found in an imported pipeline after importing (a bad edge, a bad value) say how it was reached.
        for (file, chains) in importer.importChains {
            diagnostics = PipelineImporter.annotated(
                diagnostics, path: file, chains: chains, groups: workflow.groups.map(\.id))
        }
        diagnostics = AliasUse.annotated(diagnostics, uses: aliases + importer.aliasUses)
        return LoadResult(plan: diagnostics.hasErrors ? nil : plan, diagnostics: diagnostics, sources: sources)
    }

    private func applyOverrides(to workflow: inout Workflow, grouped: Bool, diagnostics: inout Diagnostics) {
        for (name, text) in paramOverrides where name.contains(".") == grouped {
            guard let current = workflow.params[name] else {
                diagnostics.error(
                    "unknown parameter '\(name)' in --param \(name)=\(text)", at: nil,
                    suggestion: Suggestion.closest(to: name, in: workflow.params.keys),
                    hint: workflow.params.isEmpty
                        ? "this workflow declares no params"
                        : "declared params: \(workflow.params.keys.joined(separator: ", "))")
                continue
            }
            // Typed like a plain YAML scalar, so --param intensity=0.5 is a number.
            workflow.params[name] = Located(Value(plainScalar: text), at: current.location)
        }
    }
}
