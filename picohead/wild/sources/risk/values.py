"""Made-up values for the risk templates: alphabets, names, e-mail addresses, passwords, phones.

Every maker draws only from the ``random.Random`` it is given, so a seed fixes its output. What it
does not do: format a value in a file's syntax (``render``) or decide where it goes (``plant``).
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable

B62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "-_"
HEX = "0123456789abcdef"
B32 = string.ascii_uppercase + "234567"


def rs(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


FIRST = ["jana", "lukas", "sofia", "mateo", "aiko", "ravi", "chloe", "tomasz", "ingrid", "kwame",
         "lucia", "omar", "hana", "pedro", "elif", "nikolai", "priya", "felix", "amara", "diego",
         "yuki", "marta", "oskar", "leila", "bram", "zoe", "arjun", "noemi", "henrik", "camila"]
LAST = ["novak", "schreiber", "moreau", "okafor", "tanaka", "sharma", "lindqvist", "kowalski",
        "haddad", "costa", "fischer", "nakamura", "oliveira", "petrov", "brennan", "duarte",
        "varga", "mensah", "ibarra", "keller", "rossi", "yilmaz", "dubois", "hughes", "silva"]
MAIL_DOMAINS = ["gmail.com", "outlook.com", "proton.me", "yahoo.co.jp", "web.de", "gmx.de",
                "orange.fr", "libero.it", "fastmail.com", "hotmail.co.uk", "icloud.com",
                "mail.ru", "qq.com", "uol.com.br", "seznam.cz", "wp.pl", "t-online.de",
                "northwind-logistics.io", "brightpath.co", "kestrel-labs.dev", "alpenbau.at",
                "medisys.com.au", "quantafin.in", "riverbend.ca", "nordlys.no", "hollandia.nl"]
WORDS = ["maple", "orbit", "velvet", "harbor", "cactus", "lantern", "quartz", "meadow", "falcon",
         "ember", "glacier", "saffron", "tundra", "copper", "willow", "nebula", "pepper", "cobalt"]
HOSTS = ["db.internal.corp", "10.20.4.17", "pg-primary.prod.svc", "mysql-01.eu-west-1.rds",
         "redis.cache.local", "mongo0.shard.cluster", "rabbitmq.ops.net", "172.16.9.40"]


def person(rng: random.Random) -> tuple[str, str]:
    f, last = rng.choice(FIRST), rng.choice(LAST)
    return f"{f.capitalize()} {last.capitalize()}", f"{f}.{last}"


def email(rng: random.Random) -> str:
    _, user = person(rng)
    user = rng.choice([user, user.replace(".", ""), user.split(".")[0] + str(rng.randint(7, 99)),
                       user[0] + user.split(".")[1], user.replace(".", "_")])
    return f"{user}@{rng.choice(MAIL_DOMAINS)}"


def password(rng: random.Random) -> str:
    k = rng.randrange(6)
    sym = "!@#%^&*?-_+"
    if k == 0:
        return rng.choice(WORDS).capitalize() + str(rng.randint(1970, 2029)) + rng.choice(sym)
    if k == 1:
        return rng.choice(ALNUM) + rs(rng, ALNUM + "!#%&*", rng.randint(11, 19))
    if k == 2:
        return "-".join(rng.sample(WORDS, 3)) + "-" + str(rng.randint(10, 99))
    if k == 3:
        w = rng.choice(WORDS)
        return (w.replace("a", "4").replace("e", "3").replace("o", "0").capitalize()
                + rng.choice(sym) + str(rng.randint(100, 999)))
    if k == 4:
        return rs(rng, ALNUM, rng.randint(24, 32))
    return rs(rng, string.ascii_lowercase, 4) + rs(rng, string.digits, 4) + rng.choice(sym) \
        + rs(rng, string.ascii_uppercase, 3)


def digits(rng: random.Random, n: int, first: str = "23456789") -> str:
    return rng.choice(first) + rs(rng, string.digits, n - 1)


PHONE_FORMATS: list[tuple[str, Callable[[random.Random], str]]] = [
    ("e164_us", lambda r: "+1" + digits(r, 3) + digits(r, 7)),
    ("us_paren", lambda r: f"({digits(r, 3)}) {digits(r, 3)}-{rs(r, string.digits, 4)}"),
    ("us_dash", lambda r: f"{digits(r, 3)}-{digits(r, 3)}-{rs(r, string.digits, 4)}"),
    ("us_intl", lambda r: f"+1 {digits(r, 3)} {digits(r, 3)} {rs(r, string.digits, 4)}"),
    ("uk_london", lambda r: f"+44 20 {digits(r, 4)} {rs(r, string.digits, 4)}"),
    ("uk_mobile", lambda r: f"07{r.choice('3456789')}{rs(r, string.digits, 2)} {digits(r, 6)}"),
    ("uk_national", lambda r: f"0{r.choice(['113', '121', '131', '161'])} {digits(r, 3)} "
                              f"{rs(r, string.digits, 4)}"),
    ("de_berlin", lambda r: f"+49 30 {digits(r, 8)}"),
    ("de_national", lambda r: f"0{r.choice(['89', '40', '69', '221'])} {digits(r, 3)} "
                              f"{rs(r, string.digits, 4)}"),
    ("de_mobile", lambda r: f"+49 (0)1{r.choice('567')}{rs(r, string.digits, 1)} "
                            f"{digits(r, 7)}"),
    ("fr_intl", lambda r: "+33 " + r.choice("1234567") + " " + " ".join(
        rs(r, string.digits, 2) for _ in range(4))),
    ("fr_national", lambda r: "0" + r.choice("1245679") + " " + " ".join(
        rs(r, string.digits, 2) for _ in range(4))),
    ("in_mobile", lambda r: f"+91 {r.choice('6789')}{rs(r, string.digits, 4)} "
                            f"{rs(r, string.digits, 5)}"),
    ("in_landline", lambda r: f"+91-{r.choice(['22', '11', '80', '44'])}-{digits(r, 4)}-"
                              f"{rs(r, string.digits, 4)}"),
    ("br_mobile", lambda r: f"+55 {r.choice(['11', '21', '31', '51'])} 9{rs(r, string.digits, 4)}"
                            f"-{rs(r, string.digits, 4)}"),
    ("br_national", lambda r: f"({r.choice(['11', '21', '41'])}) 9{rs(r, string.digits, 4)}-"
                              f"{rs(r, string.digits, 4)}"),
    ("jp_intl", lambda r: f"+81 3-{digits(r, 4)}-{rs(r, string.digits, 4)}"),
    ("jp_mobile", lambda r: f"0{r.choice(['90', '80', '70'])}-{digits(r, 4)}-"
                            f"{rs(r, string.digits, 4)}"),
    ("au", lambda r: f"+61 {r.choice('2378')} {digits(r, 4)} {rs(r, string.digits, 4)}"),
    ("es", lambda r: f"+34 9{rs(r, string.digits, 2)} {rs(r, string.digits, 3)} "
                     f"{rs(r, string.digits, 3)}"),
    ("it", lambda r: f"+39 06 {digits(r, 4)} {rs(r, string.digits, 4)}"),
    ("nl", lambda r: f"+31 20 {digits(r, 3)} {rs(r, string.digits, 4)}"),
    ("mx", lambda r: f"+52 55 {digits(r, 4)} {rs(r, string.digits, 4)}"),
    ("cn", lambda r: f"+86 13{rs(r, string.digits, 1)} {rs(r, string.digits, 4)} "
                     f"{rs(r, string.digits, 4)}"),
    ("e164_de", lambda r: "+49" + r.choice(["30", "89", "40"]) + digits(r, 8)),
    ("e164_gb", lambda r: "+447" + r.choice("3456789") + rs(r, string.digits, 8)),
]
