#!/usr/bin/env python3
"""Writes a flowrun workflow of N tasks: groups of ten, each a chain of seven noops, a sleep fanning out of
the chain, and a fan-in noop that depends on the whole group and on the previous group's fan-in.

Usage: generate.py N OUT.yaml
The in-process benchmark (Tests/FlowKitTests/LoadBenchmarkTests.swift) generates the same shape."""
import sys

def workflow(count: int) -> str:
    lines = ["version: 1", f"name: bench-{count}", "queues:", "  io: { maxConcurrent: 4 }", "tasks:"]
    for index in range(count):
        group, slot = divmod(index, 10)
        name = f"t{group}_{slot}"
        if slot == 0:
            deps = [f"t{group - 1}_9"] if group > 0 else []
        elif slot < 8:
            deps = [f"t{group}_{slot - 1}"]
        elif slot == 8:
            deps = [f"t{group}_3", f"t{group}_5"]
        else:
            deps = [f"t{group}_{s}" for s in range(9)] + ([f"t{group - 1}_9"] if group > 0 else [])
        # The last group may be cut short: keep only dependencies that exist.
        deps = [d for d in deps if int(d[1:].split("_")[0]) * 10 + int(d.split("_")[1]) < count]
        lines.append(f"  {name}:")
        if slot == 8:
            lines += ["    type: sleep", "    duration: 1ms", "    queue: io"]
        else:
            lines.append("    type: noop")
        if deps:
            lines.append(f"    dependsOn: [{', '.join(deps)}]")
    return "\n".join(lines) + "\n"

if __name__ == "__main__":
    count, out = int(sys.argv[1]), sys.argv[2]
    with open(out, "w") as f:
        f.write(workflow(count))
