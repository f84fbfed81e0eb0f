"""The screen: ``detect`` says which risk flags a text seems to carry.

Broad on purpose: it decides which host files are safe to plant into (a host with any hit is
dropped) and it checks the templates and look-alikes. What it does not do: validate a finding
(a checksum, a live key) or locate it; it returns the set of flags only.
"""

from __future__ import annotations

import html
import re

# -- the screen ----------------------------------------------------------------------------------
EXAMPLE_DOMAIN = re.compile(
    r"(^|\.)(example\.(com|org|net)|example|test|invalid|localhost|local|lan|internal|"
    r"localdomain|domain\.com|email\.com)$", re.I)
PLACEHOLDER = re.compile(
    r"^(|changeme|change[-_]?me|secret|password|passwd|pass|xxx+|\*+|x+|\.\.\.|null|none|nil|"
    r"true|false|todo|tbd|redacted|<[^>]*>|\$\{[^}]*\}|\$\(.*\)|\$[A-Za-z_]\w*|%\(?\w+\)?s?|"
    r"\{\{.*\}\}|your[-_ ].*|replace[-_ ]?me|.*[-_]here|example.*|dummy|placeholder|"
    r"os\.environ.*|process\.env.*|env\(.*|getenv\(.*|System\.getenv.*|ENV\[.*|"
    r"Environment\..*|std::env.*|os\.Getenv.*|config\(.*|settings\..*|"
    r"(?i:[a-z_]*(min|max)[a-z_]*|\d{1,3}))$", re.I)
TOKEN_RES = [re.compile(p) for p in (
    r"\b(AKIA|ASIA)(?!IOSFODNN7EXAMPLE)[A-Z2-7]{16}(?![\w-])",
    r"\bgh[pousr]_[A-Za-z0-9]{36}(?![\w-])", r"\bgithub_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}(?![\w-])",
    r"\bglpat-[A-Za-z0-9_-]{20}(?![\w-])", r"\bxox[bpaer]-[0-9A-Za-z-]{20,}",
    r"hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{20,}",
    r"\b[sr]k_live_[A-Za-z0-9]{20,}", r"\bAIza[0-9A-Za-z_-]{35}(?![\w-])",
    r"\bsk-(proj-|ant-api03-)?[A-Za-z0-9_-]{40,}", r"\bnpm_[A-Za-z0-9]{36}(?![\w-])",
    r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}", r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![\w-])",
    r"\bSK[0-9a-f]{32}(?![\w-])", r"\bkey-[0-9a-f]{32}(?![\w-])", r"\bHRKU-[A-Za-z0-9_-]{40,}",
    r"\bshpat_[0-9a-f]{32}(?![\w-])", r"\bdop_v1_[0-9a-f]{64}(?![\w-])", r"\bhf_[A-Za-z]{34}(?![\w-])",
    r"\bdapi[0-9a-f]{32}(?![\w-])", r"AccountKey=[A-Za-z0-9+/]{86}==", r"\b\d{8,10}:AA[A-Za-z0-9_-]{33}(?![\w-])",
    r"\bPMAK-[0-9a-f]{24}-[0-9a-f]{34}(?![\w-])", r"\blin_api_[A-Za-z0-9]{40}(?![\w-])",
    r"(?i)aws_secret_access_key\W{1,4}(?![A-Za-z0-9/+]*EXAMPLE)[A-Za-z0-9/+]{40}(?![\w-])")]
JWT_RE = re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}")
PEM_RE = re.compile(r"-----BEGIN (RSA |EC |DSA |OPENSSH |ENCRYPTED )?PRIVATE KEY-----")
EMAIL_RE = re.compile(r"(?<![\w.+-])[A-Za-z0-9][\w.+-]*@((?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,})\b")
PHONE_RE = re.compile(
    r"(?<![\w+/.:-])(\+[1-9]\d{9,14}|\+[1-9]\d{0,2}[ -]?(\(0\)[ -]?)?\(?\d{1,4}\)?([ -]\d{2,8}){1,4}"
    r"|\(\d{2,4}\) ?\d{3,5}-\d{4}|\d{3}-\d{3}-\d{4}|0\d{1,4}[ -]\d{3,4}[ -]\d{3,4}"
    r"|0\d \d\d \d\d \d\d \d\d|0\d{2,3}-\d{3,4}-\d{4}|0\d{4} \d{6})(?![\w/.:-])")
PW_KEYS = (r"pass(word|wd|phrase)?|pwd|secret(_?key)?|client_?secret|db_?pass(word)?|"
           r"pgpassword|mysql_pwd|passcode")
PW_ASSIGN = re.compile(
    r"(?i)(?<![A-Za-z])[\w.-]*(?:" + PW_KEYS + r")(?![A-Za-z0-9])"
    r"(?:\s*:\s*(?:&str|&'static str|string|String)\s*=\s*[\"']?"
    r"|[\"']?\s*\{\s*\n\s*default\s*=\s*[\"']?|[\"']?\s+(?:content|value)=[\"']?"
    r"|[\s\"'=:>|,\[\]()`*]{1,12})"
    r"(?P<val>[^\s\"'<>,;`|&][^\s\"'<>,;`|]{3,})")
SQL_PW = re.compile(r"(?i)(identified by|with password)\s+'([^']{4,})'")
URL_PW = re.compile(r"[a-z][a-z0-9+.-]*://[^:/\s@]+:([^@\s/]+)@[\w.-]+")
CLI_PW = re.compile(r"(--password[= ]|--pass[= ]| -p'|sshpass -p |PGPASSWORD=|-p \"| -a | -u \w+:)"
                    r"(['\"]?)"
                    r"([^\s'\"]{4,})")
CONN_PW = re.compile(r"(?i)(password|pwd)=([^;\s\"']{4,})")


def _pw_value(v: str) -> bool:
    v = v.strip("\"'`,;):")
    if PLACEHOLDER.match(v) or len(v) < 4 or v.endswith("=") or v.startswith(("$", "{{", "<", "%(", "-----")):
        return False
    if any(r.search(v) for r in TOKEN_RES) or JWT_RE.search(v):
        return False
    if re.fullmatch(r"[\w.]+\(.*|[\w]+\.[\w.]+|[A-Z_]{4,}|[a-z_]+", v):
        return False  # a call, an attribute, a constant name, a bare word
    return True


def detect(text: str) -> set[str]:
    """The flags this module's own screen sees in ``text`` (broad on purpose: it decides which
    host files are safe to plant into, and it checks the templates)."""
    found: set[str] = set()
    text = html.unescape(text) if "&" in text else text
    if any(r.search(text) for r in TOKEN_RES):
        found.add("api_key")
    if JWT_RE.search(text):
        found.add("jwt")
    if PEM_RE.search(text):
        found.add("private_key")
    for m in EMAIL_RE.finditer(text):
        dom = m.group(1).lower()
        token = re.split(r"[\s\"'`<>(|]", text[max(0, m.start() - 200):m.start()])[-1]
        if "://" in token:
            continue  # the user:password@host part of a URL
        if not EXAMPLE_DOMAIN.search(dom) and not re.search(r"\.(png|jpe?g|gif|svg|js|css)$", dom):
            found.add("email")
            break
    if PHONE_RE.search(text):
        found.add("phone")
    pw = any(_pw_value(m.group('val')) for m in PW_ASSIGN.finditer(text))
    pw = pw or any(_pw_value(m.group(1)) for m in URL_PW.finditer(text))
    pw = pw or any(_pw_value(m.group(3)) for m in CLI_PW.finditer(text))
    pw = pw or any(_pw_value(m.group(2)) for m in CONN_PW.finditer(text))
    pw = pw or any(_pw_value(m.group(2)) for m in SQL_PW.finditer(text))
    if pw:
        found.add("password")
    return found
