"""Passwords: the field names and syntaxes that carry them, a generator, and the detector.

A password is flagged when a password-like *field name* (``password``, ``passwd``, ``pwd``,
``pass``, ``secret``, ``credentials``, prefixed names such as ``MYSQL_ROOT_PASSWORD``,
``spring.datasource.password``, ``dbPassword``, and a few non-English names) is set to a value a
person could log in with, in any of the syntaxes config files and code use (``name: v``,
``name = "v"``, ``"name": "v"``, ``<name>v</name>``, ``name="v"`` attributes, .NET
``key="Password" value="v"``, ``--name=v`` / ``--name v`` flags, ``mysql -pv``, ``Password=v;`` in
connection strings, a CSV column headed by such a name, Markdown bullets and table rows
(``- **DB password**: `v` ``, ``| Password | `v` |``), a C macro ``#define DB_PASSWORD "v"``,
``sshpass -p v``), or is the password part of a URL ``scheme://user:pass@host``. The generator
writes the same forms, and URLs to hosts composed at random (service, role, index, zone, IPv4,
IPv6), so no fixed host list stands in for the password. Not flagged (``secret_like`` and ``placeholder``): placeholders
(``changeme``, ``<password>``, ``${DB_PASSWORD}``, ``%(pw)s``, ``{{ .Values.pw }}``, ``***``,
``xxx``), environment and code references, plain words and names, paths, and *hashes* (md5 /
sha1 / sha256 hex, bcrypt, argon2, crypt ``$6$``, ``{SSHA}``): the corpus's convention since its
first version is that a stored hash is not a password leak (look-alikes carry hashes as
negatives), so ``password_hash: $2b$12$...`` is a negative. A value that is a provider token is
an API key, not a password. Not here: where a line goes in a host file (``place``).
"""

from __future__ import annotations

import random
import re
import string
from collections.abc import Iterator

from picohead.data.risk import tokens
from picohead.data.risk.common import FIRST, rand

# The last word of a field name that holds a password (case-insensitive; non-English names in UTF-8).
_WORDS = ("password", "passwd", "passphrase", "passcode", "pass", "pwd", "pword", "secret",
          "credentials", "credential", "senha", "mot-de-passe", "contrase\u00f1a", "contrasena", "passwort",
          "kennwort", "mot_de_passe", "motdepasse", "wachtwoord", "parola", "haslo", "has\u0142o",
          "l\u00f6senord", "salasana", "\u043f\u0430\u0440\u043e\u043b\u044c", "\u5bc6\u7801",
          "\u30d1\u30b9\u30ef\u30fc\u30c9")
_WORD_RE = b"|".join(re.escape(w.encode()) for w in sorted(_WORDS, key=len, reverse=True))
# A field name: optional components joined by ``_ . -`` or a camelCase hump, then the word, which
# ends the name (``password_hash`` and ``passwordFile`` are other fields).
NAME = (rb"(?:(?<![A-Za-z0-9])|(?<=[_.\-])|(?<=[a-z0-9])(?=[A-Z]))"
        rb"(?i:[a-z0-9]{0,20}(?:password|passwd|passphrase|passwort|kennwort)|" + _WORD_RE + rb")"
        rb"(?![A-Za-z0-9_])")  # lower-case compounds such as ``pgpassword`` too
_PREFIX = rb"[A-Za-z0-9_.:\-]{0,40}?"  # the rest of a field name before its password word
_VALUE = rb"(?P<v>[^\s\"'<>;`]{1,200})"
_FORMS = (
    # name: value / name = "value" / "name": "value" / name => 'value' / name := value / [name] = value
    # (a type may sit between: ``password: &str =``, ``password: string =``, ``password string =``)
    # (Markdown: ``- **DB password**: `value` ``, the name emphasised and the value in backticks)
    rb"(?P<n>" + NAME + rb")(?:[\"'\]]|\*{1,2})?(?:[ \t]*:[ \t]*&?(?:'static[ \t]+)?[A-Za-z_][\w<>\[\]]*|[ \t]+[A-Za-z_]\w*)?"
    rb"[ \t]*(?::=|=>|==?|:)[ \t]*(?:(?:\*{1,2}|_{1,2})[ \t]*)?(?:[rbuf]?[\"']|\"\"\"|'|`)?" + _VALUE,
    # a Markdown table row ``| DB password | `value` |``
    # (a row starts its line, and a cell holds no ``|``: ``(pass|port|...)`` is a regex)
    rb"(?m:^)[ \t]*\|[ \t]*(?:\*\*)?`?(?:[\w.\-]{1,20}[ \t]){0,2}" + _PREFIX + NAME
    + rb"`?(?:\*\*)?[ \t]*\|[ \t]*`?(?P<v>[^\s\"'<>;`|]{1,200})`?[ \t]*\|",
    # a C/C++ macro or shell-less constant ``#define DB_PASSWORD "value"``
    rb"#[ \t]*define[ \t]+" + _PREFIX + NAME + rb"[ \t]+[LuU8]*\"" + _VALUE,
    # ("password", "value") pairs: SQL VALUES, tuples, map literals, put("password", "value")
    rb"[\"']" + _PREFIX + NAME + rb"[\"'][ \t]*,[ \t]*[rbuf]?[\"']" + _VALUE,
    rb"<(?P<tag>" + _PREFIX + NAME + rb")(?:\s[^>]*)?>" + _VALUE + rb"</",  # <password>value</password>
    rb"(?i:key|name)=[\"'][^\"']{0,40}?" + NAME + rb"[\"']\s+(?i:value)=[\"']" + _VALUE,  # .NET appSettings
    rb"(?<![A-Za-z0-9-])--" + _PREFIX + NAME + rb"\s+[\"']?" + _VALUE,  # --password value
    rb"\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]{0,80}?\s-p(?P<cli>[^\s\"']{1,64})",  # mysql -pSECRET
    rb"\bsshpass\s+-p\s*[\"']?" + _VALUE,
    rb"://(?P<user>[A-Za-z0-9._%+-]{0,64}):" + rb"(?P<url>[^@\s/:\"'<>]{1,128})@[A-Za-z0-9\[.-]",  # URL
)
_PATTERNS = tuple(re.compile(p) for p in _FORMS)
_NAME_RE = re.compile(rb"\A" + _PREFIX + NAME + rb"\Z")

_WORD_IN = re.compile(r"(?i)password|passwd|secret|credential")
_PASSWORD_SYMBOLS = frozenset("!#$%^&*+=~@|?")
_PLACEHOLDER_WORDS = re.compile(
    r"(?i)change[_-]?me|changeit|your[_-]?(?:own[_-]?)?(?:pass|pwd|secret)|placeholder|redacted|"
    r"example|dummy|sample|secret[_-]?here|password[_-]?here|insert[_-]|replace[_-]?(?:me|with)|"
    r"^(?:none|null|nil|undefined|true|false|string|str|required|optional|empty|hidden|masked|"
    r"secret|password|passwd|pass|notset|unset|todo|fixme|xxx+|tbd|n/?a)$")
_REFERENCE = re.compile(
    r"^(?:\$|%\(|%[A-Za-z_]+%|\{|<|\[\[|@@|ENC\(|os\.|env\.|ENV\[|process\.env|System\.getenv|"
    r"getenv|Environment\.|config\.|settings\.|vault:|secretRef|ref\+|\(|self\.|this\.|args\.|opts\.|"
    r"params\.|request\.|req\.|input\(|getpass)")
_HASH = re.compile(
    r"^(?:\$(?:2[abxy]?|1|5|6|y|argon2(?:id|i|d)|apr1|pbkdf2(?:-sha\d+)?|scrypt|sha\d+)\$.*|"
    r"\{(?:SSHA|SHA|MD5|SMD5|CRYPT|SSHA256|SSHA512|PBKDF2)\}.*|"
    r"(?:pbkdf2_sha\d+|argon2|bcrypt|scrypt|sha\d+|md5)[$:].*|"
    r"[0-9a-fA-F]{32}|[0-9a-fA-F]{40}|[0-9a-fA-F]{56}|[0-9a-fA-F]{64}|[0-9a-fA-F]{96}|[0-9a-fA-F]{128})$")


def placeholder(value: str) -> bool:
    """Whether ``value`` stands for a password without being one: a template or environment
    reference, a placeholder word, a mask (``***``, ``xxxx``), or a stored hash."""
    s = value.strip()
    if not s or _REFERENCE.match(s) or _HASH.match(s) or _PLACEHOLDER_WORDS.search(s):
        return True
    return len(set(s)) <= 2 or s.startswith(("/", "./", "../", "~/")) or re.match(r"^[A-Za-z]:\\", s) is not None


def secret_like(value: bytes) -> bool:
    """Whether a password-shaped value could be a real secret rather than a placeholder or a name.

    Help texts, man pages and type signatures say ``--password=SALASANA``, ``passwd: compat``,
    ``password: String``, ``password: "user_password``, ``group_name:password:GID:user_list``,
    ``Password = proplists:get_value(password, ...)`` or ``user:password@host``: words, field
    names and calls, not secrets. A value of 6 or more characters counts when it has a digit, a
    password symbol (``!#$%^&*+=~@|?``), is a passphrase of three or more lower-case words joined
    by hyphens, or has a field (between ``:,;/``) that is not a name: a name is words joined by
    ``_`` or ``-`` that share one case (``user_list``, ``MOT_DE_PASSE``, ``Component``), so
    ``hKQCsxVn`` and ``OZR_syi_Wcb`` count. A parenthesis (a call), a placeholder, a reference or
    a hash never counts. Weak real passwords made of one plain word are missed.
    """
    raw = value.decode("utf-8", "replace")
    s = raw.strip(",.;:/()[]{}?")
    if len(s) < 6 or not s.strip("_-") or "(" in s or ")" in s or placeholder(s) or placeholder(raw):
        return False
    if tokens.is_token(value):  # a provider token is flagged as an API key
        return False
    if _WORD_IN.search(s) or re.fullmatch(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+", s):
        return False  # a variable (``clientSecret: clientSecret``) or a dotted reference
    if any(c.isdigit() for c in s) or any(c in _PASSWORD_SYMBOLS for c in s):
        return True
    if re.fullmatch(r"[a-z]+(?:-[a-z]+){2,}", s):
        return True
    return not all(_is_name(f) for f in re.split(r"[:,;/]+", s) if f)


def _is_name(field: str) -> bool:
    """Words of letters joined by ``_``/``-``, all lower case, all upper case or all Title."""
    words = re.split(r"[_.-]+", field.strip("_-."))
    if not all(w.isalpha() for w in words):
        return False
    return any(all(test(w) for w in words) for test in (str.islower, str.isupper, str.istitle))


def _trim(v: bytes, lo: int) -> tuple[int, int]:
    """The span of a value without trailing punctuation that ends a statement (``,`` ``)`` ``]``)."""
    hi = lo + len(v)
    while hi > lo and v[hi - lo - 1 : hi - lo] in (b",", b")", b"]", b"}", b"."):
        hi -= 1
    return lo, hi


def find(w: bytes) -> Iterator[tuple[int, int]]:
    """Spans of the password values in ``w`` (a secret under a password name, in a URL, or in a
    password column of CSV/TSV lines)."""
    for pat in _PATTERNS:
        for m in pat.finditer(w):
            group = next(g for g in ("v", "cli", "url") if g in pat.groupindex and m.group(g) is not None)
            if "n" in pat.groupindex and m.group("n") in (b"PASS", b"Pass") and \
                    w[m.start("n") - 1 : m.start("n")] not in (b"_", b".", b"-") and \
                    re.fullmatch(rb"[ \t]*:[ \t]*", w[m.end("n") : m.start(group)]):
                continue  # a test log's ``PASS: test_name``
            if group == "url" and (m.group("url").startswith(b"//") or b"${" in m.group("user")):
                continue
            lo, hi = _trim(m.group(group), m.start(group))
            if secret_like(w[lo:hi]):
                yield lo, hi
    yield from _csv(w)


def _csv(w: bytes) -> Iterator[tuple[int, int]]:
    """Values under a password-named column of a CSV/TSV header in the next few rows."""
    lines = w.split(b"\n")
    offsets = [0]
    for ln in lines:
        offsets.append(offsets[-1] + len(ln) + 1)
    for i, ln in enumerate(lines):
        sep = next((s for s in (b",", b"\t", b";", b"|") if ln.count(s) >= 1), None)
        if sep is None or len(ln) > 300:
            continue
        head = [f.strip().strip(b"\"'") for f in ln.split(sep)]
        cols = [j for j, f in enumerate(head) if _NAME_RE.match(f)]
        if not cols:
            continue
        for k in range(i + 1, min(i + 6, len(lines))):
            row = lines[k].split(sep)
            if len(row) != len(head):
                break
            pos = offsets[k]
            starts = [pos]
            for f in row:
                starts.append(starts[-1] + len(f) + 1)
            for j in cols:
                cell = row[j].strip().strip(b"\"'")
                if cell and secret_like(cell):
                    lo = offsets[k] + lines[k].find(cell, starts[j] - pos)
                    yield lo, lo + len(cell)


# -- generation ----------------------------------------------------------------------------------
FIELD_NAMES = (
    "password", "PASSWORD", "Password", "passwd", "PASSWD", "pwd", "PWD", "pass", "PASS",
    "db_password", "DB_PASSWORD", "DB_PASS", "db_pass", "dbPassword", "DATABASE_PASSWORD",
    "MYSQL_ROOT_PASSWORD", "MYSQL_PASSWORD", "POSTGRES_PASSWORD", "PGPASSWORD", "REDIS_PASSWORD",
    "RABBITMQ_DEFAULT_PASS", "SMTP_PASSWORD", "smtp_pass", "mail_password", "EMAIL_HOST_PASSWORD",
    "admin_password", "adminPassword", "ROOT_PASSWORD", "user_password", "userPassword",
    "ldap_bind_password", "keystore_password", "KEYSTORE_PASS", "truststore.password",
    "spring.datasource.password", "jdbc.password", "database.password", "mongo_password",
    "ftp_password", "wifi_password", "vpn_passphrase", "passphrase", "ssh_passphrase",
    "proxy_password", "api_secret", "client_secret", "secret", "SECRET", "app_secret",
    "credentials", "registry_password", "DOCKER_PASSWORD", "ELASTIC_PASSWORD", "GRAFANA_ADMIN_PASSWORD",
    "senha", "passwort", "kennwort", "contrase\u00f1a", "mot_de_passe", "wachtwoord", "parola",
    "\u043f\u0430\u0440\u043e\u043b\u044c", "\u5bc6\u7801")
SCHEMES = ("postgres", "postgresql", "mysql", "mariadb", "mongodb", "mongodb+srv", "redis",
           "rediss", "amqp", "amqps", "ftp", "sftp", "smtp", "smtps", "imap", "ldap", "ldaps",
           "mssql", "sqlserver", "oracle", "jdbc:mysql", "jdbc:postgresql", "https", "http",
           "git+https", "ssh", "nats", "kafka", "couchdb", "neo4j", "clickhouse", "cockroachdb")
_WORDLIST = ["Summer", "dragon", "Winter", "monkey", "Sunshine", "qwerty", "Passw0rd", "hunter",
             "Tr0ub4dor", "letmein", "Galaxy", "falcon", "Autumn", "shadow", "Phoenix", "tiger",
             "Orange", "castle", "Maple", "river"]


def value(rng: random.Random) -> str:
    """A fresh password: random characters, a word + digits + symbol, a passphrase, or a pattern."""
    k = rng.randrange(6)
    if k == 0:
        return rand(rng, rng.randrange(10, 24), string.ascii_letters + string.digits + "!#%^&*-_")
    if k == 1:
        return rng.choice(_WORDLIST) + str(rng.randrange(10, 9999)) + rng.choice("!#$%&*?")
    if k == 2:
        return "-".join(rng.choice(_WORDLIST).lower() for _ in range(rng.choice([3, 4])))
    if k == 3:
        return rand(rng, rng.randrange(8, 13), string.ascii_lowercase) + str(rng.randrange(1, 999))
    if k == 4:
        return rand(rng, rng.randrange(16, 33), string.ascii_letters + string.digits)
    return rng.choice(_WORDLIST) + rng.choice(["@", "#", "_", "."]) + str(rng.randrange(2000, 2031))


_SERVICE = ("db", "pg", "postgres", "mysql", "maria", "mongo", "redis", "cache", "rabbit", "mq",
            "broker", "kafka", "queue", "sql", "ldap", "smtp", "mail", "ftp", "files", "es", "search",
            "api", "auth", "backend", "data", "warehouse", "analytics", "store", "vault")
_ROLE = ("", "", "primary", "replica", "master", "main", "ro", "rw", "prod", "staging", "dev", "int")
_ZONE = ("internal", "local", "lan", "svc", "cluster.local", "corp", "intra", "priv", "cloud", "io",
         "net", "com", "de", "co.uk", "org")
_USERS = ("admin", "app", "postgres", "root", "svc_backend", "deploy", "", "sa", "guest", "web",
          "worker", "etl", "reader", "writer", "service", "api", "ops", "mongo", "rabbit", "mailer")
_URL_TAILS = ("", "/", "/app", "/prod", "/main", "/0", "/1", "/vhost", "/%2F", "/db?sslmode=require",
              "/admin?authSource=admin", "/?retryWrites=true&w=majority", "/orders", "/inbox",
              "/crm?charset=utf8mb4", "/?ssl=true", "/jobs")


def host(rng: random.Random) -> str:
    """A database/broker host as configs name it: a service name with a role, index, region or
    domain, a private or public IPv4 address, an IPv6 literal, or a bare name."""
    k = rng.randrange(6)
    if k == 0:
        return rng.choice(["10", "172", "192"]) + "." + ".".join(str(rng.randrange(256)) for _ in range(3))
    if k == 1:
        return f"[fd{rng.randrange(16, 256):02x}::{rng.randrange(1, 999)}]"
    parts = [rng.choice(_SERVICE)]
    if rng.random() < 0.5:
        parts[0] += rng.choice(["", "-", "_"]) + (rng.choice(_ROLE) or str(rng.randrange(1, 10)))
    if rng.random() < 0.4:
        parts[0] += rng.choice(["-", ""]) + f"{rng.randrange(0, 20):0{rng.choice([1, 2])}d}"
    if k == 2:
        return parts[0]
    if rng.random() < 0.5:
        parts.append(rng.choice(_ROLE[2:] + ("eu-west-1", "us-east-2", "shard0", "rds", "svc", "ops")))
    if k == 3:
        parts.append(rand(rng, rng.randrange(4, 10), string.ascii_lowercase))
    parts.append(rng.choice(_ZONE))
    return ".".join(p for p in parts if p)


def url(rng: random.Random, pw: str) -> str:
    """``scheme://user:pw@host[:port][/path][?query]`` with ``pw`` kept free of URL delimiters."""
    user = rng.choice(_USERS + (rng.choice(FIRST), rand(rng, rng.randrange(3, 9), string.ascii_lowercase)))
    pw = re.sub(r"[@/:#?\s]", "", pw) or "s3cr3t-pw"
    if rng.random() < 0.1:  # a percent-encoded symbol, as URL-safe configs write them
        pw += rng.choice(["%40", "%21", "%23", "%24"]) + str(rng.randrange(10, 99))
    port = f":{rng.randrange(1000, 65535)}" if rng.random() < 0.7 else ""
    return f"{rng.choice(SCHEMES)}://{user}:{pw}@{host(rng)}{port}{rng.choice(_URL_TAILS)}"


def password(rng: random.Random) -> tuple[str, str]:
    """(field name, value): a fresh password under a password field name, or a connection URL."""
    pw = value(rng)
    if rng.random() < 0.3:
        return rng.choice(["DATABASE_URL", "REDIS_URL", "dsn", "connection_string", "BROKER_URL",
                           "MONGO_URI", "uri"]), url(rng, pw)
    return rng.choice(FIELD_NAMES), pw


def syntax(name: str, value: str, rng: random.Random) -> str:
    """``name`` set to ``value`` in a config or command syntax that ``place.assignment`` does not
    write for a language: INI, TOML, .env, XML tag/attribute, .NET appSettings, docker-compose
    environment, a Kubernetes Secret's stringData, a CSV header and row, shell export, CLI flags,
    a SQL connection string, a Java .properties line."""
    low = name.lower()
    forms = [
        f"[database]\nhost = db.internal\n{low} = {value}",  # INI
        f'[auth]\n{low} = "{value}"',  # TOML
        f"{name.upper()}={value}",  # .env
        f"<{low}>{value}</{low}>",  # XML tag
        f'<connection host="db.internal" user="app" {low}="{value}"/>',  # XML attribute
        f'<add key="{name}" value="{value}" />',  # .NET appSettings
        f"    environment:\n      - {name.upper()}={value}",  # docker-compose list
        f"    environment:\n      {name.upper()}: \"{value}\"",  # docker-compose map
        f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: app-secrets\ntype: Opaque\nstringData:\n  {low}: {value}",
        f"username,{low},role\n{rng.choice(FIRST)},{value},{rng.choice(['admin', 'dev', 'ops'])}",  # CSV
        f"export {name.upper()}='{value}'",
        f"--{low.replace('_', '-')}={value}",
        f"--{low.replace('_', '-')} '{value}'",
        f"mysql -u root -p{value} -h db.internal app",
        f"Server=db.internal;Database=app;User Id=sa;Password={value};",
        f"{low}: '{value}'",  # YAML single-quoted
        f'{low}: "{value}"',  # YAML double-quoted (docker-compose, Ansible, Helm values)
        f'  {low}: "{value}"',  # the same, nested
        f"{low}: {value}",  # YAML plain
        f"{name}={value}",  # .properties
    ]
    words = name.replace("_", " ").replace(".", " ").replace("-", " ")
    if "mot" in name.lower():  # ``mot de passe`` is no field name, ``mot_de_passe`` is
        words = name
    capital = name.isascii() and rng.random() < 0.6  # the detector folds case in ASCII only
    prose = words[:1].upper() + words[1:].lower() if capital else words
    user = rng.choice(_USERS[:6] + (rng.choice(FIRST),)) or "admin"
    forms += [  # documentation (Markdown) and commands, for names in any language
        f"- **{prose}**: `{value}`",  # Markdown bullet
        f"* {prose}: `{value}`",
        f"| {rng.choice([prose, name, '`' + name + '`'])} | `{value}` |",  # Markdown table row
        f"| User | `{user}` |\n| {prose} | `{value}` |",
        f"**{prose}:** {value}",
    ]
    ascii_forms = [  # ASCII names only: code constants and command lines
        f'#define {name.upper().replace(".", "_")} "{value}"',  # C/C++ macro
        f"sshpass -p '{value}' ssh {user}@10.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(1, 255)}",
        f"mysql -h {host(rng)} -u {user} --password='{value}'",
        f"```\nmysql -u {user} -p{value} app\n```",
    ]
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):  # non-ASCII names: key: value and prose forms only
        return rng.choice(forms[15:])
    return rng.choice(forms + ascii_forms)


def hashed(rng: random.Random) -> str:
    """A stored password hash (a negative under a password name by the corpus's convention)."""
    import hashlib

    s = str(rng.random()).encode()
    b64 = string.ascii_letters + string.digits + "./"
    return rng.choice([
        f"$2b${rng.choice([10, 12, 14])}${rand(rng, 53, b64)}",
        f"$argon2id$v=19$m=65536,t=3,p=4${rand(rng, 22, b64)}${rand(rng, 43, b64)}",
        f"$6${rand(rng, 16, b64)}${rand(rng, 86, b64)}",
        hashlib.md5(s).hexdigest(), hashlib.sha1(s).hexdigest(), hashlib.sha256(s).hexdigest(),
        f"{{SSHA}}{rand(rng, 32, b64)}",
        f"pbkdf2_sha256$600000${rand(rng, 22)}${rand(rng, 43, b64)}="])


PLACEHOLDERS = ("changeme", "<password>", "${DB_PASSWORD}", "%(pw)s", "{{ .Values.db.password }}",
                "***", "********", "xxx", "xxxxxxxx", "$DB_PASSWORD", "%DB_PASSWORD%",
                "os.getenv('DB_PASSWORD')", "process.env.DB_PASSWORD", "ENV['DB_PASSWORD']",
                "System.getenv(\"DB_PASSWORD\")", "None", "null", "your_password_here",
                "<your-password>", "${{ secrets.DB_PASSWORD }}", "{{ db_password }}", "REDACTED",
                "[hidden]", "CHANGE_ME", "example", "String", "required", "secretRef")
