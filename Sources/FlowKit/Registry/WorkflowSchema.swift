import FlowBasics
import OrderedCollections

/// The JSON Schema (draft 2020-12) of the workflow format for a registry, so editors using
/// yaml-language-server validate and complete workflow files, task types' parameters included.
package enum WorkflowSchema {
    /// The schema as pretty-printed JSON, keys in ascending order.
    package static func json(for registry: TaskRegistry) -> [UInt8] {
        schema(for: registry).sortingKeys().json(pretty: true)
    }

    static let identifierPattern = "^[A-Za-z_][A-Za-z0-9_-]*$"

    /// The schema as a JSON object.
    package static func schema(for registry: TaskRegistry) -> JSONValue {
        let reference: JSONValue = [
            "type": "string", "pattern": "^\\$\\{[^}]+\\}$",
            "description": "A ${params.NAME}, ${item…} or ${env.NAME} reference.",
        ]
        let duration: JSONValue = [
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
                    "propertyNames": ["pattern": .string(identifierPattern)],
                    "additionalProperties": ["type": ["string", "number", "integer", "boolean", "array", "null"]],
                ],
                "queues": [
                    "type": "object", "description": "Named operation queues; `default` always exists.",
                    "propertyNames": ["pattern": .string(identifierPattern)],
                    "additionalProperties": [
                        "type": ["object", "null"], "additionalProperties": false,
                        "properties": [
                            "maxConcurrent": [
                                "type": "integer", "minimum": 1,
                                "description": "How many nodes run at once; 1 is a serial queue.",
                            ],
                            "qos": [
                                "enum": JSONValue(QualityOfServiceName.allCases.map(\.rawValue)),
                                "description": "Quality of service of the queue's threads.",
                            ],
                        ],
                    ],
                ],
                "tasks": [
                    "type": "object", "description": "The tasks, by id.", "minProperties": 1,
                    "propertyNames": ["pattern": .string(identifierPattern)],
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

    private static func commonProperties() -> OrderedDictionary<String, JSONValue> {
        OrderedDictionary(uniqueKeysWithValues: TaskKey.allCases.map { ($0.rawValue, $0.schema) })
    }

    private static func task(_ registry: TaskRegistry) -> JSONValue {
        let cases: [JSONValue] = registry.all.map { type in
            var properties = commonProperties()
            var required = ["type"]
            for parameter in type.parameters {
                properties[parameter.name] = parameterSchema(parameter)
                if parameter.isRequired { required.append(parameter.name) }
            }
            var then: JSONValue = [
                "properties": .map(properties), "required": JSONValue(required), "additionalProperties": false,
                "description": .string(type.summary),
            ]
            let exclusions = exclusivePairs(type.constraints)
            if !exclusions.isEmpty { then["allOf"] = .list(exclusions.map { ["not": ["required": JSONValue($0)]] }) }
            return ["if": ["properties": ["type": ["const": .string(type.name)]], "required": ["type"]], "then": then]
        }
        let typed: JSONValue = [
            "required": ["type"],
            "properties": ["type": ["enum": JSONValue(registry.names), "description": "The task type."]],
            "allOf": .list(cases),
        ]
        let imported: JSONValue = [
            "additionalProperties": false,
            "properties": [
                "uses": [
                    "type": "string", "description": "A pipeline file whose tasks run as a group named by this id.",
                ],
                "with": ["type": "object", "description": "Values for the pipeline's params."],
                "dependsOn": commonProperties()[TaskKey.dependsOn.rawValue] ?? [:],
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
    private static func defaults(_ registry: TaskRegistry) -> JSONValue {
        let common = commonProperties()
        var properties = common.filter { TaskKey.defaultable.contains($0.key) }
        for type in registry.all {
            properties[type.name] = [
                "type": "object", "additionalProperties": false,
                "properties": .map(
                    OrderedDictionary(uniqueKeysWithValues: type.parameters.map { ($0.name, parameterSchema($0)) })),
                "description": .string("Defaults for the parameters of every '\(type.name)' task."),
            ]
        }
        return [
            "type": "object", "additionalProperties": false, "properties": .map(properties),
            "description": "Values every task gets unless it sets them: task keys, and parameters by task type.",
        ]
    }

    private static func parameterSchema(_ parameter: ParameterSpec) -> JSONValue {
        var schema: JSONValue
        switch parameter.type {
        case .string: schema = ["type": ["string", "number", "boolean"]]
        case .bool: schema = ["anyOf": [["type": "boolean"], ["$ref": "#/$defs/reference"]]]
        case .number, .integer:
            var number: JSONValue = ["type": parameter.type == .integer ? "integer" : "number"]
            if let range = parameter.range {
                number["minimum"] = .number(range.lowerBound)
                if range.upperBound < Double(Int.max) { number["maximum"] = .number(range.upperBound) }
            }
            schema = ["anyOf": [number, ["$ref": "#/$defs/reference"]]]
        case .duration:
            schema = [
                "anyOf": [
                    ["$ref": "#/$defs/duration"], ["type": "number", "minimum": 0], ["$ref": "#/$defs/reference"],
                ]
            ]
        case .oneOf(let options): schema = ["anyOf": [["enum": JSONValue(options)], ["$ref": "#/$defs/reference"]]]
        case .boolOr(let options):
            schema = ["anyOf": [["type": "boolean"], ["enum": JSONValue(options)], ["$ref": "#/$defs/reference"]]]
        case .stringList:
            schema = [
                "anyOf": [["type": "array", "items": ["type": ["string", "number", "boolean"]]], ["type": "string"]]
            ]
        case .stringMap:
            schema = ["type": "object", "additionalProperties": ["type": ["string", "number", "boolean"]]]
        case .any: schema = [:]
        }
        schema["description"] = .string(parameter.summary)
        if let defaultValue = parameter.defaultValue { schema["default"] = defaultValue.json }
        return schema
    }
}
