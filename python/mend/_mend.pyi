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
    def extract(
        self, html: Union[str, bytes], url: Optional[str] = None, encoding: Optional[str] = None
    ) -> Page:
        """Extracts one page: ``str``, or ``bytes`` decoded in ``encoding``
        (a charset label) or else as the page declares. Relative links
        resolve against ``url``. The GIL is released while the page is
        parsed and extracted; the page is never copied. ``encoding`` with a
        ``str`` raises ``ValueError``."""

class JobError(Exception):
    """A job that cannot go on: its wrapper's tree-grams could not be read,
    or it is finished."""

class JobSummary:
    """What a finished job came to."""

    pages: int
    records: int
    violations: int
    violated_pages: int
    drifted_pages: int
    applied: int
    """Heals written to the wrapper file (``heal="auto"``)."""
    proposed: int
    """Proposals stored for ``mend log`` / ``show`` / ``approve``."""
    abstained: int
    """Patterns left broken because no candidate was good enough."""
    field_coverage: dict[str, float]
    """Each pattern's share of items with a value, by pattern path."""
    health_drops: list[str]
    """The field health drops against the store's baselines, in words."""
    store: Optional[str]
    """The store written to, when the job opened it."""
    failure: Optional[str]
    """The first failure of the store or of a file write, in words."""
    notice_failure: Optional[str]
    """Why the wrapper's ``adapt.notify`` notice was not delivered, when one was due."""

class Job:
    """A healing run of one wrapper over pages given one at a time.

    A broken page is healed at once, and the pages after it use the heal;
    each heal is decided once for the whole job, by ``finish()``, which also
    sends the wrapper's ``adapt.notify`` notice when the job left something
    for a person. As a context manager, leaving the block finishes the job.
    """

    def __init__(
        self,
        wrapper: Wrapper,
        heal: Optional[str] = None,
        store: Optional[Union[str, PathLike[str]]] = None,
    ) -> None:
        """``heal`` is ``"off"``, ``"propose"`` or ``"auto"`` (the wrapper's
        ``adapt.mode`` when not given); ``store`` the store's path
        (``$MEND_STORE``, or the wrapper's default store, when not)."""
    def page(
        self, html: Union[str, bytes], url: Optional[str] = None, encoding: Optional[str] = None
    ) -> Page:
        """Extracts one page as ``Wrapper.extract`` does, healing what broke,
        with the GIL released. Raises ``JobError`` after ``finish()``."""
    def finish(self) -> JobSummary:
        """Decides the job's heals, records the run and its field health in
        the store. Raises ``JobError`` when called twice."""
    def __enter__(self) -> "Job": ...
    def __exit__(self, *exc: object) -> bool: ...
