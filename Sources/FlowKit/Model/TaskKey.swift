import FlowBasics

/// The keys every task has, whatever its type: the one table the decoder's unknown-key check, `defaults:`, the
/// JSON Schema and the registry's check of task types' parameter names all read.
package enum TaskKey: String, CaseIterable, Sendable {
    case type, dependsOn, queue, priority, retries, retryOn, timeout, continueOnError, runIf, input, forEach, gather
    case cache

    /// The key's names, in the table's order.
    package static let names = allCases.map(\.rawValue)

    /// The keys `defaults:` may set: those that mean the same for every task.
    package static let defaultable = allCases.filter(\.isDefaultable).map(\.rawValue)

    /// Whether `defaults:` may set the key for every task; the others differ from task to task.
    var isDefaultable: Bool {
        switch self {
        case .queue, .priority, .retries, .retryOn, .timeout, .continueOnError, .runIf, .cache: true
        case .type, .dependsOn, .input, .forEach, .gather: false
        }
    }

    /// What the key means, as the schema describes it.
    var help: String {
        switch self {
        case .type: "The task type; `flowrun tasks` lists them."
        case .dependsOn: "Tasks that must succeed first: an id or a list of ids."
        case .queue: "The queue to run on (default: `default`)."
        case .priority: "Priority within the queue."
        case .retries: "Re-run a failed attempt up to N more times, with backoff."
        case .retryOn: "Which failures are retried (default: transient): any, transient, network, timeout, status: N."
        case .timeout: "Time limit of each attempt."
        case .continueOnError: "A failure counts as success for the exit code; dependents are still skipped."
        case .runIf: "When the task runs: success (default), always, allDone, anyFailed."
        case .input: "Which dependency to read when several provide the consumed kind."
        case .forEach:
            "Run once per item: a list, a ${params.NAME} list, { list: …, key: FIELD }, { file: PATH }, "
                + "{ glob: PATTERNS, exclude: PATTERNS, ignoreCase: BOOL } or { from: TASK, key: FIELD } (the JSON "
                + "array or lines a task outputs when it runs)."
        case .gather: "Run once, after every item of the expanded dependencies."
        case .cache:
            "Reuse results from earlier runs: true (also for `command`), false (always run), or content "
                + "(as true, and a source file is identified by its hash, not its size and time)."
        }
    }

    /// The key's JSON Schema, described by ``help``.
    var schema: JSONValue {
        var schema = shape
        schema["description"] = .string(help)
        return schema
    }

    /// The values the key takes, as JSON Schema.
    private var shape: JSONValue {
        let status: JSONValue = ["type": "integer", "minimum": 100, "maximum": 599]
        switch self {
        case .type, .queue, .input: return ["type": "string"]
        case .dependsOn: return ["oneOf": [["type": "string"], ["type": "array", "items": ["type": "string"]]]]
        case .priority: return ["enum": JSONValue(PriorityName.allCases.map(\.rawValue))]
        case .retries: return ["type": "integer", "minimum": 0, "maximum": 100]
        case .retryOn:
            let statusRule: JSONValue = [
                "type": "object", "additionalProperties": false, "required": ["status"],
                "properties": ["status": ["anyOf": [status, ["type": "array", "items": status]]]],
            ]
            return ["type": "array", "items": ["anyOf": [["enum": JSONValue(RetryRule.keywords)], statusRule]]]
        case .timeout: return ["$ref": "#/$defs/duration"]
        case .continueOnError, .gather: return ["type": "boolean"]
        case .runIf: return ["enum": JSONValue(RunCondition.allCases.map(\.rawValue))]
        case .forEach:
            return [
                "oneOf": [
                    ["type": "array"],
                    ["$ref": "#/$defs/reference"],
                    [
                        "type": "object", "additionalProperties": false, "required": ["list"],
                        "properties": [
                            "list": ["oneOf": [["type": "array"], ["$ref": "#/$defs/reference"]]],
                            "key": ["type": "string", "description": "The field of map items that is each one's key."],
                        ],
                    ],
                    [
                        "type": "object", "additionalProperties": false, "required": ["file"],
                        "properties": ["file": ["type": "string"]],
                    ],
                    [
                        "type": "object", "additionalProperties": false, "required": ["glob"],
                        "properties": [
                            "glob": Self.globPatterns, "exclude": Self.globPatterns,
                            "ignoreCase": [
                                "type": "boolean",
                                "description": "Letters after each pattern's folder match either case.",
                            ],
                        ],
                    ],
                    [
                        "type": "object", "additionalProperties": false, "required": ["from"],
                        "properties": [
                            "from": [
                                "type": "string",
                                "description": "The task whose output (a JSON array, or lines) is the list.",
                            ],
                            "key": ["type": "string", "description": "The field of map items that is each one's key."],
                        ],
                    ],
                ]
            ]
        case .cache: return ["enum": [true, false, "content"]]
        }
    }

    /// One glob pattern or a list of them.
    private static var globPatterns: JSONValue {
        [
            "oneOf": [["type": "string"], ["type": "array", "items": ["type": "string"], "minItems": 1]],
            "description": "'**' any depth, '*', '?', '[a-z]', '{jpg,png}'; relative to the workflow file.",
        ]
    }
}
