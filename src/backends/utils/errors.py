"""The root of the project's exceptions and the project-wide :class:`InvalidParameterError`.

Every package's ``errors.py`` follows one pattern: a package base class derived from
:class:`ProjectError` (``BackendError``, ``BBQMISError``, ``CuttingError``,
``ClustAggError``), subclasses named by meaning beneath it, and bad-input errors also
derived from :class:`ValueError`, so callers that know only the standard library still
catch them. ``except ProjectError`` catches every error the project raises on purpose.
"""

__all__ = ["ProjectError", "InvalidParameterError"]


class ProjectError(Exception):
    """Base class of every exception raised by ``backends``, ``cutting``, ``bbqmis`` and ``clustagg``.

    Examples
    --------
    >>> from backends.utils.validation import check_positive_int
    >>> try:
    ...     check_positive_int(0, "shots")
    ... except ProjectError as error:
    ...     print(type(error).__name__)
    InvalidParameterError
    """


class InvalidParameterError(ProjectError, ValueError, TypeError):
    """An argument has the wrong type or a value outside its allowed range (any package).

    Examples
    --------
    >>> from backends.utils.validation import check_positive_int
    >>> try:
    ...     check_positive_int(0, "shots")
    ... except InvalidParameterError as error:
    ...     print(error)
    shots must be a positive integer, got 0
    >>> issubclass(InvalidParameterError, ValueError)
    True
    """
