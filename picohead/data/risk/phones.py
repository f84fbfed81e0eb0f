"""Phone numbers: a generator in several national formats and a detector.

The detector (``find``) reads three shapes: an international number written with ``+`` and a
country code (``+14155552671``, ``+44 20 7946 0958``, ``+49 (30) 1234567``: 8 to 15 digits, the
E.164 range), a North American number with its area code (``(415) 555-2671``, ``415-555-2671``:
area code and exchange start with 2-9), and any 7-15-digit number after a phone word
(``tel:``, ``Phone``, ``mobile``, ``fax``, ``Telefon``, ``hotline``, ``contact``, ``on-call``...,
also as a camelCase hump: ``supportPhone``, ``emergencyContact``). Not phones: dates
(``2024-05-17``), ISBNs, order ids and timestamps without ``+``, a phone word or the NANP shape,
version strings, IP addresses. National numbers without ``+`` or a phone word
(``0151 1234567`` under another name) are not found: their flags come from the generator.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

_INTL = re.compile(
    rb"(?<![\w+=/.\-])\+(?>[1-9]\d{0,2}(?:[ .\-]?\(?\d{1,5}\)?)(?:[ .\-]?\d{1,8}){0,5})(?![\w+]|[.\-/]\d)")
_NANP = re.compile(
    rb"(?<![\w+.\-/])(?:\([2-9]\d{2}\)[ .\-]?|[2-9]\d{2}[.\-])[2-9]\d{2}[.\-]\d{4}(?![\w.\-/]?\d)")
_WORDED = re.compile(
    # the word starts a name or a camelCase hump (``supportPhone``, ``emergencyContact``)
    rb"(?:(?<![A-Za-z])|(?<=[a-z])(?=[A-Z]))"
    rb"(?i:tel|phone|telephone|mobile|cell|fax|whatsapp|telefon|telefono|t\xc3\xa9l\xc3\xa9phone|"
    rb"handy|mobil|sms|hotline|helpline|contact|on[_-]?call)(?:[ _-]?(?i:number|no|nr|num|nummer|#))?(?![A-Za-z])(?:\*{1,2})?[\"'\]]?[ \t]*(?:[:=.|]|=>|:=)?[ \t]*"
    rb"(?:\*{1,2}[ \t]*)?(?:tel:)?[\"'`]?(?P<num>\+?\(?\d[\d ()./\-]{5,20}\d)(?![\w.\-]?\d)")
_DATE = re.compile(rb"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{4}")


def _digits(s: bytes) -> int:
    return sum(48 <= c <= 57 for c in s)


def find(w: bytes) -> Iterator[tuple[int, int]]:
    """Spans of the phone numbers in ``w``."""
    for m in _INTL.finditer(w):
        if 8 <= _digits(m.group(0)) <= 15 and not re.fullmatch(rb"\+\d+\.\d+", m.group(0)):  # not +1.832
            yield m.span()
    for m in _NANP.finditer(w):
        yield m.span()
    for m in _WORDED.finditer(w):
        num = m.group("num")
        if 7 <= _digits(num) <= 15 and not _DATE.search(num) and not re.fullmatch(rb"[\d.]+", num):
            yield m.span("num")


def phone(rng: random.Random) -> tuple[str, str]:
    """(field name, a fresh number) in one of 16 national and international formats."""
    r = rng.randrange
    fmts = [f"+1 ({r(201, 989)}) {r(200, 999)}-{r(1000, 9999)}", f"({r(201, 989)}) {r(200, 999)}-{r(1000, 9999)}",
            f"{r(201, 989)}-{r(200, 999)}-{r(1000, 9999)}", f"+1{r(201, 989)}{r(200, 999)}{r(1000, 9999)}",
            f"+44 20 {r(7000, 8999)} {r(1000, 9999)}", f"+44 7{r(100, 999)} {r(100000, 999999)}",
            f"+49 30 {r(1000000, 99999999)}", f"0{r(151, 179)} {r(1000000, 99999999)}",
            f"+33 {r(1, 9)} {r(10, 99)} {r(10, 99)} {r(10, 99)} {r(10, 99)}",
            f"+91 {r(70000, 99999)} {r(10000, 99999)}", f"+81 {r(3, 90)}-{r(1000, 9999)}-{r(1000, 9999)}",
            f"+55 11 9{r(1000, 9999)}-{r(1000, 9999)}", f"+61 {r(2, 8)} {r(1000, 9999)} {r(1000, 9999)}",
            f"+7 {r(900, 999)} {r(100, 999)}-{r(10, 99)}-{r(10, 99)}", f"+34 {r(600, 699)} {r(100, 999)} {r(100, 999)}",
            f"+{rng.choice([31, 39, 46, 48, 86, 90, 234, 254, 972])}{r(10**8, 10**10)}",
            # national numbers, as people write them at home (no country code)
            f"07{r(100, 999)} {r(100000, 999999)}", f"0{r(113, 199)} {r(100, 999)} {r(1000, 9999)}",
            f"0{r(1, 9)} {r(10, 99)} {r(10, 99)} {r(10, 99)} {r(10, 99)}",
            f"({r(11, 99)}) 9{r(1000, 9999)}-{r(1000, 9999)}", f"0{rng.choice([70, 80, 90])}-{r(1000, 9999)}-{r(1000, 9999)}",
            f"0{r(30, 89)} {r(100, 999)} {r(1000, 9999)}", f"04{r(10, 99)} {r(100, 999)} {r(100, 999)}",
            f"3{r(10, 99)} {r(100, 999)} {r(1000, 9999)}", f"06-{r(10000000, 99999999)}",
            f"6{r(10, 99)} {r(10, 99)} {r(10, 99)} {r(10, 99)}"]
    return rng.choice(NAMES), rng.choice(fmts)


# Names a phone number is stored under (any case style; the detector reads the phone words).
NAMES = ("PHONE", "phone", "tel", "support_phone", "mobile", "supportPhone", "contactPhone",
         "phoneNumber", "phone_number", "mobile_number", "MOBILE", "emergency_contact",
         "emergencyContact", "hotline", "helpline", "on_call", "cell", "fax", "whatsapp", "TEL",
         "contact_phone", "sms_number", "telefon", "Telefonnummer")


# Phone-shaped digit groups; a refresh of a window flagged ``phone`` redraws these.
PHONE_LIKE = re.compile(rb"(?<![\w.+])(\+\d{1,3} ?)?\(?\d{1,5}\)?(?:[ -]\d{1,8}){1,4}(?![\w.-]?\d)")


def scramble_digits(value: bytes, rng: random.Random) -> bytes:
    """``value`` with its digits redrawn, except the first of each digit group (an area code
    keeps its leading 0, 1 or 2-9, so the number keeps its national shape)."""
    out = bytearray(value)
    for i, c in enumerate(value):
        if 48 <= c <= 57 and i > 0 and 48 <= value[i - 1] <= 57:
            out[i] = 48 + rng.randrange(10)
    return bytes(out)
