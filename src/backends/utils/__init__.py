"""The ground floor every package stands on: nothing here knows a circuit, a graph or a device.

- :mod:`backends.utils.validation`: parameter checks whose messages name the parameter,
  what was expected and what was given;
- :mod:`backends.utils.errors`: :class:`~backends.utils.errors.ProjectError`, the root of
  every exception of the project, and the project-wide
  :class:`~backends.utils.errors.InvalidParameterError`;
- :mod:`backends.utils.files`: outputs checked before long work and written atomically;
- :mod:`backends.utils.progress`: progress lines on stderr;
- :mod:`backends.utils.arguments`: :class:`~backends.utils.arguments.CommandParser` and
  the numeric argument types of every command line.

Importing this package imports none of qiskit, numpy's heavy users or the backends.
"""
