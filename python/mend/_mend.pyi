"""Type stubs of mend's extension module (re-exported by ``mend``)."""

from os import PathLike
from typing import Any, Optional, Union

__version__: str

class WrapperError(Exception):
    """A wrapper file that does not load.

    ``str(error)`` renders every diagnostic; the attributes place the first
    error.
    """

    file: str
    line: int
    column: int
    message: str

class Page:
    """What a wrapper made of one page."""

    @property
    def records(self) -> list[dict[str, Any]]:
        """The page's records, values typed as the wrapper says."""
    @property
    def violations(self) -> list[dict[str, Any]]:
        """The constraints that failed, each with its pattern and details."""
    @property
    def adaptations(self) -> list[dict[str, Any]]:
        """The heals tried on the page."""

class Wrapper:
    """A wrapper loaded from its YAML file."""

    def __init__(self, path: Union[str, PathLike[str]]) -> None:
        """Loads the wrapper; raises ``WrapperError`` if it is invalid and
        ``OSError`` if it cannot be read."""
    @property
    def name(self) -> str:
        """The wrapper's name."""
    @property
    def patterns(self) -> list[str]:
        """The names of its top-level patterns."""
    def extract(self, html: Union[str, bytes], url: Optional[str] = None) -> Page:
        """Extracts one page: ``str``, or ``bytes`` decoded as the page
        declares. Relative links resolve against ``url``. The GIL is
        released while the page is parsed and extracted."""
