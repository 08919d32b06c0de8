"""Small well-formed PNG and JPEG files for tests, made by hand (no image library)."""

from __future__ import annotations

import struct
import zlib


def png_chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png(width: int = 8, height: int = 8, *, rows: bytes | None = None) -> bytes:
    """An RGB PNG of width x height (grey pixels), or with `rows` as its raw image data."""
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    raw = rows if rows is not None else (b"\x00" + b"\x80" * 3 * width) * height
    return (
        b"\x89PNG\r\n\x1a\n"
        + png_chunk(b"IHDR", header)
        + png_chunk(b"IDAT", zlib.compress(raw))
        + png_chunk(b"IEND", b"")
    )


def _segment(marker: int, body: bytes) -> bytes:
    return bytes([0xFF, marker]) + struct.pack(">H", len(body) + 2) + body


def jpeg(width: int = 8, height: int = 8, scan: bytes = b"\x12\x34\xff\x00\x56") -> bytes:
    """A baseline JPEG's structure: quantisation and Huffman tables, frame, one scan."""
    return (
        b"\xff\xd8"
        + _segment(0xE0, b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00")
        + _segment(0xDB, b"\x00" + bytes(range(1, 65)))
        + _segment(0xC0, struct.pack(">BHHB", 8, height, width, 1) + b"\x01\x11\x00")
        + _segment(0xC4, b"\x00" + b"\x01" + b"\x00" * 15 + b"\x00")
        + _segment(0xDA, b"\x01\x01\x00\x00\x3f\x00")
        + scan
        + b"\xff\xd9"
    )
