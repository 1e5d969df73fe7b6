"""Write every copy of the editor contract from its one source, contract/workspace-agent.json.

The contract (method and command names, payload shapes, event kinds and their fields,
settings with their defaults and scopes) was kept by hand in four places that drifted.
Now the JSON file is the source, in the spirit of the LSP metaModel that lsprotocol is
generated from, and this script (stdlib only) writes:

- server/workspace_agent/contract.py: constants, Literal aliases, TypedDicts and a typed
  `emit` per event kind, so mypy checks the server's dicts (nothing runs per message);
- vscode-extension/src/contract.ts: the same names and types, plus runtime checks the
  extension applies to a payload as it arrives (notifications, requests' and commands'
  answers);
- the tables of docs/protocol.md between `<!-- BEGIN GENERATED name -->` markers (the
  prose around them stays hand-written);
- `contributes.configuration.properties` of vscode-extension/package.json;
- server/workspace_agent/lsp/methods.py: the custom requests the language server answers,
  each with its params' parser and the name of its (hand-written) handler, which
  create_server registers from;
- vscode-extension/src/lspExt.ts: every request, notification and command as a typed
  object (vscode-languageserver-protocol's RequestType, NotificationType) the extension
  sends and handles through;
- the `METHOD_NAMES` list of vscode-extension/eslint.config.mjs (between
  `// BEGIN GENERATED` markers): the names only lspExt.ts may import.

`python scripts/generate_contract.py` (make generate) rewrites them; `--check` (make
check-generated, part of make lint) rewrites nothing and fails naming each stale file,
as pygls's check_generated_code_is_uptodate.py does.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SOURCE = Path("contract/workspace-agent.json")
PYTHON_OUT = Path("server/workspace_agent/contract.py")
TS_OUT = Path("vscode-extension/src/contract.ts")
DOC = Path("docs/protocol.md")
PACKAGE_JSON = Path("vscode-extension/package.json")
METHODS_OUT = Path("server/workspace_agent/lsp/methods.py")
LSP_EXT_OUT = Path("vscode-extension/src/lspExt.ts")
ESLINT = Path("vscode-extension/eslint.config.mjs")
FIX = "make generate (python scripts/generate_contract.py)"

BASE_TYPES = {"string", "integer", "number", "boolean", "null", "unknown", "object", "true"}
PY_BASE = {
    "string": "str",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
    "null": "None",
    "unknown": "Any",
    "object": "dict[str, Any]",
    "true": "Literal[True]",
}
TS_BASE = {
    "string": "string",
    "integer": "number",
    "number": "number",
    "boolean": "boolean",
    "null": "null",
    "unknown": "unknown",
    "object": "Record<string, unknown>",
    "true": "true",
}


class ContractError(ValueError):
    """The source does not hold together (an unknown type, a name given twice, ...)."""


# -- Types: "string | null", "ChangedFile[]", "RevertItemArgs | RevertLastRunArgs" ----------


@dataclass(frozen=True)
class Atom:
    name: str
    """A base type (BASE_TYPES) or the name of an enumeration, structure or alias."""
    array: int = 0
    """How many `[]` follow it."""


def parse_type(text: str) -> tuple[Atom, ...]:
    atoms = []
    for part in text.split("|"):
        match = re.fullmatch(r"\s*(\w+)((?:\[\])*)\s*", part)
        if not match:
            raise ContractError(f"cannot read the type {text!r}")
        atoms.append(Atom(match[1], len(match[2]) // 2))
    return tuple(atoms)


def py_type(text: str) -> str:
    out = []
    for atom in parse_type(text):
        name = PY_BASE.get(atom.name, atom.name)
        for _ in range(atom.array):
            name = f"list[{name}]"
        out.append(name)
    return " | ".join(out)


def ts_type(text: str) -> str:
    out = []
    for atom in parse_type(text):
        name = TS_BASE.get(atom.name, atom.name)
        out.append(name + "[]" * atom.array)
    return " | ".join(out)


# -- The source ---------------------------------------------------------------------------


@dataclass
class Contract:
    data: dict[str, Any]

    @property
    def requests(self) -> list[dict[str, Any]]:
        return list(self.data["requests"])

    @property
    def notifications(self) -> list[dict[str, Any]]:
        return list(self.data["notifications"])

    @property
    def commands(self) -> list[dict[str, Any]]:
        return list(self.data["commands"])

    @property
    def capabilities(self) -> list[dict[str, Any]]:
        return list(self.data["capabilities"])

    @property
    def enumerations(self) -> list[dict[str, Any]]:
        return list(self.data["enumerations"])

    @property
    def structures(self) -> list[dict[str, Any]]:
        return list(self.data["structures"])

    @property
    def aliases(self) -> list[dict[str, Any]]:
        return list(self.data.get("aliases", []))

    @property
    def events(self) -> list[dict[str, Any]]:
        return list(self.data["events"]["kinds"])

    @property
    def history_entry(self) -> dict[str, Any]:
        return dict(self.data["events"]["historyEntry"])

    @property
    def settings(self) -> list[dict[str, Any]]:
        return list(self.data["settings"])

    @property
    def workspace_rules(self) -> dict[str, dict[str, Any]]:
        return {rule["rule"]: rule for rule in self.data["workspaceRules"]}

    def structure(self, name: str) -> dict[str, Any]:
        return next(s for s in self.structures if s["name"] == name)

    def all_properties(self, name: str) -> list[dict[str, Any]]:
        """A structure's properties, its base's first."""
        structure = self.structure(name)
        base = structure.get("extends")
        return [*(self.all_properties(base) if base else []), *structure["properties"]]


def optional(prop: dict[str, Any], side: str) -> bool:
    """Whether a property may be absent: on the server's side ("python", "doc") when it
    is optional; on the client's ("ts") also when older servers leave it out."""
    return bool(prop.get("optional") or (side == "ts" and prop.get("olderServersOmit")))


def event_fields(event: dict[str, Any], wire: str) -> list[dict[str, Any]]:
    """The fields an event has in the core ("core": what `emit` takes) or on the LSP wire
    ("lsp": what workspaceAgent/event carries)."""
    other = "lsp" if wire == "core" else "core"
    return [f for f in event["fields"] if f.get("in") != other]


def load(root: Path) -> Contract:
    try:
        data = json.loads((root / SOURCE).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ContractError(f"{SOURCE}: not JSON: {exc}") from exc
    contract = Contract(data)
    validate(contract)
    return contract


def validate(contract: Contract) -> None:
    """What a JSON Schema cannot say: names are unique and every type is declared."""
    problems: list[str] = []
    named: dict[str, str] = {}
    for kind, entries in (
        ("enumeration", contract.enumerations),
        ("structure", contract.structures),
        ("alias", contract.aliases),
    ):
        for entry in entries:
            if entry["name"] in named or entry["name"] in BASE_TYPES:
                problems.append(f"{kind} {entry['name']} is declared twice")
            named[entry["name"]] = kind
    named["AgentEvent"] = "events"
    named[contract.history_entry["name"]] = "events"

    def check(text: str, where: str) -> None:
        try:
            atoms = parse_type(text)
        except ContractError as exc:
            problems.append(f"{where}: {exc}")
            return
        for atom in atoms:
            if atom.name not in BASE_TYPES and atom.name not in named:
                problems.append(f"{where}: unknown type {atom.name!r}")

    for structure in contract.structures:
        base = structure.get("extends")
        if base and named.get(base) != "structure":
            problems.append(f"structure {structure['name']} extends unknown {base!r}")
        names = [p["name"] for p in structure["properties"]]
        if len(set(names)) != len(names):
            problems.append(f"structure {structure['name']} names a property twice")
        for prop in structure["properties"]:
            check(prop["type"], f"{structure['name']}.{prop['name']}")
    for alias in contract.aliases:
        check(alias["type"], f"alias {alias['name']}")
    for method in [*contract.requests, *contract.notifications]:
        for key in ("params", "result"):
            if key in method:
                check(method[key], f"{method['method']} {key}")
    for command in contract.commands:
        for index, argument in enumerate(command["arguments"]):
            check(argument, f"{command['command']} argument {index}")
        check(command["result"], f"{command['command']} result")
    for event in contract.events:
        for wire in ("core", "lsp"):
            names = [f["name"] for f in event_fields(event, wire)]
            if len(set(names)) != len(names) or {"kind", "sessionId"} & set(names):
                problems.append(f"event {event['kind']}: a field is given twice ({wire})")
        for field in event["fields"]:
            check(field["type"], f"event {event['kind']}.{field['name']}")
    constants = [
        c["constant"]
        for c in [
            *contract.requests,
            *contract.notifications,
            *contract.commands,
            *contract.capabilities,
            *contract.events,
            *contract.data.get("errorCodes", []),
            *contract.data.get("texts", []),
            *(e for e in contract.enumerations if "constant" in e),
        ]
    ]
    for name in {c for c in constants if constants.count(c) > 1}:
        problems.append(f"constant {name} is given twice")
    keys = [s["key"] for s in contract.settings]
    for key in {k for k in keys if keys.count(k) > 1}:
        problems.append(f"setting {key} is given twice")
    for setting in contract.settings:
        if setting["workspace"] == "ignored" and "scope" not in setting["vscode"]:
            problems.append(f"setting {setting['key']}: user-only, so it needs a vscode scope")
        if setting["target"] == "server" and "doc" not in setting:
            problems.append(f"setting {setting['key']}: a server setting needs its doc row")
    problems += _rule_problems(contract)
    if problems:
        raise ContractError(f"{SOURCE}:\n  " + "\n  ".join(problems))


def _rule_problems(contract: Contract) -> list[str]:
    """Each setting's workspace rule described once, with what its way of combining needs."""
    problems: list[str] = []
    described = [rule["rule"] for rule in contract.data["workspaceRules"]]
    for name in {n for n in described if described.count(n) > 1}:
        problems.append(f"workspace rule {name} is described twice")
    needs = {"toward": "order", "union": "trim", "cap": "none"}
    for rule in contract.workspace_rules.values():
        need = needs.get(rule["combine"])
        if need and need not in rule:
            problems.append(f"workspace rule {rule['rule']}: {rule['combine']} needs `{need}`")
    for setting in contract.settings:
        found = contract.workspace_rules.get(setting["workspace"])
        if found is None:
            problems.append(f"setting {setting['key']}: no workspaceRules entry for its rule")
        elif found.get("each"):
            for kind, modes in _entries(setting).items():
                stray = [mode for mode in modes if mode not in found["order"]]
                if stray:
                    problems.append(
                        f"setting {setting['key']}: {kind}: {', '.join(stray)} not in the order "
                        f"of {found['rule']}"
                    )
    return problems


def _entries(setting: dict[str, Any]) -> dict[str, list[str]]:
    """The kinds an object setting takes and each one's values (its vscode properties)."""
    properties = setting["vscode"].get("properties", {})
    return {kind: list(spec.get("enum", [])) for kind, spec in properties.items()}


def tightening(contract: Contract) -> dict[str, dict[str, Any]]:
    """Every setting a workspace may not simply override, with what its rule needs to
    combine the levels: the way (`combine`), the order or the trim or the no-cap value,
    the server's default the first workspace value is compared with (`start`) and, for
    an object taken entry by entry, its kinds and their values (`entries`)."""
    table: dict[str, dict[str, Any]] = {}
    for setting in contract.settings:
        rule = contract.workspace_rules[setting["workspace"]]
        if rule["combine"] == "replace":
            continue
        spec = {k: v for k, v in rule.items() if k not in ("doc", "each")}
        if rule.get("each"):
            spec["entries"] = _entries(setting)
        if "serverDefault" in setting and rule["combine"] in ("toward", "cap"):
            spec["start"] = setting["serverDefault"]
        table[setting["key"]] = spec
    return table


# -- Python -------------------------------------------------------------------------------


def py_doc(text: str, indent: str = "") -> list[str]:
    text = text.replace('"""', "'''").replace("\\", "\\\\")
    lines = _wrap(text, 92 - len(indent) - 6)
    if len(lines) == 1:
        return [f'{indent}"""{lines[0]}"""']
    return [f'{indent}"""{lines[0]}', *(f"{indent}{line}" for line in lines[1:]), f'{indent}"""']


def _wrap(text: str, width: int) -> list[str]:
    lines: list[str] = []
    line = ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return [*lines, line] if line else [""]


def py_field(prop: dict[str, Any]) -> str:
    typed = py_type(prop["type"])
    return f"NotRequired[{typed}]" if optional(prop, "python") else typed


COMMANDS_SECTION = "Commands (workspace/executeCommand), advertised by the server"
Constant = tuple[str, Any, "str | None"]


def constant_sections(contract: Contract) -> list[tuple[str, list[Constant]]]:
    """The named constants both modules define, section by section: one list, so the
    Python and the TypeScript modules cannot drift apart in what they name or in order."""

    def of(items: list[dict[str, Any]], value: str) -> list[Constant]:
        return [(item["constant"], item[value], item.get("doc")) for item in items]

    def requests(direction: str) -> list[Constant]:
        return of([r for r in contract.requests if r["direction"] == direction], "method")

    fixed = [contract.data[key] for key in ("protocolVersion", "settingsSection")]
    return [
        ("Requests (client -> server)", requests("clientToServer")),
        ("Requests (server -> client)", requests("serverToClient")),
        ("Notifications (server -> client)", of(contract.notifications, "method")),
        (COMMANDS_SECTION, of(contract.commands, "command")),
        (
            "Capabilities (`experimental.workspaceAgent` of initialize)",
            of(contract.capabilities, "name"),
        ),
        ("Version and settings section", of(fixed, "value")),
        ("Error codes of custom requests", of(contract.data.get("errorCodes", []), "value")),
        ("Fixed texts a peer reads", of(contract.data.get("texts", []), "value")),
    ]


def py_heading(title: str) -> str:
    """A section's heading line in the Python module, dashes to column 84."""
    return _heading("#", title, 84)


def ts_heading(title: str) -> str:
    """A section's heading line in the TypeScript module, dashes to column 90."""
    return _heading("//", title, 90)


def _heading(comment: str, title: str, width: int) -> str:
    start = f"{comment} -- {title} "
    return start + "-" * max(3, width - len(start))


def python_module(contract: Contract) -> str:
    out = [
        '"""The editor contract in Python: names, Literal aliases and TypedDicts.',
        "",
        "GENERATED from contract/workspace-agent.json by scripts/generate_contract.py: do not",
        "edit; change the JSON and run `make generate`. TypedDicts and Literals cost nothing at",
        "run time (nothing is validated per message); mypy checks the server's payloads",
        "against them. protocol.py re-exports the names beside the params' parsers.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import TYPE_CHECKING, Any, Final, Literal, TypedDict, overload",
        "",
    ]

    def constant(name: str, value: Any, doc: str | None) -> None:
        out.append(f"{name}: Final = {json.dumps(value, ensure_ascii=False)}")
        if doc:
            out.extend(py_doc(doc))

    for title, constants in constant_sections(contract):
        out.append(py_heading(title))
        for name, value, doc in constants:
            constant(name, value, doc)
        if title == COMMANDS_SECTION:
            out.extend(py_tuple("COMMANDS: Final", [c["constant"] for c in contract.commands]))
    out.append(py_heading("Settings: what a workspace value may do to each server setting"))
    out.append("SETTING_RULES: Final[dict[str, str]] = {")
    for setting in contract.settings:
        if setting["target"] == "server":
            out.append(f"    {json.dumps(setting['key'])}: {json.dumps(setting['workspace'])},")
    out.append("}")
    out.extend(
        py_doc(
            "overrides: wins; ignored: user settings only; stricter: approvals only towards "
            "deny; confines: sandbox.mode only towards required; adds: list entries added; "
            "lowers: a cap only lowered (the settings files of the CLI and ACP, settings_file.py)."
        )
    )
    out.append("TIGHTENING: Final[dict[str, dict[str, Any]]] = {")
    for key, spec in tightening(contract).items():
        out.append(f"    {json.dumps(key)}: {{")
        for name, value in spec.items():
            out.extend(_py_value(f"        {json.dumps(name)}: ", value, "        "))
        out.append("    },")
    out.append("}")
    out.extend(
        py_doc(
            "Every setting a workspace value may not simply override, with what its rule needs "
            "(contract workspaceRules): agent/settings_rules.py combines the levels by it, as "
            "vscode-extension/src/core/settingsRules.ts does from the same table."
        )
    )
    out.append("SERVER_SETTINGS: Final[tuple[tuple[str, str, str | None, bool], ...]] = (")
    for setting in contract.settings:
        if setting["target"] == "server":
            row = (
                setting["field"],
                setting["key"],
                setting.get("env"),
                setting.get("fromDotenv", True),
            )
            cells = [_py_literal(value) for value in row]
            line = f"    ({', '.join(cells)}),"
            if len(line) > 100:  # as ruff format would wrap it
                out.extend(["    (", *(f"        {cell}," for cell in cells), "    ),"])
            else:
                out.append(line)
    out.append(")")
    out.extend(
        py_doc(
            "(field, editor key, environment variable, whether the workspace's .env may set "
            "it) of each server setting: config.py's KEYS, each with its parser."
        )
    )
    out.append("")
    out.append(py_heading("Enumerations"))
    for enum in contract.enumerations:
        values = ", ".join(json.dumps(v) for v in enum["values"])
        line = f"{enum['name']} = Literal[{values}]"
        if len(line) > 100:  # as ruff format would wrap it
            line = f"{enum['name']} = Literal[\n    {values}\n]"
        if len(values) + 4 > 100:  # one value a line, as ruff format writes them then
            each = "".join(f"    {json.dumps(v)},\n" for v in enum["values"])
            line = f"{enum['name']} = Literal[\n{each}]"
        out.append(line)
        if enum.get("doc"):
            out.extend(py_doc(enum["doc"]))
        if "constant" in enum:
            annotation = f"{enum['constant']}: Final[tuple[{enum['name']}, ...]]"
            out.extend(py_tuple(annotation, [json.dumps(v) for v in enum["values"]]))
    out.append("")
    out.append(
        py_heading("Events (workspaceAgent/event), in the order a run usually produces them")
    )
    for event in contract.events:
        constant(event["constant"], event["kind"], None)
    out.extend(py_tuple("EVENT_KINDS: Final", [e["constant"] for e in contract.events]))
    out.append("")
    out.append("")
    types: list[str] = []
    types.append("")
    types.append("")
    types.append(py_heading("Structures"))
    for structure in _bases_first(contract.structures):
        base = structure.get("extends") or "TypedDict"
        types.append("")
        types.append("")
        types.append(f"class {structure['name']}({base}):")
        if structure.get("doc"):
            types.extend(py_doc(structure["doc"], "    "))
            types.append("")
        for prop in structure["properties"]:
            types.append(f"    {prop['name']}: {py_field(prop)}")
            if prop.get("doc"):
                types.extend(py_doc(prop["doc"], "    "))
    types.append("")
    types.append("")
    for alias in contract.aliases:
        types.append(f"{alias['name']} = {py_type(alias['type'])}")
        if alias.get("doc"):
            types.extend(py_doc(alias["doc"]))
    types.append("")
    types.append("")
    types.append(py_heading("Events as the LSP notification carries them"))
    for event in contract.events:
        types.append("")
        types.append("")
        types.append(f"class {_event_type(event)}(TypedDict):")
        types.extend(
            py_doc(f"workspaceAgent/event of kind {event['kind']}: {event['doc']}.", "    ")
        )
        types.append("")
        types.append("    sessionId: str")
        types.append(f"    kind: Literal[{json.dumps(event['kind'])}]")
        for field in event_fields(event, "lsp"):
            types.append(f"    {field['name']}: {py_field(field)}")
    types.append("")
    types.append("")
    types.append("AgentEvent = (")
    types.extend(
        f"    {'| ' if index else ''}{_event_type(e)}" for index, e in enumerate(contract.events)
    )
    types.append(")")
    entry = contract.history_entry
    types.append(f"{entry['name']} = dict[str, Any]")
    types.extend(
        py_doc(f"{entry['doc']} Fields: " + ", ".join(f["name"] for f in entry["fields"]) + ".")
    )
    out.append(py_heading("Payload types: for mypy only (nothing to build at run time)"))
    out.append("if TYPE_CHECKING:")
    out.append("    from typing_extensions import NotRequired")
    for index, line in enumerate(types):
        if line or (index and types[index - 1]):  # one blank line between nested classes
            out.append(f"    {line}" if line else "")
    out.append("")
    out.append("")
    out.append("class EventEmitter:")
    out.extend(
        py_doc(
            "`emit(kind, **fields)`, typed per event kind with the fields the core gives it "
            "(the core-only ones included). A subclass implements `send_event`.",
            "    ",
        )
    )
    out.append("")
    out.append("    __slots__ = ()")
    for event in contract.events:
        params = []
        for field in event_fields(event, "core"):
            default = " = ..." if optional(field, "python") else ""
            params.append(f"{field['name']}: {py_type(field['type'])}{default}")
        out.append("")
        out.append("    @overload")
        signature = f"    def emit(self, kind: Literal[{json.dumps(event['kind'])}], *, "
        signature += ", ".join(params) + ") -> None: ..."
        if len(signature) > 99:
            out.append("    def emit(")
            out.append("        self,")
            out.append(f"        kind: Literal[{json.dumps(event['kind'])}],")
            out.append("        *,")
            out.extend(f"        {param}," for param in params)
            out.append("    ) -> None: ...")
        else:
            out.append(signature)
    out.append("")
    out.append("    def emit(self, kind: str, **fields: Any) -> None:")
    out.append("        self.send_event(kind, fields)")
    out.append("")
    out.append("    def send_event(self, kind: str, fields: dict[str, Any]) -> None:")
    out.append("        raise NotImplementedError")
    return "\n".join(out) + "\n"


def _py_value(head: str, value: Any, indent: str) -> list[str]:
    """`head` and a JSON value as ruff format writes it: a dict one key a line, a list on
    one line where it fits (else one item a line), each with its trailing comma."""
    if isinstance(value, dict):
        inner = indent + "    "
        lines = [f"{head}{{"]
        for key, item in value.items():
            lines.extend(_py_value(f"{inner}{json.dumps(key)}: ", item, inner))
        return [*lines, f"{indent}}},"]
    if isinstance(value, list):
        line = f"{head}[{', '.join(_py_literal(v) for v in value)}],"
        if len(line) <= 100:
            return [line]
        inner = indent + "    "
        return [f"{head}[", *(f"{inner}{_py_literal(v)}," for v in value), f"{indent}],"]
    return [f"{head}{_py_literal(value)},"]


def _py_literal(value: Any) -> str:
    return repr(value) if isinstance(value, bool) or value is None else json.dumps(value)


def py_tuple(target: str, items: list[str]) -> list[str]:
    return [f"{target} = (", *(f"    {item}," for item in items), ")"]


def _event_type(event: dict[str, Any]) -> str:
    return event["kind"][0].upper() + event["kind"][1:] + "Event"


def _bases_first(structures: list[dict[str, Any]]) -> list[dict[str, Any]]:
    done: list[dict[str, Any]] = []
    names: set[str] = set()
    pending = list(structures)
    while pending:
        for structure in pending:
            if structure.get("extends") in (None, *names):
                done.append(structure)
                names.add(structure["name"])
                pending.remove(structure)
                break
        else:
            raise ContractError("structures extend each other in a circle")
    return done


# -- TypeScript ---------------------------------------------------------------------------


def ts_doc(text: str, indent: str = "") -> list[str]:
    lines = _wrap(text.replace("*/", "* /"), 118 - len(indent))
    if len(lines) == 1:
        return [f"{indent}/** {lines[0]} */"]
    return [f"{indent}/**", *(f"{indent} * {line}" for line in lines), f"{indent} */"]


def ts_string(value: Any) -> str:
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return json.dumps(value)


def ts_literal(value: Any) -> str:
    """A JSON value as TypeScript source, strings in single quotes."""
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k}: {ts_literal(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(ts_literal(v) for v in value) + "]"
    return ts_string(value)


def ts_module(contract: Contract) -> str:
    out = [
        "/**",
        " * The editor contract in TypeScript: names, types and runtime checks.",
        " *",
        " * GENERATED from contract/workspace-agent.json by scripts/generate_contract.py: do not",
        " * edit; change the JSON and run `make generate`. protocol.ts re-exports it; lspExt.ts",
        " * types the methods with it. The checks (`problemIn`, `notificationProblem`) say what",
        " * is wrong with a payload, so a malformed one is logged and dropped, not used.",
        " * This module imports nothing, so pure logic and tests can use it.",
        " */",
        "",
    ]

    def constant(name: str, value: Any, doc: str | None) -> None:
        if doc:
            out.extend(ts_doc(doc))
        out.append(f"export const {name} = {ts_string(value)};")

    for title, constants in constant_sections(contract):
        out.append(ts_heading(title))
        if title == COMMANDS_SECTION:
            out.append(
                "// vscode-languageclient registers these ids as VS Code commands itself: the "
                "extension's"
            )
            out.append("// own commands use other ids (workspaceAgent.ui.*).")
        for name, value, doc in constants:
            constant(name, value, doc)
        if title == COMMANDS_SECTION:
            out.append("export const COMMANDS = [")
            out.extend(f"  {c['constant']}," for c in contract.commands)
            out.append("] as const;")
        out.append("")
    out.append(ts_heading("Enumerations"))
    for enum in contract.enumerations:
        if enum.get("doc"):
            out.extend(ts_doc(enum["doc"]))
        values = ", ".join(ts_string(v) for v in enum["values"])
        if "constant" in enum:
            out.append(f"export const {enum['constant']} = [{values}] as const;")
            out.append(f"export type {enum['name']} = (typeof {enum['constant']})[number];")
        else:
            out.append(
                f"export type {enum['name']} = {' | '.join(ts_string(v) for v in enum['values'])};"
            )
    out.append("")
    out.append(ts_heading("Structures"))
    for structure in contract.structures:
        out.append("")
        if structure.get("doc"):
            out.extend(ts_doc(structure["doc"]))
        base = f" extends {structure['extends']}" if structure.get("extends") else ""
        out.append(f"export interface {structure['name']}{base} {{")
        out.extend(_ts_properties(structure["properties"]))
        out.append("}")
    out.append("")
    for alias in contract.aliases:
        if alias.get("doc"):
            out.extend(ts_doc(alias["doc"]))
        out.append(f"export type {alias['name']} = {ts_type(alias['type'])};")
    out.append("")
    out.append(
        ts_heading("Events (workspaceAgent/event), in the order a run usually produces them")
    )
    for event in contract.events:
        constant(event["constant"], event["kind"], None)
    out.append("export const EVENT_KINDS = [")
    out.extend(f"  {e['constant']}," for e in contract.events)
    out.append("] as const;")
    for event in contract.events:
        out.append("")
        out.extend(ts_doc(f"The `{event['kind']}` event: {event['doc']}."))
        out.append(f"export interface {_event_type(event)} {{")
        out.append("  sessionId: string;")
        out.append(f"  kind: typeof {event['constant']};")
        out.extend(_ts_properties(event_fields(event, "lsp")))
        out.append("}")
    out.append("")
    out.append("/** Body of workspaceAgent/event: the live transcript, one variant per kind. */")
    out.append("export type AgentEvent =")
    out.extend(f"  | {_event_type(e)}" for e in contract.events)
    out[-1] += ";"
    entry = contract.history_entry
    out.append("")
    out.append(
        "type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;"
    )
    out.extend(ts_doc(entry["doc"]))
    extra = "; ".join(f"{f['name']}: {ts_type(f['type'])}" for f in entry["fields"])
    out.append(
        f"export type {entry['name']} = DistributiveOmit<AgentEvent, 'sessionId'> & {{ {extra} }};"
    )
    out.append("")
    out.extend(_ts_settings(contract))
    out.append("")
    out.extend(_ts_checks(contract))
    return "\n".join(out) + "\n"


def _ts_properties(props: list[dict[str, Any]]) -> list[str]:
    out = []
    for prop in props:
        if prop.get("doc"):
            out.extend(ts_doc(prop["doc"], "  "))
        mark = "?" if optional(prop, "ts") else ""
        out.append(f"  {prop['name']}{mark}: {ts_type(prop['type'])};")
    return out


def _ts_settings(contract: Contract) -> list[str]:
    out = [
        ts_heading("Settings (package.json contributes them; core/settings.ts reads them)"),
        "/**",
        " * Every `workspaceAgent.*` setting: its kind, who reads it ('server': sent to the",
        " * server; 'launch': decides how the server starts; 'client': the extension's own) and",
        " * what a workspace value may do to it (core/settings.ts, WorkspaceRule).",
        " */",
        "export const SETTINGS = [",
    ]
    for setting in contract.settings:
        if setting.get("why"):
            out.extend(f"  // {line}" for line in _wrap(setting["why"], 112))
        kinds = setting["vscode"]["type"]
        kind = next(k for k in ([kinds] if isinstance(kinds, str) else kinds) if k != "null")
        fields = [
            f"key: {ts_string(setting['key'])}",
            f"kind: {ts_string(kind)}",
            f"target: {ts_string(setting['target'])}",
            f"workspace: {ts_string(setting['workspace'])}",
        ]
        if setting["workspace"] == "ignored":
            fields.append(f"scope: {ts_string(setting['vscode']['scope'])}")
        out.append("  { " + ", ".join(fields) + " },")
    out.append("] as const;")
    out.append("")
    out.append(
        "/** The server's value of each server setting where the user set none (config.py). */"
    )
    out.append("export const SERVER_SETTING_DEFAULTS: Readonly<Record<string, unknown>> = {")
    for setting in contract.settings:
        if "serverDefault" in setting:
            value = ts_literal(setting["serverDefault"])
            out.append(f"  {ts_string(setting['key'])}: {value},")
    out.append("};")
    out.append("")
    out.extend(
        [
            "/**",
            " * What a workspace rule needs to combine the levels of a setting (contract",
            " * workspaceRules): `combine` is the way, `order` loosest first, `entries` the",
            " * kinds of an object and their values, `trim` what is cut from each name, `none`",
            " * the no-cap value, `start` the server's default a first workspace value is",
            " * compared with.",
            " */",
            "export interface Tightening {",
            "  rule: string;",
            "  combine: 'userOnly' | 'toward' | 'union' | 'cap';",
            "  order?: readonly string[];",
            "  entries?: Readonly<Record<string, readonly string[]>>;",
            "  trim?: string;",
            "  none?: number;",
            "  start?: unknown;",
            "}",
            "",
            "/** Every setting a workspace may not simply override (core/settingsRules.ts). */",
            "export const TIGHTENING: Readonly<Record<string, Tightening>> = {",
        ]
    )
    for key, spec in tightening(contract).items():
        shown = ", ".join(f"{name}: {_ts_value(value)}" for name, value in spec.items())
        out.append(f"  {ts_string(key)}: {{ {shown} }},")
    out.append("};")
    return out


def _ts_value(value: Any) -> str:
    """A JSON value as TypeScript source: keys quoted where they must be, and strings with
    their control characters escaped."""
    if isinstance(value, dict):
        items = ", ".join(f"{_ts_key(k)}: {_ts_value(v)}" for k, v in value.items())
        return "{ " + items + " }"
    if isinstance(value, list):
        return "[" + ", ".join(_ts_value(v) for v in value) + "]"
    if isinstance(value, str):
        escaped = ts_string(value)
        for char, escape in ("\t", "\\t"), ("\n", "\\n"), ("\r", "\\r"), ("\f", "\\f"):
            escaped = escaped.replace(char, escape)
        return escaped.replace("\v", "\\v")
    return ts_string(value)


def _ts_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z_$][A-Za-z0-9_$]*", key) else ts_string(key)


def _ts_check_type(text: str) -> str:
    atoms = []
    for atom in parse_type(text):
        atoms.append(f"[{ts_string(atom.name)}, {atom.array}]")
    return f"[{', '.join(atoms)}]"


def _ts_checks(contract: Contract) -> list[str]:
    out = [
        ts_heading("Runtime checks"),
        "// A type is a union of [name, array depth]; a name is a base type, an enumeration, a",
        "// structure or an alias. Fields a payload has beyond these are allowed (a newer server).",
        "type CheckType = readonly (readonly [string, number])[];",
        "type CheckField = readonly [name: string, type: CheckType, optional: boolean];",
        "",
        "const ENUMERATIONS: Readonly<Record<string, readonly (string | number)[]>> = {",
    ]
    for enum in contract.enumerations:
        out.append(f"  {enum['name']}: [{', '.join(ts_string(v) for v in enum['values'])}],")
    out.append("};")
    out.append("")
    out.append("const STRUCTURES: Readonly<Record<string, readonly CheckField[]>> = {")
    for structure in contract.structures:
        out.append(f"  {structure['name']}: [")
        for prop in contract.all_properties(structure["name"]):
            absent = "true" if optional(prop, "ts") else "false"
            out.append(
                f"    [{ts_string(prop['name'])}, {_ts_check_type(prop['type'])}, {absent}],"
            )
        out.append("  ],")
    out.append("};")
    out.append("")
    out.append("const ALIASES: Readonly<Record<string, CheckType>> = {")
    for alias in contract.aliases:
        out.append(f"  {alias['name']}: {_ts_check_type(alias['type'])},")
    out.append("};")
    out.append("")
    out.append("/** The fields of each event kind on the LSP wire (besides sessionId and kind). */")
    out.append("const EVENTS: Readonly<Record<string, readonly CheckField[]>> = {")
    for event in contract.events:
        out.append(f"  {event['kind']}: [")
        for field in event_fields(event, "lsp"):
            absent = "true" if optional(field, "ts") else "false"
            out.append(
                f"    [{ts_string(field['name'])}, {_ts_check_type(field['type'])}, {absent}],"
            )
        out.append("  ],")
    out.append("};")
    out.append("")
    out.append("/** The fields a history entry has besides its event's. */")
    out.append("const HISTORY_ENTRY: readonly CheckField[] = [")
    for field in contract.history_entry["fields"]:
        absent = "true" if optional(field, "ts") else "false"
        out.append(f"  [{ts_string(field['name'])}, {_ts_check_type(field['type'])}, {absent}],")
    out.append("];")
    out.append("")
    out.append("/** What each notification carries: a structure, or 'AgentEvent'. */")
    out.append("const NOTIFICATIONS: Readonly<Record<string, string>> = {")
    for notification in contract.notifications:
        out.append(f"  [{notification['constant']}]: {ts_string(notification['params'])},")
    out.append("};")
    out.append("")
    out.append("/** What each request the client sends answers (its result type). */")
    out.append("const REQUEST_RESULTS: Readonly<Record<string, CheckType>> = {")
    for request in contract.requests:
        if request["direction"] == "clientToServer":
            out.append(f"  [{request['constant']}]: {_ts_check_type(request['result'])},")
    out.append("};")
    out.append("")
    out.append("/** What each server command answers. */")
    out.append("const COMMAND_RESULTS: Readonly<Record<string, CheckType>> = {")
    for command in contract.commands:
        out.append(f"  [{command['constant']}]: {_ts_check_type(command['result'])},")
    out.append("};")
    out.append("")
    out.append("/** Every named type of the contract, for `isContract`. */")
    out.append("export interface ContractTypes {")
    for entry in [*contract.enumerations, *contract.structures, *contract.aliases]:
        out.append(f"  {entry['name']}: {entry['name']};")
    out.append("  AgentEvent: AgentEvent;")
    out.append(f"  {contract.history_entry['name']}: {contract.history_entry['name']};")
    out.append("}")
    out.append(CHECKER_TS)
    return out


CHECKER_TS = """
function shown(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function typeText(type: CheckType): string {
  return type.map(([name, depth]) => name + '[]'.repeat(depth)).join(' | ');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Why `value` is not of `name` (with `depth` array levels), or undefined when it is. */
function atomProblem(value: unknown, name: string, depth: number, at: string): string | undefined {
  if (depth > 0) {
    if (!Array.isArray(value)) {
      return `${at}: expected a list, got ${shown(value)}`;
    }
    for (const [index, item] of value.entries()) {
      const problem = atomProblem(item, name, depth - 1, `${at}[${index}]`);
      if (problem) {
        return problem;
      }
    }
    return undefined;
  }
  const wrong = (expected: string) => `${at}: expected ${expected}, got ${shown(value)}`;
  switch (name) {
    case 'string':
    case 'boolean':
    case 'number':
      return typeof value === name ? undefined : wrong(`a ${name}`);
    case 'integer':
      return Number.isInteger(value) ? undefined : wrong('an integer');
    case 'null':
      return value === null ? undefined : wrong('null');
    case 'true':
      return value === true ? undefined : wrong('true');
    case 'unknown':
      return undefined;
    case 'object':
      return isRecord(value) ? undefined : wrong('an object');
  }
  if (name === 'AgentEvent' || name === 'HistoryEntry') {
    return agentEventProblem(value, at, name === 'HistoryEntry');
  }
  const values = ENUMERATIONS[name];
  if (values) {
    const known = values.includes(value as string | number);
    return known ? undefined : wrong(values.map(shown).join(' | '));
  }
  const alias = ALIASES[name];
  if (alias) {
    return typeProblem(value, alias, at);
  }
  const fields = STRUCTURES[name];
  if (!fields) {
    return `${at}: the contract has no type ${name}`;
  }
  return isRecord(value) ? fieldsProblem(value, fields, at) : wrong(`an object (${name})`);
}

function typeProblem(value: unknown, type: CheckType, at: string): string | undefined {
  const problems: string[] = [];
  for (const [name, depth] of type) {
    const problem = atomProblem(value, name, depth, at);
    if (problem === undefined) {
      return undefined;
    }
    problems.push(problem);
  }
  const expected = `${at}: expected ${typeText(type)}, got ${shown(value)}`;
  return problems.length === 1 ? problems[0] : expected;
}

function fieldsProblem(
  value: Record<string, unknown>,
  fields: readonly CheckField[],
  at: string,
): string | undefined {
  for (const [name, type, optional] of fields) {
    const field = value[name];
    if (field === undefined) {
      if (!optional) {
        return `${at}.${name} is missing`;
      }
      continue;
    }
    const problem = typeProblem(field, type, `${at}.${name}`);
    if (problem) {
      return problem;
    }
  }
  return undefined;
}

/** Why `value` is not a workspaceAgent/event payload the extension knows, or undefined. */
export function agentEventProblem(
  value: unknown,
  at = 'event',
  historyEntry = false,
): string | undefined {
  if (!isRecord(value)) {
    return `${at}: expected an object, got ${shown(value)}`;
  }
  if (historyEntry) {
    const problem = fieldsProblem(value, HISTORY_ENTRY, at);
    if (problem) {
      return problem;
    }
  } else if (typeof value.sessionId !== 'string') {
    return `${at}.sessionId: expected a string, got ${shown(value.sessionId)}`;
  }
  const kind = value.kind;
  const fields = typeof kind === 'string' ? EVENTS[kind] : undefined;
  if (typeof kind !== 'string' || !fields) {
    const known = EVENT_KINDS.join(', ');
    return `${at}.kind: ${shown(value.kind)} is not an event kind this extension knows (${known})`;
  }
  return fieldsProblem(value, fields, `${at} ${kind}`);
}

/** Why `value` is not of the contract type `name` (structure, enumeration, alias), or undefined. */
export function problemIn(name: string, value: unknown, at: string = name): string | undefined {
  return atomProblem(value, name, 0, at);
}

/** Whether `value` is of the contract type `name` (what `problemIn` finds nothing wrong with). */
export function isContract<K extends keyof ContractTypes>(
  name: K,
  value: unknown,
): value is ContractTypes[K] {
  return problemIn(name, value) === undefined;
}

/** Why the answer to request `method` is not what the contract promises, or undefined. */
export function resultProblem(method: string, value: unknown): string | undefined {
  const type = REQUEST_RESULTS[method];
  const unknown = `${method} is not a request of the contract`;
  return type === undefined ? unknown : typeProblem(value, type, method);
}

/** Why the answer to server command `command` is not what the contract promises, or undefined. */
export function commandResultProblem(command: string, value: unknown): string | undefined {
  const type = COMMAND_RESULTS[command];
  const unknown = `${command} is not a command of the contract`;
  return type === undefined ? unknown : typeProblem(value, type, command);
}

/** Why the params of notification `method` are not what the contract promises, or undefined. */
export function notificationProblem(method: string, params: unknown): string | undefined {
  const type = NOTIFICATIONS[method];
  const unknown = `${method} is not a notification of the contract`;
  return type === undefined ? unknown : problemIn(type, params, method);
}"""


# -- The LSP server's method table (lsp/methods.py) ---------------------------------------


def snake(name: str) -> str:
    """`fileVersion` -> `file_version`."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def method_name(method: str) -> str:
    """The method's own part: `workspaceAgent/fileVersion` -> `fileVersion`."""
    return method.split("/", 1)[1]


def client_requests(contract: Contract) -> list[dict[str, Any]]:
    return [r for r in contract.requests if r["direction"] == "clientToServer"]


def python_methods(contract: Contract) -> str:
    notified = {n["method"] for n in contract.notifications}
    out = [
        '"""The custom requests the language server answers: method, params parser, handler.',
        "",
        "GENERATED from contract/workspace-agent.json by scripts/generate_contract.py: do not",
        "edit; change the JSON and run `make generate`. `create_server` (server.py) registers",
        "every entry: the params are parsed by the contract's `parser` (a ProtocolError is",
        "InvalidParams), then `AgentLanguageServer.<handler>` (hand-written) answers with them.",
        "A new request is its contract entry plus that handler.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from collections.abc import Callable",
        "from dataclasses import dataclass",
        "from typing import Any, Final",
        "",
        "from .. import contract as c",
        "",
        "",
        "@dataclass(frozen=True)",
        "class Request:",
        "    method: str",
        "    handler: str",
        '    """The name of the AgentLanguageServer method that answers it."""',
        "    parse: Callable[[Any], Any] | None",
        '    """Params -> the handler\'s argument; None: the handler gets the plain JSON."""',
        "    takes_params: bool",
        '    """False: the contract gives the request no params; the handler takes none."""',
        "    plain: bool",
        '    """pygls hands the params over as plain JSON (wire.AgentProtocol). False for a',
        "    method that is also a notification's name: pygls picks the message type by name",
        '    alone, so those params come as namedtuples and are made plain first."""',
    ]

    def parse_function(name: str, constant: str, parser: dict[str, Any] | None) -> str:
        if not parser:
            return "None"
        owner = parser["call"].split(".", 1)[0]
        args = f"params, c.{constant}" if parser.get("passMethod") else "params"
        out.extend(
            [
                "",
                "",
                f"def _parse_{name}(params: Any) -> Any:",
                f"    from ..{parser['module']} import {owner}",
                "",
                f"    return {parser['call']}({args})",
            ]
        )
        return f"_parse_{name}"

    def entry(constant: str, handler: str, parse: str, takes: bool, plain: bool) -> str:
        line = f'    Request(c.{constant}, "{handler}", {parse}, {takes}, {plain}),'
        if len(line) <= 100:
            return line
        cells = [f"c.{constant}", f'"{handler}"', parse, str(takes), str(plain)]
        return "\n".join(["    Request(", *(f"        {cell}," for cell in cells), "    ),"])

    entries = []
    for request in client_requests(contract):
        name = snake(method_name(request["method"]))
        parse = parse_function(name, request["constant"], request.get("parser"))
        plain = request["method"] not in notified
        entries.append(entry(request["constant"], f"on_{name}", parse, "params" in request, plain))
    commands = []
    for command in contract.commands:
        name = snake(command["command"].split(".", 1)[1]) + "_command"
        parse = parse_function(name, command["constant"], command.get("parser"))
        if command["arguments"] and parse == "None":
            raise ContractError(f"command {command['command']}: arguments need a parser")
        commands.append(
            entry(command["constant"], f"on_{name}", parse, bool(command["arguments"]), True)
        )
    out.extend(["", "", "REQUESTS: Final = (", *entries, ")"])
    out.append("PLAIN_PARAMS: Final = frozenset(r.method for r in REQUESTS if r.plain)")
    out.extend(
        py_doc(
            "Custom requests whose params pygls leaves as they are (wire.AgentProtocol "
            "gives them a message type of their own)."
        )
    )
    out.extend(["COMMANDS: Final = (", *commands, ")"])
    out.extend(
        py_doc(
            "The commands the server advertises (workspace/executeCommand): their argument "
            "list (`[params]`) is parsed, then `on_<name>_command` answers (`plain` unused)."
        )
    )
    return "\n".join(out) + "\n"


# -- vscode-extension/src/lspExt.ts ----------------------------------------------------


def ts_lsp_ext(contract: Contract) -> str:
    """Every method and command as a typed object, named after the method: requests
    `fileVersion`, notifications `changesNotification`, commands `revertCommand`."""
    out = [
        "/**",
        " * Every custom method of the protocol, declared once with its payload types (the way",
        " * rust-analyzer's `lsp_ext.ts` does), so call sites pass these objects and get typed",
        " * params and results: no method strings, no casts.",
        " *",
        " * GENERATED from contract/workspace-agent.json by scripts/generate_contract.py: do not",
        " * edit; change the JSON and run `make generate`. The types come from",
        " * vscode-languageserver-protocol, the package vscode-languageclient is built on (same",
        " * version), not from vscode-languageclient itself, so this module stays free of `vscode`",
        " * and the unit tests can import it.",
        " */",
        "import {",
        "  ExecuteCommandRequest,",
        "  NotificationType,",
        "  RequestType,",
        "  RequestType0,",
        "} from 'vscode-languageserver-protocol';",
    ]
    names: set[str] = set()
    constants: set[str] = set()

    def used(text: str) -> str:
        for atom in parse_type(text):
            if atom.name not in BASE_TYPES:
                names.add(atom.name)
        return ts_type(text)

    body: list[str] = []
    for direction, title in (
        ("clientToServer", "Requests (client -> server)"),
        ("serverToClient", "Requests (server -> client)"),
    ):
        body.append("")
        body.append(ts_heading(title))
        for request in contract.requests:
            if request["direction"] != direction:
                continue
            constants.add(request["constant"])
            body.extend(ts_doc(_first_sentence(request["doc"])))
            name = method_name(request["method"])
            result = used(request["result"])
            if "params" in request:
                params = used(request["params"])
                body.append(
                    f"export const {name} = new RequestType<{params}, {result}, void>"
                    f"({request['constant']});"
                )
            else:
                constant = request["constant"]
                body.append(f"export const {name} = new RequestType0<{result}, void>({constant});")
    body.append("")
    body.append(ts_heading("Notifications (server -> client)"))
    for notification in contract.notifications:
        constants.add(notification["constant"])
        body.extend(ts_doc(_first_sentence(notification["doc"])))
        name = method_name(notification["method"]) + "Notification"
        params = used(notification["params"])
        body.append(
            f"export const {name} = new NotificationType<{params}>({notification['constant']});"
        )
    body.append("")
    body.append(ts_heading("Commands (workspace/executeCommand)"))
    body.append(LSP_EXT_COMMANDS_TS)
    for command in contract.commands:
        constants.add(command["constant"])
        name = command["command"].split(".", 1)[1] + "Command"
        args = ", ".join(used(argument) for argument in command["arguments"])
        result = used(command["result"])
        body.append(
            f"export const {name} = serverCommand<[{args}], {result}>({command['constant']});"
        )
    imports = sorted(constants) + sorted(f"type {n}" for n in names)
    out.append("import {")
    out.extend(f"  {item}," for item in sorted(imports, key=lambda i: i.removeprefix("type ")))
    out.append("} from './contract';")
    out.extend(body)
    return "\n".join(out) + "\n"


def _first_sentence(text: str) -> str:
    match = re.match(r"(.+?\.)(\s|$)", text)
    return match[1] if match else text


LSP_EXT_COMMANDS_TS = """
/** `workspace/executeCommand` params with the command's own argument list. */
export interface CommandParams<A extends unknown[]> {
  command: string;
  arguments: A;
}

/**
 * A command the server advertises, with its arguments and result: `request` is
 * `workspace/executeCommand` typed for this one command (the standard request type
 * returns `any`).
 */
export interface ServerCommand<A extends unknown[], R> {
  readonly command: string;
  readonly request: RequestType<CommandParams<A>, R, void>;
}

function serverCommand<A extends unknown[], R>(command: string): ServerCommand<A, R> {
  const request = new RequestType<CommandParams<A>, R, void>(ExecuteCommandRequest.method);
  return { command, request };
}
"""


# -- vscode-extension/eslint.config.mjs ---------------------------------------------------


def rewrite_eslint(text: str, contract: Contract) -> str:
    """The names that only lspExt.ts may import: every method's and command's constant."""
    names = [
        m["constant"] for m in [*contract.requests, *contract.notifications, *contract.commands]
    ]
    begin = (
        "// BEGIN GENERATED method-names: from contract/workspace-agent.json by "
        "scripts/generate_contract.py (make generate)"
    )
    end = "// END GENERATED method-names"
    pattern = re.compile(
        r"^// BEGIN GENERATED method-names\b.*?^// END GENERATED method-names$", re.M | re.S
    )
    match = pattern.search(text)
    if not match:
        raise ContractError(f"{ESLINT} has no region // BEGIN GENERATED method-names ...")
    block = "\n".join(
        [begin, "const METHOD_NAMES = [", *(f"  '{name}'," for name in names), "];", end]
    )
    return text[: match.start()] + block + text[match.end() :]


# -- JSON Schema (for tests that check what the server really sends) -------------------


def json_schema(contract: Contract, *, closed: bool = False) -> dict[str, Any]:
    """The contract's types as JSON Schema `$defs`, required fields as this server sends
    them (`olderServersOmit` ones included). `closed`: no properties besides the declared
    ones, so a test catches a field the server sends that the contract does not name."""

    def of(text: str) -> dict[str, Any]:
        options = []
        bases: dict[str, dict[str, Any]] = {
            "string": {"type": "string"},
            "integer": {"type": "integer"},
            "number": {"type": "number"},
            "boolean": {"type": "boolean"},
            "null": {"type": "null"},
            "true": {"const": True},
            "unknown": {},
            "object": {"type": "object"},
        }
        for atom in parse_type(text):
            base = bases[atom.name] if atom.name in bases else {"$ref": f"#/$defs/{atom.name}"}
            for _ in range(atom.array):
                base = {"type": "array", "items": base}
            options.append(base)
        return options[0] if len(options) == 1 else {"anyOf": options}

    def obj(props: list[dict[str, Any]], fixed: dict[str, Any]) -> dict[str, Any]:
        properties = {**fixed, **{prop["name"]: of(prop["type"]) for prop in props}}
        required = [*fixed, *(prop["name"] for prop in props if not optional(prop, "python"))]
        schema = {"type": "object", "properties": properties, "required": required}
        return {**schema, "additionalProperties": False} if closed else schema

    defs: dict[str, Any] = {e["name"]: {"enum": e["values"]} for e in contract.enumerations}
    for structure in contract.structures:
        defs[structure["name"]] = obj(contract.all_properties(structure["name"]), {})
    for alias in contract.aliases:
        defs[alias["name"]] = of(alias["type"])
    entry = contract.history_entry
    events, entries = [], []
    for event in contract.events:
        kind = {"kind": {"const": event["kind"]}}
        fixed = {"sessionId": {"type": "string"}, **kind}
        defs[_event_type(event)] = obj(event_fields(event, "lsp"), fixed)
        events.append({"$ref": f"#/$defs/{_event_type(event)}"})
        entries.append(obj([*event_fields(event, "lsp"), *entry["fields"]], kind))
    defs["AgentEvent"] = {"oneOf": events}
    defs[entry["name"]] = {"oneOf": entries}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs}


# -- docs/protocol.md ---------------------------------------------------------------------


def doc_tables(contract: Contract) -> dict[str, list[str]]:
    commands = ["| command | arguments | result |", "| --- | --- | --- |"]
    for command in contract.commands:
        commands.append(
            f"| `{command['command']}` | {command['docArguments']} | {command['docResult']} |"
        )
    events = ["| kind | fields | when |", "| --- | --- | --- |"]
    for event in contract.events:
        fields = ", ".join(
            f"`{f['name']}{'?' if optional(f, 'doc') else ''}`" for f in event_fields(event, "lsp")
        )
        events.append(f"| `{event['kind']}` | {fields} | {event['doc']} |")
    settings = ["| key | type | default | environment fallback |", "| --- | --- | --- | --- |"]
    for setting in contract.settings:
        if setting["target"] != "server":
            continue
        doc = setting["doc"]
        env = doc.get("env") or (f"`{setting['env']}`" if setting.get("env") else "—")
        settings.append(f"| `{setting['key']}` | {doc['type']} | {doc['default']} | {env} |")
    return {"commands": commands, "events": events, "settings": settings}


def rewrite_doc(text: str, contract: Contract) -> str:
    for name, lines in doc_tables(contract).items():
        begin = (
            f"<!-- BEGIN GENERATED {name}: from contract/workspace-agent.json by "
            "scripts/generate_contract.py (make generate); edit the JSON, not this table -->"
        )
        end = f"<!-- END GENERATED {name} -->"
        pattern = re.compile(
            rf"^<!-- BEGIN GENERATED {name}\b.*?-->\n.*?^<!-- END GENERATED {name} -->$",
            re.M | re.S,
        )
        match = pattern.search(text)
        if not match:
            raise ContractError(f"{DOC} has no region <!-- BEGIN GENERATED {name} ... -->")
        block = "\n".join([begin, *lines, end])
        text = text[: match.start()] + block + text[match.end() :]
    return text


# -- package.json -------------------------------------------------------------------------


def rewrite_package_json(text: str, contract: Contract) -> str:
    manifest = json.loads(text)
    manifest["contributes"]["configuration"]["properties"] = {
        f"workspaceAgent.{s['key']}": s["vscode"] for s in contract.settings
    }
    return json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"


# -- Writing and checking -----------------------------------------------------------------


def outputs(root: Path) -> dict[Path, str]:
    """Every generated file's path (relative to root) and the text it should have."""
    contract = load(root)
    return {
        PYTHON_OUT: python_module(contract),
        TS_OUT: ts_module(contract),
        DOC: rewrite_doc((root / DOC).read_text(encoding="utf-8"), contract),
        PACKAGE_JSON: rewrite_package_json(
            (root / PACKAGE_JSON).read_text(encoding="utf-8"), contract
        ),
        METHODS_OUT: python_methods(contract),
        LSP_EXT_OUT: ts_lsp_ext(contract),
        ESLINT: rewrite_eslint((root / ESLINT).read_text(encoding="utf-8"), contract),
    }


def stale(root: Path) -> list[Path]:
    found = []
    for path, text in outputs(root).items():
        file = root / path
        if not file.exists() or file.read_text(encoding="utf-8") != text:
            found.append(path)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; fail on a stale file")
    parser.add_argument(
        "--root", type=Path, default=ROOT, help="the repository (default: this one)"
    )
    args = parser.parse_args(argv)
    try:
        if args.check:
            found = stale(args.root)
            for path in found:
                print(
                    f"{path} is out of date with {SOURCE}: run {FIX} and commit the result",
                    file=sys.stderr,
                )
            return 1 if found else 0
        for path, text in outputs(args.root).items():
            file = args.root / path
            if not file.exists() or file.read_text(encoding="utf-8") != text:
                file.write_text(text, encoding="utf-8")
                print(f"wrote {path}")
    except ContractError as exc:
        print(f"contract: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
