"""The positive templates: JWTs, passwords, e-mail addresses, phones, and the ``POSITIVE`` table.

Each template returns a ``Plant`` labelled with the flags it carries; ``POSITIVE`` maps a flag to
its templates (the ``api_key`` ones come from ``tokens``, private keys from ``keys``). What it does
not do: render the plant in a family's syntax (``render``) or screen the result (``screen``).
"""

from __future__ import annotations

import random
import re
import uuid
from collections.abc import Callable
from typing import Any

from picohead.wild.sources.risk.render import Plant
from picohead.wild.sources.risk.tokens import API_TEMPLATES, make_jwt
from picohead.wild.sources.risk.values import (
    ALNUM,
    HOSTS,
    PHONE_FORMATS,
    URLSAFE,
    email,
    password,
    person,
    rs,
)


def _jwt_value(r: random.Random) -> str:
    alg = r.choice(["HS256", "HS256", "HS384", "HS512", "RS256", "ES256"])
    hdr: dict[str, Any] = {"alg": alg, "typ": "JWT"}
    if r.random() < 0.4:
        hdr["kid"] = rs(r, URLSAFE, 16)
    now = r.randint(1_600_000_000, 1_760_000_000)
    pl: dict[str, Any] = {"sub": str(uuid.UUID(int=r.getrandbits(128), version=4))
                          if r.random() < 0.5 else str(r.randint(1000, 999999)),
                          "iat": now, "exp": now + r.choice([900, 3600, 86400, 2592000])}
    if r.random() < 0.5:
        pl["iss"] = r.choice(["https://auth.brightpath.co", "api-gateway", "https://sso.kestrel"
                              "-labs.dev/realms/main", "accounts.northwind-logistics.io"])
    if r.random() < 0.5:
        pl["role"] = r.choice(["admin", "service", "reader", "authenticated"])
    if r.random() < 0.3:
        pl["scope"] = "read write"
    return make_jwt(hdr, pl, r.randbytes(32))


def _jwt_assign(r: random.Random) -> Plant:
    t = _jwt_value(r)
    return Plant("jwt_assign", ["jwt"], [(r.choice(["access token", "jwt token", "auth token",
                                                   "id token", "service token", "bearer token",
                                                   "supabase service key", "refresh token"]), t)],
                 line=f'curl -H "Authorization: Bearer {t}" https://api.brightpath.co/v2/me')


def _jwt_header(r: random.Random) -> Plant:
    t = _jwt_value(r)
    return Plant("jwt_header", ["jwt"], [("authorization", f"Bearer {t}")],
                 line=r.choice([f"Authorization: Bearer {t}",
                                f"> GET /api/orders HTTP/1.1\n> Authorization: Bearer {t}",
                                f"http GET :8080/api/items 'Authorization:Bearer {t}'"]),
                 line_fams=("shell", "md", "log", "text", "docker"))


def _jwt_cookie(r: random.Random) -> Plant:
    t = _jwt_value(r)
    return Plant("jwt_cookie", ["jwt"], [("session cookie", t)],
                 line=f"Set-Cookie: session={t}; Path=/; HttpOnly; Secure",
                 line_fams=("md", "log", "text"))


def _jwt_url(r: random.Random) -> Plant:
    t = _jwt_value(r)
    u = f"https://app.brightpath.co/callback?access_token={t}&token_type=bearer"
    return Plant("jwt_url", ["jwt"], [("redirect url", u)], line=f"GET {u}",
                 line_fams=("log", "text", "md"))


def _pw_field(r: random.Random) -> Plant:
    f = r.choice(["password", "db password", "database password", "passwd", "pwd", "pass",
                  "admin password", "smtp password", "redis password", "root password",
                  "mysql password", "postgres password", "PGPASSWORD", "MYSQL_ROOT_PASSWORD",
                  "secret", "user password", "ldap bind password", "keystore password",
                  "rabbitmq password", "mail password", "DB_PASS", "ftp password"])
    pw = password(r)
    pairs = [(f, pw)]
    if r.random() < 0.5:
        user = re.sub(r"(?i)pass(word|wd)?|pwd", "user", f)
        pairs.insert(0, (user if user != f else "username", r.choice(["app", "svc_backup", "deploy", "admin",
                                                    "reporting", "etl_user"])))
    return Plant("password_field", ["password"], pairs)


def _pw_url(r: random.Random) -> Plant:
    pw = rs(r, ALNUM, r.randint(12, 24)) if r.random() < 0.5 else password(r).replace("@", "")\
        .replace("#", "").replace("?", "").replace("/", "")
    scheme, port, path = r.choice([("postgresql", 5432, "/app"), ("postgres", 5432, "/orders"),
                                   ("mysql", 3306, "/shop"), ("mongodb+srv", None, "/main"),
                                   ("redis", 6379, "/0"), ("amqp", 5672, "/vhost"),
                                   ("mssql", 1433, "/crm"), ("smtp", 587, "")])
    user = r.choice(["app", "admin", "reporting", "svc", "etl", "web"])
    host = r.choice(HOSTS) + (f":{port}" if port else "")
    url = f"{scheme}://{user}:{pw}@{host}{path}"
    return Plant("password_url", ["password"], [(r.choice(["database url", "db url",
                                                           "connection string", "broker url",
                                                           "dsn", "cache url"]), url)])


def _pw_cli(r: random.Random) -> Plant:
    pw = password(r).replace("'", "")
    line = r.choice([
        f"mysql -h {r.choice(HOSTS)} -u root --password='{pw}' < dump.sql",
        f"PGPASSWORD='{pw}' psql -h {r.choice(HOSTS)} -U postgres -c 'select 1'",
        f"sshpass -p '{pw}' ssh deploy@10.{r.randint(0, 255)}.{r.randint(0, 255)}.{r.randint(1, 254)}",
        f"docker login registry.brightpath.co -u ci --password '{pw}'",
        f"mongosh --username admin --password '{pw}' --host {r.choice(HOSTS)}",
        f"redis-cli -h {r.choice(HOSTS)} -a '{pw}' ping",
        f"curl -u admin:{pw.replace(':', '')} https://ci.kestrel-labs.dev/api/json",
        f"pg_dump --dbname=postgresql://backup:{pw.replace('@', '').replace(':', '')}@"
        f"{r.choice(HOSTS)}/app > app.sql"])
    return Plant("password_cli", ["password"], [("command", line)], line=line,
                 line_fams=("shell", "docker", "md", "log", "text", "yaml"))


def _pw_connstr(r: random.Random) -> Plant:
    pw = password(r).replace(";", "").replace("'", "").replace('"', "")
    cs = r.choice([f"Server={r.choice(HOSTS)};Database=Orders;User Id=sa;Password={pw};"
                   "TrustServerCertificate=True",
                   f"Host={r.choice(HOSTS)};Port=5432;Database=app;Username=app;Password={pw}",
                   f"Data Source={r.choice(HOSTS)};Initial Catalog=crm;User ID=crm;"
                   f"Password={pw};"])
    return Plant("password_connstr", ["password"], [("default connection", cs)])


def _email(r: random.Random) -> Plant:
    e = email(r)
    f = r.choice(["email", "contact email", "admin email", "support email", "maintainer email",
                  "owner", "notify email", "billing email", "reply to", "from address"])
    return Plant("email_field", ["email"], [(f, e)])


def _email_line(r: random.Random) -> Plant:
    name, _ = person(r)
    e = email(r)
    line = r.choice([f"Maintainer: {name} <{e}>", f"Contact {name} at {e} for access.",
                     f"Signed-off-by: {name} <{e}>", f"Questions? Write to {e}.",
                     f"Reported-by: {e}", f"INFO user login ok user={e} ip=10.2.3.4"])
    return Plant("email_line", ["email"], [("maintainer", f"{name} <{e}>")], line=line,
                 line_fams=("md", "log", "text", "shell", "docker"))


def _phone(r: random.Random) -> Plant:
    fid, fmt = r.choice(PHONE_FORMATS)
    p = fmt(r)
    f = r.choice(["phone", "phone number", "mobile", "contact phone", "tel", "support phone",
                  "emergency contact", "fax", "cell", "on call phone"])
    return Plant(f"phone_{fid}", ["phone"], [(f, p)],
                 line=r.choice([f"Call us: {p}", f"Phone: {p}", f"On-call: {p} (24/7)",
                                f"Tel. {p}", f"SMS alerts go to {p}"]),
                 line_fams=("md", "log", "text"))


def _contact(r: random.Random) -> Plant:
    name, _ = person(r)
    fid, fmt = r.choice(PHONE_FORMATS)
    return Plant("contact_card", ["email", "phone"],
                 [("contact name", name), ("contact email", email(r)), ("contact phone", fmt(r))])


def _smtp(r: random.Random) -> Plant:
    e = email(r)
    return Plant("smtp_login", ["email", "password"],
                 [("smtp user", e), ("smtp password", password(r))])


POSITIVE: dict[str, list[Callable[[random.Random], Plant]]] = {
    "api_key": API_TEMPLATES,
    "jwt": [_jwt_assign, _jwt_assign, _jwt_header, _jwt_cookie, _jwt_url],
    "password": [_pw_field, _pw_field, _pw_field, _pw_url, _pw_url, _pw_cli, _pw_connstr, _smtp],
    "email": [_email, _email, _email_line, _contact],
    "phone": [_phone, _phone, _phone, _contact],
}
