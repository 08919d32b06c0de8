"""Bearer tokens live in a file of their own beside the database (`db/token_file.py`): sign-in
never waits for the main file's write lock; the tokens stay owner-only hashes, outlive a
restart, and sign no one in once their account is gone or the database is a new one."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from lpwa_console.sandbox.accounts import by_id
from lpwa_console.sandbox.auth import TokenStore
from lpwa_console.sandbox.db import SIDECARS, Database
from lpwa_console.sandbox.db.sealing import key_path, token_hash
from lpwa_console.sandbox.db.token_file import token_path


def _subscriber_store(path: Path) -> tuple[Database, TokenStore]:
    db = Database(path)
    with db.write() as conn:
        conn.execute(
            "INSERT INTO accounts (id, role, client_id, client_secret, name)"
            " VALUES (7, 'subscriber', 'first', '!x', 'First')"
        )
    return db, TokenStore(db, 3600)


def test_a_token_is_kept_as_its_hash_in_the_owner_only_token_file(tmp_path: Path) -> None:
    db, tokens = _subscriber_store(tmp_path / "s.db")
    account = by_id(db.conn(), 7)
    assert account is not None
    token = tokens.issue(account)
    with db.tokens.read() as conn:
        rows = conn.execute("SELECT token, account_id, client_id FROM tokens").fetchall()
    assert rows == [(token_hash(token), 7, "first")]
    assert db.conn().execute("SELECT count(*) FROM tokens").fetchone()[0] == 0  # not the main
    if os.name == "posix":
        assert stat.S_IMODE(token_path(db.path).stat().st_mode) == 0o600
    db.close()
    again = Database(tmp_path / "s.db")
    resolved = TokenStore(again, 3600).resolve(token)  # a restart: read from the file
    assert resolved is not None and resolved.client_id == "first"
    again.close()


def test_a_token_signs_in_no_later_account_given_the_same_id(tmp_path: Path) -> None:
    db, tokens = _subscriber_store(tmp_path / "s.db")
    account = by_id(db.conn(), 7)
    assert account is not None
    token = tokens.issue(account)
    # The account goes (without telling the token store, as a crash would) and a new one
    # gets its id: the token, read from the file, does not sign it in.
    with db.write() as conn:
        conn.execute("DELETE FROM accounts WHERE id = 7")
        conn.execute(
            "INSERT INTO accounts (id, role, client_id, client_secret, name)"
            " VALUES (7, 'subscriber', 'second', '!x', 'Second')"
        )
    assert TokenStore(db, 3600).resolve(token) is None
    db.close()


@pytest.mark.parametrize("kept", [False, True])
def test_a_new_database_starts_with_no_tokens(tmp_path: Path, kept: bool) -> None:
    path = tmp_path / "s.db"
    db, tokens = _subscriber_store(path)
    account = by_id(db.conn(), 7)
    assert account is not None
    token = tokens.issue(account)
    db.close()
    if not kept:  # the database deleted, its token file left behind: a new database
        for file in (path, key_path(path), *(path.with_name(path.name + s) for s in SIDECARS)):
            file.unlink(missing_ok=True)
    db, _tokens = _subscriber_store(path) if not kept else (Database(path), None)
    resolved = TokenStore(db, 3600).resolve(token)
    assert (resolved is not None) == kept
    db.close()


def test_the_token_file_opens_again_after_a_close(tmp_path: Path) -> None:
    # As `Database.conn` does: an app whose lifespan closed the database may be used again.
    db, tokens = _subscriber_store(tmp_path / "s.db")
    account = by_id(db.conn(), 7)
    assert account is not None
    db.close()
    token = tokens.issue(account)
    db.close()
    assert TokenStore(db, 3600).resolve(token) is not None
    db.close()
