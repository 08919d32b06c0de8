"""The key manager's cryptography, with the `cryptography` package: RSA exchange key pairs
(RSAES-OAEP with SHA-256 and MGF1-SHA-256), HSM AES keys (RFC 3394 key wrap), random root
keys, and the owner token encrypted for its owner. No SQL here: the store keeps the keys.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import queue
import secrets
import threading
from functools import lru_cache

from cryptography.exceptions import InvalidKey
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.hazmat.primitives.keywrap import InvalidUnwrap, aes_key_unwrap, aes_key_wrap

RSA_BITS = 2048
OAEP = padding.OAEP(
    mgf=padding.MGF1(algorithm=hashes.SHA256()), algorithm=hashes.SHA256(), label=None
)


class KeyUnreadable(ValueError):
    """A key that cannot be read: the message says why, without the key."""


# Pairs made ahead (`make_rsa_pairs_ahead`), and how many of those promised are not claimed.
_ahead: queue.SimpleQueue[tuple[str, int, int]] = queue.SimpleQueue()
_unclaimed = 0
_ahead_lock = threading.Lock()


def make_rsa_pairs_ahead(count: int) -> None:
    """Start making `count` pairs in a thread, for `new_rsa_pair` to take: a new demo needs
    three (a quarter of a second each), made while its devices are written. OpenSSL leaves
    the GIL while it searches primes, so the two overlap on a second core."""
    global _unclaimed
    with _ahead_lock:
        _unclaimed += count

    def make() -> None:
        for _ in range(count):
            _ahead.put(_make_rsa_pair())

    threading.Thread(target=make, name="rsa-ahead", daemon=True).start()


def new_rsa_pair() -> tuple[str, int, int]:
    """(private key PEM PKCS#8, modulus n, public exponent e) of a new RSA-2048 key: one
    made ahead when one is promised (waiting for it if it is on its way)."""
    global _unclaimed
    with _ahead_lock:
        claimed = _unclaimed > 0
        if claimed:
            _unclaimed -= 1
    if claimed:
        try:
            return _ahead.get(timeout=120)
        except queue.Empty:  # the thread died: make one here
            pass
    return _make_rsa_pair()


def _make_rsa_pair() -> tuple[str, int, int]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=RSA_BITS)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    numbers = key.public_key().public_numbers()
    return pem, numbers.n, numbers.e


_cache_lock = threading.Lock()


@lru_cache(maxsize=32)
def _private_key(pem: str) -> rsa.RSAPrivateKey:
    key = serialization.load_pem_private_key(pem.encode(), password=None)
    assert isinstance(key, rsa.RSAPrivateKey)
    return key


def rsa_decrypt(private_pem: str, ciphertext_b64: str) -> bytes:
    """The plaintext of a base64 RSA-OAEP ciphertext; KeyUnreadable when it is not one for this
    key."""
    try:
        data = base64.b64decode(ciphertext_b64, validate=True)
    except (binascii.Error, ValueError):
        raise KeyUnreadable("not base64") from None
    with _cache_lock:
        key = _private_key(private_pem)
    try:
        return key.decrypt(data, OAEP)
    except ValueError:
        raise KeyUnreadable(
            "cannot be decrypted with this exchange key (RSA-OAEP, SHA-256)"
        ) from None


def rsa_encrypt(public_pem: str, plaintext: bytes) -> str:
    """Base64 RSA-OAEP ciphertext of `plaintext` for the PEM public key."""
    key = serialization.load_pem_public_key(public_pem.encode())
    if not isinstance(key, rsa.RSAPublicKey):
        raise KeyUnreadable("not an RSA public key")
    return base64.b64encode(key.encrypt(plaintext, OAEP)).decode()


def public_pem(private_pem: str) -> str:
    with _cache_lock:
        key = _private_key(private_pem)
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )


def new_aes_key() -> str:
    """A random AES-128 key (or LoRaWAN root key), 32 upper-case hexadecimal digits."""
    return secrets.token_hex(16).upper()


def aes_unwrap(kek_hex: str, wrapped_hex: str) -> bytes:
    """RFC 3394 unwrap; KeyUnreadable when the integrity check fails (wrong key or data)."""
    try:
        return aes_key_unwrap(bytes.fromhex(kek_hex), bytes.fromhex(wrapped_hex))
    except (InvalidUnwrap, InvalidKey, ValueError):
        raise KeyUnreadable(
            "does not unwrap with this HSM key (RFC 3394 integrity check)"
        ) from None


def aes_wrap(kek_hex: str, key_hex: str) -> str:
    """RFC 3394 wrap, upper-case hexadecimal (tests and the demo use it)."""
    return aes_key_wrap(bytes.fromhex(kek_hex), bytes.fromhex(key_hex)).hex().upper()


def new_owner_token() -> str:
    return secrets.token_urlsafe(24)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
