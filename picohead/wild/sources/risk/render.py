"""How a template's fields are written in a file's syntax: ``Plant``, ``style``, ``render``.

A field name given as words becomes ``snake``/``camel``/``UPPER`` per family; a value becomes a
YAML key, a Go ``const``, an XML element, a heredoc, a log line and so on. What it does not do:
choose where the snippet goes in the host (``plant``) or make the values (the template modules).
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field


# -- field names ----------------------------------------------------------------------------------
def style(fieldname: str, fam: str, rng: random.Random) -> str:
    """A field given as words (``db password``) or verbatim (``PGPASSWORD``) in a family's style."""
    if " " not in fieldname and fieldname.upper() == fieldname:
        return fieldname if fam in ("env", "shell", "docker", "python", "ruby", "php", "c",
                                    "java", "kotlin", "rust", "ts", "log", "text", "md") \
            else fieldname.lower()
    words = fieldname.split()
    snake, upper = "_".join(words), "_".join(words).upper()
    camel = words[0] + "".join(w.capitalize() for w in words[1:])
    pascal = "".join(w.capitalize() for w in words)
    kebab = "-".join(words)
    if fam in ("env", "shell", "docker", "c"):
        return upper
    if fam in ("yaml", "toml", "ini", "hcl", "sql", "log"):
        return rng.choice([snake, snake, kebab]) if fam in ("yaml", "log") else snake
    if fam == "properties":
        return rng.choice(["app.", "service.", "spring.datasource.", ""]) + ".".join(words[-2:]) \
            if len(words) > 1 else "app." + snake
    if fam in ("json", "js", "ts", "xml", "go", "html"):
        return rng.choice([camel, camel, snake]) if fam in ("json", "xml") else camel
    if fam in ("python", "ruby", "rust", "java", "kotlin", "php"):
        return upper if rng.random() < 0.6 else snake if fam in ("python", "ruby", "rust",
                                                                   "php") else camel
    if fam == "csharp":
        return pascal
    return snake if fam not in ("text", "md") else " ".join(words).capitalize()


@dataclass
class Plant:
    """What one template makes: fields with values, or a ready line (command, header, prose)."""
    template: str
    flags: list[str]
    pairs: list[tuple[str, str]] = field(default_factory=list)
    pem: bool = False
    line: str | None = None        # a shell/log/prose line used where it fits
    line_fams: tuple[str, ...] = ("shell", "docker", "md", "log", "text")


# -- rendering -------------------------------------------------------------------------------------
def _q(v: str) -> str:
    return json.dumps(v)[1:-1]


def _xml(v: str) -> str:
    return v.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def render_pair(fam: str, name: str, v: str, pem: bool, rng: random.Random) -> list[str]:
    """One field = value in the syntax of ``fam`` (lines; a PEM value keeps its line breaks)."""
    ml = v.split("\n")
    if fam == "yaml":
        if pem:
            return [f"{name}: |"] + [f"  {x}" for x in ml]
        return [f"{name}: {json.dumps(v) if rng.random() < 0.5 or ': ' in v or v[:1] in '*&!%@`{[' else v}"]
    if fam == "ini":
        return [f"{name} =", *[f"    {x}" for x in ml]] if pem else [f"{name} = {v}"]
    if fam == "env":
        if pem:
            return [f'{name}="{v}"'] if rng.random() < 0.5 else [f'{name}="{_q(v)}"']
        return [f'{name}="{v}"' if rng.random() < 0.4 or " " in v or ";" in v else f"{name}={v}"]
    if fam == "toml":
        return [f'{name} = """', *ml, '"""'] if pem else [f'{name} = "{_q(v)}"']
    if fam == "json":
        return [f'  "{name}": "{_q(v)}",']
    if fam == "xml":
        if pem:
            return [f"  <{name}>", *ml, f"  </{name}>"]
        if rng.random() < 0.3:
            return [f'  <add key="{name[:1].upper() + name[1:]}" value="{_xml(v)}" />']
        return [f"  <{name}>{_xml(v)}</{name}>"]
    if fam == "properties":
        return [f"{name}={_q(v)}"] if pem else [f"{name}={v}" if rng.random() < 0.6
                                                else f"{name} = {v}"]
    if fam == "csv":
        return ['"' + name + '","' + v.replace('"', '""') + '"']
    if fam == "shell":
        if pem:
            return [f"cat > /etc/ssl/private/{name.lower()}.pem <<'EOF'", *ml, "EOF"]
        return [f"export {name}='{v}'" if rng.random() < 0.5 else f'{name}="{_q(v)}"']
    if fam == "docker":
        if pem:
            return [f"COPY <<EOF /run/secrets/{name.lower()}", *ml, "EOF"]
        return [f"{rng.choice(['ENV', 'ARG'])} {name}={json.dumps(v) if ' ' in v else v}"]
    if fam == "python":
        if pem:
            return [f'{name} = """\\', *ml, '"""']
        return [f"{name} = {json.dumps(v) if rng.random() < 0.5 else repr(v)}"]
    if fam in ("js", "ts"):
        if pem:
            return [f"const {name} = `{ml[0]}", *ml[1:], "`;"]
        t = ": string" if fam == "ts" else ""
        return [f"{rng.choice(['const', 'export const'])} {name}{t} = {json.dumps(v)};"]
    if fam == "go":
        return [f"const {name} = `{ml[0]}", *ml[1:], "`"] if pem else \
            [f"const {name} = {json.dumps(v)}"]
    if fam == "java":
        if pem:
            return [f'    static final String {name} = """', *[f"        {x}" for x in ml],
                    '        """;']
        return [f"    private static final String {name} = {json.dumps(v)};"]
    if fam == "kotlin":
        if pem:
            return [f'val {name} = """', *ml, '""".trimIndent()']
        return [f"{'const val' if name.isupper() else 'val'} {name} = {json.dumps(v)}"]
    if fam == "rust":
        return [f'const {name.upper()}: &str = r"{ml[0]}', *ml[1:], '";'] if pem else \
            [f"const {name.upper()}: &str = {json.dumps(v)};"]
    if fam == "ruby":
        if pem:
            return [f"{name.upper()} = <<~PEM", *[f"  {x}" for x in ml], "PEM"]
        return [f"{name} = {json.dumps(v)}" if rng.random() < 0.5 else
                f"ENV[{json.dumps(name.upper())}] ||= {json.dumps(v)}"]
    if fam == "php":
        if pem:
            return [f"${name.lower()} = <<<'PEM'", *ml, "PEM;"]
        lit = f"'{v}'" if "'" not in v and "\\" not in v else json.dumps(v).replace("$", "\\$")
        if rng.random() < 0.5:
            return [f"define('{name.upper()}', {lit});"]
        var = name if name.isupper() else name[:1].lower() + name[1:]
        return [f"${var} = {lit};"]
    if fam == "csharp":
        if pem:
            return [f'        private const string {name} = @"{ml[0]}', *ml[1:], '";']
        return [f"        private const string {name} = {json.dumps(v)};"]
    if fam == "c":
        if pem:
            return [f"static const char *{name.lower()} ="] + \
                [f'    "{x}\\n"' for x in ml[:-1]] + [f'    "{ml[-1]}\\n";']
        return [f"#define {name} {json.dumps(v)}"]
    if fam == "sql":
        if re.search(r"(?i)(pass(word|wd)?|pwd)$", name) and not pem:
            return [rng.choice([f"ALTER USER app WITH PASSWORD '{v}';",
                                f"CREATE USER 'app'@'%' IDENTIFIED BY '{v}';"])]
        return [f"INSERT INTO settings (name, value) VALUES ('{name}', '{v}');"]
    if fam == "hcl":
        if pem:
            return ["locals {", f"  {name} = <<-EOT", *[f"    {x}" for x in ml], "  EOT", "}"]
        if rng.random() < 0.5:
            return [f'variable "{name}" {{', f'  default   = "{_q(v)}"', "  sensitive = true", "}"]
        return ["locals {", f'  {name} = "{_q(v)}"', "}"]
    if fam == "html":
        if pem:
            return ["<pre>", *ml, "</pre>"]
        if "@" in v and " " not in v and "://" not in v:
            return [f'<p>{name}: <a href="mailto:{v}">{v}</a></p>']
        return [f'<meta name="{name}" content="{_xml(v)}">'] if rng.random() < 0.5 else \
            [f"<!-- {name}: {v} -->"]
    if fam == "css":
        return ["/*", f"  {name}:", *[f"  {x}" for x in ml], "*/"] if pem else \
            [f"/* {name}: {v} */"]
    if fam == "md":
        if pem:
            return ["```", *ml, "```"]
        return [rng.choice([f"- **{name}**: `{v}`", f"{name}: {v}", f"| {name} | `{v}` |"])]
    if fam == "log":
        ts = f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} " \
             f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"
        if pem:
            return [f"{ts} DEBUG loaded {name}:", *ml]
        lvl = rng.choice(["DEBUG", "INFO", "WARN"])
        comp = rng.choice(["config", "auth", "http", "main"])
        return [f"{ts} {lvl} [{comp}] {name}={v}"]
    # text
    return [f"{name}:", *ml] if pem else [f"{name}: {v}"]


def render(plant: Plant, fam: str, rng: random.Random) -> str:
    if plant.line is not None and fam in plant.line_fams and (not plant.pairs or
                                                              rng.random() < 0.6):
        line = plant.line
        if fam == "docker":
            line = "RUN " + line.replace("\n", " \\\n    ")
        elif fam == "md":
            line = "```\n" + line + "\n```" if rng.random() < 0.6 else line
        elif fam == "yaml":
            line = f"command: {json.dumps(line)}"
        return line
    out: list[str] = []
    for name, v in plant.pairs:
        out += render_pair(fam, style(name, fam, rng), v, plant.pem, rng)
    if fam == "md" and not plant.pem and rng.random() < 0.5:
        out = ["```", *out, "```"] if out[0][:1] not in "-|" else out
    return "\n".join(out)


def wrap_tail(fam: str, body: str, rng: random.Random) -> str:
    """A tail insertion that must live inside a class (Java, C#)."""
    name = rng.choice(["Secrets", "Credentials", "LocalConfig", "DevSettings"])
    if fam == "java":
        return f"final class {name} {{\n{body}\n}}"
    if fam == "csharp":
        return f"internal static class {name}\n{{\n{body}\n}}"
    return body
