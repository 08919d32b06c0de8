"""Logos are read whole (issue 21 §3): what only starts like an image is refused."""

from __future__ import annotations

import struct
import sysconfig
import zlib
from pathlib import Path

import pytest

from lpwa_console.schema.images import MAX_SIDE, image_problem

from ..images import jpeg, png, png_chunk

# A real JPEG (written by an image library) from Python's own test suite, where installed.
JPEGS = [
    path
    for path in [Path(sysconfig.get_paths()["stdlib"]) / "test/test_email/data/python.jpg"]
    if path.exists()
]


def test_a_whole_png_is_accepted() -> None:
    assert image_problem(png(), "image/png") is None
    assert image_problem(png(MAX_SIDE, 1), "image/png") is None


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (png() + b"<html><script>alert(1)</script></html>", "follows the PNG's IEND"),
        (b"\x89PNG\r\n\x1a\n<html><body>hello</body></html>", "PNG"),
        (png(100_000, 100_000, rows=b"\x00" * 10), "100000x100000 pixels"),
        (png(MAX_SIDE + 1, 1), f"at most {MAX_SIDE}x{MAX_SIDE}"),
        (png(8, 8, rows=b"\x00" * 10), "does not match its size"),
        (png(4, 4, rows=(b"\x09" + b"\x00" * 12) * 4), "unknown filters"),
        (png(2, 2, rows=b"\x00" * 4_000_000), "more image data than its size"),
        (png()[:-6] + b"\x00\x00", "IEND"),
        (png().replace(b"IDAT", b"IDAX"), "damaged"),
    ],
)
def test_what_is_not_a_whole_png_is_refused(data: bytes, words: str) -> None:
    problem = image_problem(data, "image/png")
    assert problem is not None and words in problem, problem


def test_a_png_bomb_is_not_inflated_past_its_size() -> None:
    # 8x8 announced, 1 GB of zeros compressed to ~1 MB: stopped at 8x8's bytes + 1.
    bomb = zlib.compressobj()
    data = b"".join(bomb.compress(b"\x00" * (1 << 20)) for _ in range(64)) + bomb.flush()
    header = struct.pack(">IIBBBBB", 8, 8, 8, 2, 0, 0, 0)
    file = b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", header) + png_chunk(b"IDAT", data)
    file += png_chunk(b"IEND", b"")
    assert "more image data" in str(image_problem(file, "image/png"))


@pytest.mark.skipif(not JPEGS, reason="no sample JPEG on this machine")
def test_a_real_jpeg_is_accepted_and_a_cut_one_is_not() -> None:
    real = JPEGS[0].read_bytes()
    assert image_problem(real, "image/jpeg") is None
    assert image_problem(real + b"<html></html>", "image/jpeg") is not None
    assert image_problem(real[: len(real) // 2], "image/jpeg") is not None


def test_a_jpeg_is_read_to_its_end() -> None:
    assert image_problem(jpeg(), "image/jpeg") is None
    assert "60000x40000 pixels" in str(image_problem(jpeg(60_000, 40_000), "image/jpeg"))
    assert "damaged" in str(image_problem(jpeg(scan=b"\x12\xff\x34"), "image/jpeg"))
    assert "follows" in str(image_problem(jpeg() + b"<html>", "image/jpeg"))
    noise = bytes((i * 7919 + 13) % 251 for i in range(20_000))
    assert image_problem(b"\xff\xd8\xff\xe0" + noise, "image/jpeg") is not None


def test_the_type_must_match_the_bytes() -> None:
    assert image_problem(png(), "image/jpeg") == "not a image/jpeg image"
