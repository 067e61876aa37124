#!/usr/bin/env python3
"""Compiles every Swift example of the documentation against the built modules, as another package would.

The examples are the ```swift blocks of the DocC articles (`Sources/*/*.docc/**/*.md`) and of the `///` doc
comments of public declarations. Each doc comment's example is checked alone; an article's blocks are checked
together, as the files of one module, since an article builds its example up block by block. A block whose top
level holds statements (`let runner = Runner(plan: plan)`) becomes the body of a function, `async` when it awaits;
a block of declarations stays as it is. A block that imports PackageDescription is a manifest and is checked
against PackageDescription. The examples see only `public` declarations: `swiftc -typecheck` runs without the
package name, as a client package's compiler does, and with the flags SwiftPM used for the package's own targets
(module and C header search paths). Errors point at the line of the article or doc comment.

It also checks that every ``Symbol`` link of those articles and doc comments names a public declaration (from the
modules' symbol graphs): a link to a `package` or `internal` one is broken in the published documentation.

Usage: scripts/check-doc-examples.py [--skip-build] [--bin-path DIR] [--sources DIR] [--list]
Exit status: 0 when every example compiles and every link resolves, 1 otherwise, 2 when the modules cannot be found.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Modifiers that may precede the access level of a declaration, and the access levels a client can see.
MODIFIERS = r"(?:@[A-Za-z_]+(?:\([^)]*\))?|final|override|static|class|nonisolated|indirect|required|convenience)"
PUBLIC_DECLARATION = re.compile(r"^\s*(?:" + MODIFIERS + r"\s+)*(?:public|open)\s")
ATTRIBUTE_LINE = re.compile(r"^\s*@[A-Za-z_]+(?:\(.*\))?\s*$")
# The first word of a top-level line that declares something rather than runs something.
DECLARATION_START = re.compile(
    r"^(?:import|public|open|package|internal|fileprivate|private|final|struct|class|enum|protocol|extension|"
    r"actor|func|typealias|@|#if|#else|#endif|}|//|/\*|\*)"
)
IMPORT = re.compile(r"^import\s+(\w+)")
# A DocC symbol link: ``Runner/run()``.
LINK = re.compile(r"``([^`\s]+)``")
TARGET = "x86_64-unknown-linux-gnu" if os.uname().machine == "x86_64" else f"{os.uname().machine}-unknown-linux-gnu"


@dataclass
class Block:
    """One ```swift block: its lines and where its first line is in the documentation."""

    path: Path
    line: int
    lines: list[str]

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    @property
    def is_manifest(self) -> bool:
        return any(line.strip() == "import PackageDescription" for line in self.lines)

    @property
    def is_statements(self) -> bool:
        """Whether some top-level line runs code, so the block must become a function body."""
        return any(
            line.strip() and not line.startswith((" ", "\t")) and not DECLARATION_START.match(line)
            for line in self.lines
        )


@dataclass
class Unit:
    """Blocks compiled together as one module, importing the modules of the folder they document."""

    name: str
    module: str
    blocks: list[Block] = field(default_factory=list)


def fenced_blocks(lines: list[str], path: Path, first_line: int, prefix: str = "") -> list[Block]:
    """The ```swift blocks among `lines`, each line with `prefix` (`///`) and the fence's indentation removed."""
    blocks, current, indent = [], None, 0
    for number, raw in enumerate(lines, start=first_line):
        line = raw.strip()[len(prefix) :] if prefix else raw
        if prefix and line.startswith(" "):
            line = line[1:]
        stripped = line.strip()
        if current is None and stripped.startswith("```swift"):
            current, indent = Block(path, number + 1, []), len(line) - len(line.lstrip())
        elif current is not None and stripped.startswith("```"):
            blocks.append(current)
            current = None
        elif current is not None:
            current.lines.append(line[indent:] if line[:indent].strip() == "" else line.lstrip())
    return blocks


def public_doc_comments(path: Path) -> list[tuple[int, list[str]]]:
    """The `///` comments of the public declarations of one Swift file: the line of each and its lines."""
    lines = path.read_text().split("\n")
    comments, start = [], None
    for index, line in enumerate(lines):
        if line.strip().startswith("///"):
            start = index if start is None else start
            continue
        if start is not None and ATTRIBUTE_LINE.match(line):
            continue
        if start is not None and PUBLIC_DECLARATION.match(line):
            comments.append((start + 1, [line for line in lines[start:index] if line.strip().startswith("///")]))
        start = None
    return comments


def doc_comment_blocks(path: Path) -> list[Block]:
    """The examples in the `///` comments of the public declarations of one Swift file."""
    return sum((fenced_blocks(lines, path, first, prefix="///") for first, lines in public_doc_comments(path)), [])


def symbol_links(sources: Path) -> list[tuple[Path, int, str]]:
    """Every ``Symbol`` link of the articles and of the doc comments of public declarations, with its place."""
    found = []
    for module_folder in sorted(path for path in sources.iterdir() if path.is_dir()):
        for article in sorted(module_folder.glob("*.docc/**/*.md")):
            for number, line in enumerate(article.read_text().split("\n"), start=1):
                found += [(article, number, link) for link in LINK.findall(line)]
        for source in sorted(module_folder.rglob("*.swift")):
            for first, lines in public_doc_comments(source):
                for number, line in enumerate(lines, start=first):
                    found += [(source, number, link) for link in LINK.findall(line)]
    return found


def public_symbols(modules: list[str], flags: list[str], work: Path) -> set[str]:
    """The paths (`Runner/cancel(item:cause:)`) of the public symbols of the modules, from their symbol graphs."""
    paths = set(modules)
    for module in modules:
        output = work / f"symbols-{module}"
        output.mkdir()
        subprocess.run(
            ["swift-symbolgraph-extract", "-module-name", module, "-minimum-access-level", "public"]
            + ["-target", TARGET, "-output-dir", str(output)]
            + flags,
            check=True,
            capture_output=True,
        )
        for graph in output.glob("*.symbols.json"):
            for symbol in json.loads(graph.read_text())["symbols"]:
                paths.add("/".join(symbol["pathComponents"]))
    return paths


def resolves(link: str, symbols: set[str]) -> bool:
    """Whether a link names a public symbol: by its path, or (as DocC resolves it within a type) by its end.

    A component may end in a disambiguation: a kind (`-swift.enum`) or, between overloads that differ only by
    `async` or `throws`, the hash DocC suggests (`run()-4xj1q`).
    """
    components = [
        re.sub(r"-(?:swift\.[a-z.]+|[a-z0-9]{4,6})$", "", part) for part in link.split("#")[0].split("/")
    ]
    components = components[1:] if len(components) > 1 and components[0] in symbols else components
    path = "/".join(components)
    return path in symbols or any(symbol.endswith("/" + path) for symbol in symbols)


def shown(path: Path) -> str:
    """A path as messages show it: relative to the repository when inside it."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def units(sources: Path) -> list[Unit]:
    found = []
    for module_folder in sorted(path for path in sources.iterdir() if path.is_dir()):
        module = module_folder.name
        for article in sorted(module_folder.glob("*.docc/**/*.md")):
            blocks = fenced_blocks(article.read_text().split("\n"), article, 1)
            if blocks:
                found.append(Unit(f"{module}_{article.stem}", module, blocks))
        for source in sorted(module_folder.rglob("*.swift")):
            for number, block in enumerate(doc_comment_blocks(source), start=1):
                found.append(Unit(f"{module}_{source.stem.replace('+', '_')}_{number}", module, [block]))
    return found


def compiler_flags(bin_path: Path) -> list[str]:
    """The search paths SwiftPM gave the package's own compilations (no `-package-name`: clients lack it)."""
    build_description = bin_path.parent.parent / f"{bin_path.name}.yaml"
    if not build_description.exists():
        build_description = bin_path.parent / f"{bin_path.name}.yaml"
    flags, seen = ["-I", str(bin_path / "Modules")], set()
    for line in build_description.read_text().split("\n"):
        line = line.strip()
        if not line.startswith("args: [") or '"-module-name"' not in line:
            continue
        args = json.loads(line[len("args: ") :])
        index = 0
        while index < len(args):
            arg = args[index]
            if arg == "-Xcc" and index + 1 < len(args):
                group = args[index : index + 2]
                if args[index + 1] == "-I" and index + 3 < len(args):
                    group = args[index : index + 4]
                if args[index + 1].startswith(("-fmodule-map-file=", "-I")) and tuple(group) not in seen:
                    seen.add(tuple(group))
                    flags += group
                index += len(group)
                continue
            if arg == "-I" and index + 1 < len(args) and ("-I", args[index + 1]) not in seen:
                seen.add(("-I", args[index + 1]))
                flags += args[index : index + 2]
            index += 1
    return flags


def imports_for(module: str) -> list[str]:
    """What a reader of `module`'s documentation has imported: the module and what its API is built on."""
    return {
        "FlowKit": ["Foundation", "FlowKit"],
        "FlowImaging": ["Foundation", "FlowKit", "FlowImaging"],
        "FlowrunCLI": ["Foundation", "FlowKit", "FlowrunCLI"],
        "FlowKitTesting": ["Foundation", "FlowKit", "FlowKitTesting", "Testing"],
    }.get(module, ["Foundation", "FlowKit"])


def source_file(block: Block, index: int, module: str) -> str:
    """The block as a Swift file whose line directives point back at the documentation."""
    location = f'#sourceLocation(file: "{shown(block.path)}", line: {block.line})'
    lines = block.lines
    imports = [line for line in lines if IMPORT.match(line)]
    needs_testing = any("@Test" in line or "#expect" in line or "#require" in line for line in lines)
    header = [f"import {name}" for name in imports_for(module) + (["Testing"] if needs_testing else [])]
    if not block.is_statements:
        return "\n".join(header + [location] + lines + ["#sourceLocation()", ""])
    # Imports stay at the top level (blanked in the body so line numbers still match).
    body = ["" if IMPORT.match(line) else line for line in lines]
    awaits = any(re.search(r"\bawait\b", line.split("//")[0]) for line in lines)
    signature = f"func docExample{index}() {'async ' if awaits else ''}throws {{"
    return "\n".join(header + imports + [signature, location] + body + ["#sourceLocation()", "}", ""])


def check_manifest(block: Block, folder: Path) -> subprocess.CompletedProcess:
    manifest_api = Path(shutil.which("swiftc")).resolve().parent.parent / "lib/swift/pm/ManifestAPI"
    file = folder / "Package.swift"
    location = f'#sourceLocation(file: "{shown(block.path)}", line: {block.line})'
    file.write_text("\n".join([location] + block.lines + [""]))
    return subprocess.run(
        ["swiftc", "-typecheck", "-swift-version", "6", "-I", str(manifest_api)]
        + ["-package-description-version", "6.0.0", str(file)],
        capture_output=True,
        text=True,
    )


def check(unit: Unit, flags: list[str], work: Path) -> subprocess.CompletedProcess:
    folder = work / unit.name
    folder.mkdir()
    manifests = [block for block in unit.blocks if block.is_manifest]
    code = [block for block in unit.blocks if not block.is_manifest]
    results = [check_manifest(block, folder) for block in manifests]
    files = []
    for index, block in enumerate(code, start=1):
        files.append(folder / f"Example{index}.swift")
        files[-1].write_text(source_file(block, index, unit.module))
    if files:
        results.append(
            subprocess.run(
                ["swiftc", "-typecheck", "-parse-as-library", "-swift-version", "6", "-module-name", unit.name]
                + flags
                + [str(file) for file in files],
                capture_output=True,
                text=True,
                cwd=ROOT,
            )
        )
    failed = [result for result in results if result.returncode != 0]
    output = "".join(result.stdout + result.stderr for result in failed)
    return subprocess.CompletedProcess([], 1 if failed else 0, output, "")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--skip-build", action="store_true", help="use the modules already in .build")
    parser.add_argument("--bin-path", type=Path, help="the build folder holding Modules/ (default: SwiftPM's)")
    parser.add_argument("--sources", type=Path, default=ROOT / "Sources", help="the folder of module folders")
    parser.add_argument("--list", action="store_true", help="list the examples and check nothing")
    options = parser.parse_args()

    found = units(options.sources.resolve())
    if options.list:
        for unit in found:
            for block in unit.blocks:
                kind = "manifest" if block.is_manifest else "statements" if block.is_statements else "declarations"
                print(f"{shown(block.path)}:{block.line}: {unit.name} ({kind})")
        return 0
    if not options.skip_build:
        subprocess.run(["swift", "build"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    bin_path = options.bin_path or Path(
        subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    )
    modules = bin_path / "Modules"
    if not (modules / "FlowKit.swiftmodule").exists():
        print(f"check-doc-examples: no FlowKit module in {bin_path}/Modules: run `swift build` first", file=sys.stderr)
        return 2
    flags = compiler_flags(bin_path) + ["-module-cache-path", str(ROOT / ".build" / "doc-examples-cache")]

    failures = 0
    with tempfile.TemporaryDirectory(prefix="doc-examples-") as work:
        for unit in found:
            result = check(unit, flags, Path(work))
            where = f"{shown(unit.blocks[0].path)}:{unit.blocks[0].line}"
            if result.returncode == 0:
                print(f"PASS {where} ({len(unit.blocks)} block{'s' if len(unit.blocks) > 1 else ''})")
            else:
                failures += 1
                print(f"FAIL {where}")
                print((result.stdout + result.stderr).rstrip())
        print(f"{len(found) - failures} of {len(found)} documentation examples compile")
        # Symbol links: a link to a declaration that is not public is broken in the published documentation.
        folders = options.sources.resolve().iterdir()
        built = [folder.name for folder in folders if (modules / f"{folder.name}.swiftmodule").exists()]
        symbols = public_symbols(built, flags, Path(work))
        links = symbol_links(options.sources.resolve())
        broken = [(path, line, link) for path, line, link in links if not resolves(link, symbols)]
        for path, line, link in broken:
            print(f"{shown(path)}:{line}: error: ``{link}`` names no public declaration")
        print(f"{len(links) - len(broken)} of {len(links)} symbol links name public declarations")
    return 1 if failures or broken else 0


if __name__ == "__main__":
    sys.exit(main())
