"""The base of every record swapbench writes or reads back: a field it does not know is an error, not ignored."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")
