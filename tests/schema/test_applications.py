"""The application scope's shapes (Document 1 §2.8): grantedPermissions as an object holding
`permission`, contexts as `briefs.brief[]`, deprecated fields read quietly."""

from __future__ import annotations

import warnings

import pytest
from pydantic import ValidationError

from lpwa_console.schema.applications import (
    Application,
    Authentication,
    User,
    UserContexts,
    UserIdentifier,
)


def test_authentication_needs_granted_permissions() -> None:
    auth = Authentication.model_validate(
        {
            "grantedPermissions": {"permission": ["x", "a"]},
            "domainRestrictions": {
                "and": [{"type": "FULL", "name": "Lyon", "group": {"name": "Site"}}]
            },
        }
    )
    assert auth.grantedPermissions.permission == ["x", "a"]
    assert auth.domainRestrictions is not None and auth.domainRestrictions.and_[0].name == "Lyon"
    assert auth.userUid is None
    with pytest.raises(ValidationError):
        Authentication.model_validate({"domainRestrictions": None})
    with pytest.raises(ValidationError):
        Authentication.model_validate({"grantedPermissions": {"permission": ["z"]}})


def test_contexts_are_briefs_brief() -> None:
    contexts = UserContexts.model_validate(
        {
            "briefs": {
                "brief": [
                    {"grantedPermissions": {"permission": ["x"]}, "type": "SUBSCRIBER"},
                    {"grantedPermissions": {}, "type": "PARTNER", "futureField": 1},
                ]
            }
        }
    )
    assert [c.type for c in contexts.items] == ["SUBSCRIBER", "PARTNER"]
    assert contexts.items[1].grantedPermissions.permission == []
    assert UserContexts.model_validate({}).items == []
    with pytest.raises(ValidationError):
        UserContexts.model_validate({"briefs": {"brief": [{"type": "SUBSCRIBER"}]}})


def test_application_and_user_with_deprecated_fields() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        app = Application.model_validate(
            {"UID": 3, "ID": "acme/portal", "m2mURI": "https://old", "m2mCredential": "x"}
        )
        user = User.model_validate({"UID": 5, "platformID": "usr-1", "googleID": "g"})
    assert app.ID == "acme/portal" and user.platformID == "usr-1"
    assert "m2mURI" not in app.model_dump(exclude_none=True, exclude={"m2mURI"})
    assert UserIdentifier.model_validate({"UID": 5}).platformID is None
    with pytest.raises(ValidationError):
        Application.model_validate({"UID": 3})
