"""Root keys encrypted on the workstation before they are sent (Document 1 §2.7): RSAES-OAEP
(SHA-256, MGF1-SHA-256) with the platform's public exchange key, so a key never leaves the
laptop in clear. Generated keys are only held in memory: nothing here writes or logs them."""

from __future__ import annotations

import base64
import secrets

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

OAEP = padding.OAEP(
    mgf=padding.MGF1(algorithm=hashes.SHA256()), algorithm=hashes.SHA256(), label=None
)


class PublicExchangeKey:
    """An RSA public exchange key (PEM) and its version, loaded once for many keys."""

    def __init__(self, version: str, pem: str) -> None:
        key = serialization.load_pem_public_key(pem.encode())
        if not isinstance(key, rsa.RSAPublicKey):
            raise ValueError("the platform's exchange key is not an RSA public key")
        self.version = version
        self._key = key

    def encrypt_hex(self, key_hex: str) -> str:
        """Base64 RSA-OAEP ciphertext of a 32-hex-digit root key."""
        raw = bytes.fromhex(key_hex)
        if len(raw) != 16:
            raise ValueError("a root key has 32 hexadecimal digits")
        return base64.b64encode(self._key.encrypt(raw, OAEP)).decode()


def random_root_key() -> str:
    """A random AES-128 root key made on the workstation, 32 upper-case hex digits."""
    return secrets.token_hex(16).upper()
