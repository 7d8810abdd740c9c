"""JSON shapes of sign-in for the driver app (POST /auth/token, POST /auth/revoke)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from portal.schemas import InModel


class PasswordGrant(InModel):
    grant_type: Literal["password"]
    username: str = Field(min_length=1, max_length=254, description="the driver's email")
    password: str = Field(min_length=1, max_length=1024)


class ActivationCodeGrant(InModel):
    grant_type: Literal["activation_code"]
    code: str = Field(min_length=1, max_length=64, description="the one-time pairing code")


class RefreshTokenGrant(InModel):
    grant_type: Literal["refresh_token"]
    refresh_token: str = Field(min_length=1, max_length=200)


TokenRequest = Annotated[
    PasswordGrant | ActivationCodeGrant | RefreshTokenGrant, Field(discriminator="grant_type")
]


class TokenResponse(BaseModel):
    access_token: str
    token_type: Literal["Bearer"] = "Bearer"
    expires_in: int = Field(description="seconds until the access token expires")
    refresh_token: str
    user_token: str = Field(description="the driver's public id for /users/{user_token}/...")


class RevokeRequest(InModel):
    token: str = Field(min_length=1, max_length=200, description="a refresh token")


class RevokeResponse(BaseModel):
    revoked: bool
