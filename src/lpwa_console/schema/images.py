"""Small PNG and JPEG images (RF region logos) checked by reading them whole, without an
image library (the sandbox has no Qt and no Pillow).

A file's first bytes say nothing of the rest: a PNG signature followed by HTML, a forged
100000x100000 header or a JPEG marker followed by noise passed the old check and were
served back. `image_problem` walks the whole structure instead: for a PNG every chunk and
its CRC, the header's size within MAX_SIDE, the image data inflated (at most the size the
header announces, so a compression bomb stops there) to exactly that size with a valid
filter byte per row, and nothing after IEND; for a JPEG every marker segment, a frame
header within MAX_SIDE, entropy-coded data whose 0xFF bytes are stuffed or restart
markers, and nothing after EOI.
"""

from __future__ import annotations

import struct
import zlib

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
JPEG_START = b"\xff\xd8"
# A logo is shown at a few dozen pixels: 2048 a side is generous, and bounds what a
# client could make the console decode (16 MB of pixels at most).
MAX_SIDE = 2048

# PNG colour type: (channels, allowed bit depths)
_PNG_COLOURS = {
    0: (1, (1, 2, 4, 8, 16)),
    2: (3, (8, 16)),
    3: (1, (1, 2, 4, 8)),
    4: (2, (8, 16)),
    6: (4, (8, 16)),
}
# Adam7 passes: (x start, y start, x step, y step)
_ADAM7 = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
          (0, 1, 1, 2))  # fmt: skip


def _side(width: int, height: int) -> str | None:
    if not (0 < width <= MAX_SIDE and 0 < height <= MAX_SIDE):
        return f"the image is {width}x{height} pixels; at most {MAX_SIDE}x{MAX_SIDE}"
    return None


def _png_data_size(width: int, height: int, bits: int, interlaced: bool) -> int:
    """Bytes of the filtered scanlines the header announces (a filter byte per row)."""

    def rows(w: int, h: int) -> int:
        return 0 if w == 0 or h == 0 else h * (1 + (w * bits + 7) // 8)

    if not interlaced:
        return rows(width, height)
    return sum(
        rows((width - x + dx - 1) // dx, (height - y + dy - 1) // dy) for x, y, dx, dy in _ADAM7
    )


def _png_problem(data: bytes) -> str | None:
    at = len(PNG_SIGNATURE)
    header: tuple[int, int, int, int, int] | None = None
    idat = zlib.decompressobj()
    inflated = 0
    expected = 0
    rows_ok = True
    while True:
        if at + 12 > len(data):
            return "the PNG ends before its IEND chunk"
        length, kind = struct.unpack(">I4s", data[at : at + 8])
        end = at + 8 + length
        if end + 4 > len(data):
            return "a PNG chunk runs past the end of the file"
        body = data[at + 8 : end]
        (crc,) = struct.unpack(">I", data[end : end + 4])
        if zlib.crc32(kind + body) != crc:
            return f"the PNG chunk {kind!r} is damaged (CRC)"
        at = end + 4
        if header is None:
            if kind != b"IHDR" or length != 13:
                return "a PNG starts with its IHDR chunk"
            width, height, depth, colour, _c, _f, interlace = struct.unpack(">IIBBBBB", body)
            if (problem := _side(width, height)) is not None:
                return problem
            if colour not in _PNG_COLOURS or depth not in _PNG_COLOURS[colour][1]:
                return "the PNG's colour type and bit depth do not go together"
            if interlace > 1:
                return "the PNG's interlace method is unknown"
            bits = depth * _PNG_COLOURS[colour][0]
            expected = _png_data_size(width, height, bits, interlace == 1)
            header = (width, height, depth, colour, interlace)
            continue
        if kind == b"IDAT":
            # Inflated at most to the announced size (+1 to see an excess): no bomb.
            out = idat.decompress(idat.unconsumed_tail + body, expected + 1 - inflated)
            if header[4] == 0 and out:
                row = 1 + (header[0] * header[2] * _PNG_COLOURS[header[3]][0] + 7) // 8
                first = (-inflated) % row
                rows_ok = rows_ok and all(f <= 4 for f in out[first::row])
            inflated += len(out)
            if inflated > expected:
                return "the PNG holds more image data than its size announces"
        elif kind == b"IEND":
            break
    if at != len(data):
        return "something follows the PNG's IEND chunk"
    if idat.unconsumed_tail and idat.decompress(idat.unconsumed_tail, 1):
        return "the PNG holds more image data than its size announces"
    if not idat.eof or inflated != expected:
        return "the PNG's image data does not match its size"
    if not rows_ok:
        return "the PNG's rows have unknown filters"
    return None


# JPEG markers without a length: TEM and RST0-7 (SOI and EOI are handled apart).
_STANDALONE = {0x01, *range(0xD0, 0xD8)}
_FRAMES = {*range(0xC0, 0xC4), *range(0xC5, 0xC8), *range(0xC9, 0xCC), *range(0xCD, 0xD0)}


def _scan_end(data: bytes, at: int) -> int:
    """Where the entropy-coded data starting at `at` ends (at the next real marker), or -1
    when a 0xFF in it is neither stuffed (FF00) nor a restart marker."""
    while True:
        at = data.find(b"\xff", at)
        if at == -1 or at + 1 >= len(data):
            return -1
        following = data[at + 1]
        if following == 0x00 or 0xD0 <= following <= 0xD7:
            at += 2
        elif following == 0xFF:
            at += 1  # fill bytes before a marker
        else:
            return at


def _jpeg_problem(data: bytes) -> str | None:
    at = 2
    frame = scans = 0
    while True:
        while at < len(data) and data[at] == 0xFF and at + 1 < len(data) and data[at + 1] == 0xFF:
            at += 1  # fill bytes
        if at + 2 > len(data) or data[at] != 0xFF:
            return "the JPEG is damaged: a marker was expected"
        marker = data[at + 1]
        if marker == 0xD9:
            at += 2
            break
        if marker in _STANDALONE:
            at += 2
            continue
        if marker < 0xC0 or marker == 0xD8:
            return f"the JPEG is damaged: unknown marker {marker:02X}"
        if at + 4 > len(data):
            return "the JPEG is damaged: a marker was expected"
        (length,) = struct.unpack(">H", data[at + 2 : at + 4])
        end = at + 2 + length
        if length < 2 or end > len(data):
            return "a JPEG segment runs past the end of the file"
        if marker in _FRAMES:
            if length < 8:
                return "the JPEG's frame header is too short"
            height, width, components = struct.unpack(">HHB", data[at + 5 : at + 10])
            if (problem := _side(width, height)) is not None:
                return problem
            if components not in (1, 3, 4) or length != 8 + 3 * components:
                return "the JPEG's frame header is damaged"
            frame += 1
        at = end
        if marker == 0xDA:  # start of scan: entropy-coded data follows
            if not frame:
                return "the JPEG has a scan before its frame header"
            scans += 1
            at = _scan_end(data, at)
            if at == -1:
                return "the JPEG's image data is damaged"
    if frame != 1 or not scans:
        return "the JPEG has no image"
    if at != len(data):
        return "something follows the JPEG's end marker"
    return None


def image_problem(data: bytes, content_type: str) -> str | None:
    """Why `data` is not a whole image of `content_type` (image/png or image/jpeg) within
    MAX_SIDE, or None."""
    try:
        if content_type == "image/png" and data.startswith(PNG_SIGNATURE):
            return _png_problem(data)
        if content_type == "image/jpeg" and data.startswith(JPEG_START):
            return _jpeg_problem(data)
    except (struct.error, zlib.error):
        return "the image is damaged"
    return f"not a {content_type} image"
