"""A smaller ICU data library for the Linux bundle (32 MB -> about 4 MB).

Qt's Linux wheels link ICU, whose data library (`libicudata.so.NN`) holds one symbol,
`icudtNN_dat`: ICU's data for 800 locales and 200 legacy character sets. The console speaks
English; Qt formats numbers and dates from its own locale tables and converts text as UTF-8.
What Qt still asks ICU for (collation, time zone names, case and text boundaries) falls back
to the root and English data kept here. The library is rebuilt with the same soname and symbol
from the kept items (the ICU "common data" package format: a header, a table of contents
sorted by name, items aligned on 16 bytes), with gcc. Without gcc, or on a library this code
does not recognise, the bundle keeps the original one.
"""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import tempfile
from pathlib import Path

# Locale resource bundles are named by locale ID; everything else (root, pool, supplemental
# data, normalization, break rules, collation tables, time zones) is shared and kept.
LOCALE_BUNDLE = re.compile(r"[a-z]{2,3}(_[A-Za-z0-9]+)*\.res")
KEPT_LOCALES = re.compile(r"en(_[A-Za-z0-9]+)*\.res")
# Dropped: legacy character sets (.cnv), word dictionaries for Chinese, Japanese, Thai, Lao,
# Khmer and Burmese (.dict), and transliteration rules.
DROPPED_KINDS = (".cnv", ".dict")
DROPPED_TREES = ("translit",)


def symbol_bytes(library: bytes, symbol: str) -> tuple[int, bytes]:
    """The file offset and bytes of a dynamic symbol of a 64-bit little-endian ELF file."""
    if library[:4] != b"\x7fELF" or library[4] != 2 or library[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    (section_table,) = struct.unpack_from("<Q", library, 0x28)
    entry_size, count = struct.unpack_from("<HH", library, 0x3A)
    sections = [
        struct.unpack_from("<IIQQQQIIQQ", library, section_table + i * entry_size)
        for i in range(count)
    ]
    for section in sections:
        if section[1] != 11:  # SHT_DYNSYM
            continue
        strings = sections[section[6]][4]
        for at in range(section[4], section[4] + section[5], 24):
            name, _, _, index, value, size = struct.unpack_from("<IBBHQQ", library, at)
            end = library.index(b"\0", strings + name)
            if library[strings + name : end].decode() == symbol:
                target = sections[index]
                start = target[4] + value - target[3]
                return start, library[start : start + size]
    raise KeyError(symbol)


def items(package: bytes) -> tuple[int, list[tuple[str, bytes]]]:
    """The header size and (name, bytes) items of an ICU common data package."""
    (header,) = struct.unpack_from("<H", package, 0)
    if package[2:4] != b"\xda\x27" or package[12:16] != b"CmnD":
        raise ValueError("not an ICU common data package")
    (count,) = struct.unpack_from("<I", package, header)
    toc = [struct.unpack_from("<II", package, header + 4 + 8 * i) for i in range(count)]
    found = []
    for i, (name_at, data_at) in enumerate(toc):
        name_start = header + name_at
        name = package[name_start : package.index(b"\0", name_start)].decode("ascii")
        end = toc[i + 1][1] if i + 1 < count else len(package) - header
        found.append((name, package[header + data_at : header + end]))
    return header, found


def wanted(name: str) -> bool:
    path = name.split("/")[1:]  # after the "icudtNNl" prefix
    file = path[-1]
    if file.endswith(DROPPED_KINDS) or path[0] in DROPPED_TREES:
        return False
    return not LOCALE_BUNDLE.fullmatch(file) or bool(KEPT_LOCALES.fullmatch(file))


def package(header: bytes, kept: list[tuple[str, bytes]]) -> bytes:
    """A common data package of `kept` (sorted by name, as ICU's binary search needs)."""
    kept = sorted(kept)
    names = b"".join(name.encode("ascii") + b"\0" for name, _ in kept)
    toc_size = 4 + 8 * len(kept)
    first = toc_size + len(names)
    first += -first % 16
    toc = [struct.pack("<I", len(kept))]
    body = bytearray()
    name_at = toc_size
    for name, data in kept:
        toc.append(struct.pack("<II", name_at, first + len(body)))
        name_at += len(name) + 1
        body += data + b"\0" * (-len(data) % 16)
    table = b"".join(toc) + names
    return header + table + b"\0" * (first - len(table)) + bytes(body)


def trimmed_library(original: Path, out_dir: Path) -> Path | None:
    """A smaller copy of `original` (libicudata.so.NN) in out_dir, or None (keep it)."""
    match = re.fullmatch(r"libicudata\.so\.(\d+)", original.name)
    compiler = shutil.which("gcc") or shutil.which("cc")
    if match is None or compiler is None:
        return None
    try:
        _, data = symbol_bytes(original.read_bytes(), f"icudt{match[1]}_dat")
        header_size, found = items(data)
    except (ValueError, KeyError, struct.error):
        return None
    slim = package(data[:header_size], [item for item in found if wanted(item[0])])
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / original.name
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "data.bin").write_bytes(slim)
        source = Path(tmp) / "data.S"
        source.write_text(
            "\t.section .rodata\n\t.balign 16\n"
            f"\t.globl icudt{match[1]}_dat\n\t.type icudt{match[1]}_dat, @object\n"
            f'icudt{match[1]}_dat:\n\t.incbin "data.bin"\n'
            f"\t.size icudt{match[1]}_dat, .-icudt{match[1]}_dat\n"
            '\t.section .note.GNU-stack,"",@progbits\n'
        )
        command = [compiler, "-shared", "-nostdlib", f"-Wl,-soname,{original.name}"]
        subprocess.run([*command, "-o", str(out), "data.S"], cwd=tmp, check=True)
    return out
