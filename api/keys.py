"""API keys: ``s3d_<id>_<secret>``; the store keeps the id, a random salt and sha256(salt + secret).

The secret is 256 random bits, so one salted sha256 is enough (a slow password hash protects guessable
secrets, which these are not); comparison is constant-time. A key's id is the owner of the jobs and uploads
made with it: one key never sees another key's jobs.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

from api.store import JobStore

#: Owner of every job when API keys are off.
LOCAL_OWNER = "local"
_KEY_RE = re.compile(r"^s3d_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$")


def _digest(salt: str, secret: str) -> str:
    return hashlib.sha256(bytes.fromhex(salt) + secret.encode("ascii")).hexdigest()


def create_key(store: JobStore, name: str = "default") -> str:
    """Make a key, store its salted digest and return the full key (shown once, never stored)."""
    key_id, secret, salt = secrets.token_hex(8), secrets.token_urlsafe(32), secrets.token_hex(16)
    store.add_key(key_id, name[:128] or "default", salt, _digest(salt, secret))
    return f"s3d_{key_id}_{secret}"


def verify_key(store: JobStore, key: str) -> str | None:
    """The key's id when ``key`` is a live key, else None."""
    m = _KEY_RE.match(key)
    if not m:
        return None
    row = store.get_key(m.group(1))
    if row is None:
        return None
    return row["key_id"] if hmac.compare_digest(row["digest"], _digest(row["salt"], m.group(2))) else None
