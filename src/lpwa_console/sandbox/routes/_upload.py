"""Reading an uploaded import file, shared by the device and key manager imports: the body
(refused past a size), and the CSV text of its multipart field `csv` (or the raw body)."""

from __future__ import annotations

import email.parser
import email.policy

from fastapi import Request

from ..errors import bad_request


async def body_at_most(request: Request, limit: int) -> bytes:
    """The request body, refused as soon as it passes `limit` (not after reading it all)."""
    too_big = bad_request(f"csv: at most {limit // (1024 * 1024)} MB per import")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise too_big
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise too_big
        chunks.append(chunk)
    return b"".join(chunks)


def csv_text(content_type: str, body: bytes) -> str:
    if content_type.lower().startswith("multipart/"):
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body
        )
        parts = [
            p for p in message.iter_parts() if p.get_param("name", header="content-disposition")
        ]
        chosen = next(
            (p for p in parts if p.get_param("name", header="content-disposition") == "csv"),
            None,
        )
        if chosen is None:
            raise bad_request("csv: the multipart body has no field 'csv'")
        payload = chosen.get_payload(decode=True)
        body = payload if isinstance(payload, bytes) else b""
    try:
        return body.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise bad_request("csv: the file is not UTF-8 text") from None
