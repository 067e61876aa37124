import Foundation

/// The JSON Schema (draft 2020-12) of the workflow format for a registry, so editors using
/// yaml-language-server validate and complete workflow files, task types' parameters included.
package enum WorkflowSchema {
    /// The schema as pretty-printed JSON.
    package static func json(for registry: TaskRegistry) throws -> Data {
        try JSONSerialization.data(withJSONObject: schema(for: registry), options: [.prettyPrinted, .sortedKeys])
    }

    static let identifierPattern = "^[A-Za-z_][A-Za-z0-9_-]*$"

    /// The schema as a JSON object.
    package static func schema(for registry: TaskRegistry) -> [String: Any] {
        let reference: [String: Any] = [
            "type": "string", "pattern": "^\\$\\{[^}]+\\}$",
            "description": "A ${params.NAME}, ${item…} or ${env.NAME} reference.",
        ]
        let duration: [String: Any] = [
            "type": "string", "pattern": "^[0-9]+(\\.[0-9]+)?(ms|s|m|h)$",
            "description": "A duration: 250ms, 20s, 2m, 1h.",
        ]
        return [
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "flowrun workflow",
            "description": "A declarative workflow: tasks, their dependsOn edges, queues and params.",
            "type": "object",
            "additionalProperties": false,
            "required": ["version", "tasks"],
            "patternProperties": [
                "^x-": ["description": "Ignored: a place for YAML anchors (x-defaults: &defaults …)."]
            ],
            "properties": [
                "defaults": defaults(registry),
                "version": ["const": 1, "description": "The format version; always 1."],
                "name": ["type": "string", "description": "The workflow's name (default: the file name)."],
                "description": ["type": "string", "description": "What the workflow does."],
                "failFast": ["type": "boolean", "description": "Cancel everything at the first failure."],
                "params": [
                    "type": "object", "description": "Defaults for ${params.NAME}; --param key=value overrides.",
                    "propertyNames": ["pattern": identifierPattern],
                    "additionalProperties": ["type": ["string", "number", "integer", "boolean", "array", "null"]],
                ],
                "queues": [
                    "type": "object", "description": "Named operation queues; `default` always exists.",
                    "propertyNames": ["pattern": identifierPattern],
                    "additionalProperties": [
                        "type": ["object", "null"], "additionalProperties": false,
                        "properties": [
                            "maxConcurrent": [
                                "type": "integer", "minimum": 1,
                                "description": "How many nodes run at once; 1 is a serial queue.",
                            ],
                            "qos": [
                                "enum": QualityOfServiceName.allCases.map(\.rawValue),
                                "description": "Quality of service of the queue's threads.",
                            ],
                        ],
                    ],
                ],
                "tasks": [
                    "type": "object", "description": "The tasks, by id.", "minProperties": 1,
                    "propertyNames": ["pattern": identifierPattern],
                    "additionalProperties": ["$ref": "#/$defs/task"],
                ],
            ],
            "$defs": [
                "reference": reference,
                "duration": duration,
                "task": task(registry),
            ],
        ]
    }

    private static func commonProperties() -> [String: Any] {
        Dictionary(uniqueKeysWithValues: TaskKey.allCases.map { ($0.rawValue, $0.schema) })
    }

    private static func task(_ registry: TaskRegistry) -> [String: Any] {
        let cases: [[String: Any]] = registry.all.map { type in
            var properties = commonProperties()
            var required: [String] = ["type"]
            for parameter in type.parameters {
                properties[parameter.name] = parameterSchema(parameter)
                if parameter.isRequired { required.append(parameter.name) }
            }
            var then: [String: Any] = [
                "properties": properties, "required": required, "additionalProperties": false,
                "description": type.summary,
            ]
            let exclusions = exclusivePairs(type.constraints)
            if !exclusions.isEmpty { then["allOf"] = exclusions.map { ["not": ["required": $0]] } }
            return ["if": ["properties": ["type": ["const": type.name]], "required": ["type"]], "then": then]
        }
        let typed: [String: Any] = [
            "required": ["type"],
            "properties": ["type": ["enum": registry.names, "description": "The task type."]],
            "allOf": cases,
        ]
        let imported: [String: Any] = [
            "additionalProperties": false,
            "properties": [
                "uses": [
                    "type": "string", "description": "A pipeline file whose tasks run as a group named by this id.",
                ],
                "with": ["type": "object", "description": "Values for the pipeline's params."],
                "dependsOn": commonProperties()["dependsOn"] ?? [:],
            ],
        ]
        return ["type": "object", "if": ["required": ["uses"]], "then": imported, "else": typed]
    }

    /// The pairs of parameters a task may not both set. Only these of the rules are in the schema: the others may
    /// be met by `defaults:`, which the schema of one task cannot see.
    private static func exclusivePairs(_ constraints: [ParameterConstraint]) -> [[String]] {
        constraints.flatMap { constraint -> [[String]] in
            guard case .mutuallyExclusive(let keys) = constraint else { return [] }
            return keys.indices.flatMap { first in keys[(first + 1)...].map { [keys[first], $0] } }
        }
    }

    /// `defaults:`: the task keys that may have a default, and each task type's parameters.
    private static func defaults(_ registry: TaskRegistry) -> [String: Any] {
        let common = commonProperties()
        var properties = common.filter { TaskKey.defaultable.contains($0.key) }
        for type in registry.all {
            properties[type.name] = [
                "type": "object", "additionalProperties": false,
                "properties": Dictionary(uniqueKeysWithValues: type.parameters.map { ($0.name, parameterSchema($0)) }),
                "description": "Defaults for the parameters of every '\(type.name)' task.",
            ]
        }
        return [
            "type": "object", "additionalProperties": false, "properties": properties,
            "description": "Values every task gets unless it sets them: task keys, and parameters by task type.",
        ]
    }

    private static func parameterSchema(_ parameter: ParameterSpec) -> [String: Any] {
        var schema: [String: Any]
        switch parameter.type {
        case .string: schema = ["type": ["string", "number", "boolean"]]
        case .bool: schema = ["anyOf": [["type": "boolean"], ["$ref": "#/$defs/reference"]]]
        case .number, .integer:
            var number: [String: Any] = ["type": parameter.type == .integer ? "integer" : "number"]
            if let range = parameter.range {
                number["minimum"] = range.lowerBound
                if range.upperBound < Double(Int.max) { number["maximum"] = range.upperBound }
            }
            schema = ["anyOf": [number, ["$ref": "#/$defs/reference"]]]
        case .duration:
            schema = [
                "anyOf": [
                    ["$ref": "#/$defs/duration"], ["type": "number", "minimum": 0], ["$ref": "#/$defs/reference"],
                ]
            ]
        case .oneOf(let options): schema = ["anyOf": [["enum": options], ["$ref": "#/$defs/reference"]]]
        case .stringList:
            schema = [
                "anyOf": [["type": "array", "items": ["type": ["string", "number", "boolean"]]], ["type": "string"]]
            ]
        case .stringMap:
            schema = ["type": "object", "additionalProperties": ["type": ["string", "number", "boolean"]]]
        case .any: schema = [:]
        }
        schema["description"] = parameter.summary
        if let defaultValue = parameter.defaultValue { schema["default"] = defaultValue.jsonObject }
        return schema
    }
}
