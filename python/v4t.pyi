"""Resolve, validate, analyse and explain Variability4TOSCA templates.

Paths may be a YAML file, a CSAR directory or a zipped CSAR. Every failure
is a Python exception: `ResolveError` (a `ValueError`) with the diagnostics,
`FileNotFoundError` for a missing path, `TypeError` for arguments of the
wrong type.
"""

import os
from typing import Any, Dict, List, Optional, Sequence, Union

__version__: str

_Path = Union[str, "os.PathLike[str]"]
_Presets = Union[str, Sequence[str], None]

class Note:
    """More about a diagnostic, where known with a location."""

    message: str
    file: Optional[str]
    line: Optional[int]
    column: Optional[int]

class Diagnostic:
    """An error or warning with a stable code (docs/diagnostics.md) and,
    where known, its range (1-based lines and columns, the end exclusive)."""

    severity: str
    """`"error"` or `"warning"`."""
    code: str
    message: str
    file: Optional[str]
    line: Optional[int]
    column: Optional[int]
    end_line: Optional[int]
    end_column: Optional[int]
    element: Optional[str]
    """The id of the element it is about (`node.db`), if known."""
    notes: List[Note]
    @property
    def is_error(self) -> bool: ...

class ResolveError(ValueError):
    """A template that cannot be read, resolved, analysed or explained."""

    diagnostics: List[Diagnostic]

def resolve(
    path: _Path, presets: _Presets = None, inputs: Optional[Dict[str, Any]] = None
) -> Dict[str, Any]:
    """The resolved TOSCA template as Python data (dicts in document order).

    `presets` are applied in order, `inputs` merged over them."""

def resolve_text(
    path: _Path, presets: _Presets = None, inputs: Optional[Dict[str, Any]] = None
) -> str:
    """The resolved TOSCA template as YAML text, as `v4t resolve` writes it."""

def validate(path: _Path) -> List[Diagnostic]:
    """Every error and warning of the TOSCA file or CSAR with its imports
    (as `v4t validate`); empty for a valid file."""

def analyze(path: _Path, enumerate: int = 0) -> Dict[str, Any]:
    """Every configuration analysed at once (`v4t analyze --format json`)."""

def explain(
    path: _Path,
    elements: Optional[List[str]] = None,
    presets: _Presets = None,
    inputs: Optional[Dict[str, Any]] = None,
) -> Dict[str, Any]:
    """Why each element of a variant is present or absent, or why the variant
    does not resolve (`v4t explain --format json`)."""
