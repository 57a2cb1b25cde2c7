"""Virtual QPU: one physical backend time-multiplexed between many jobs.

The client side is a plain backend and needs nothing beyond the package's core:

- :mod:`backends.vqpu.client` - :class:`VQPUBackend`, the ``vqpu:<url>`` backend;
- :mod:`backends.vqpu.api` - HTTP session with retries and idempotent resubmission;
- :mod:`backends.vqpu.wire` - circuits as base64 QPY, both ways, and the QPY header;
- :mod:`backends.vqpu.munge` - MUNGE credentials, a fresh one per request inside a Slurm job;
- :mod:`backends.vqpu.cli` - the command line (``serve`` needs the ``server`` extra);
- :mod:`backends.vqpu.options` - the command line's options, by command and group.

The server, a FastAPI service with its store, executor, sandbox, accounting and report,
is the subpackage :mod:`backends.vqpu.server`, installed with ``pip install "bbqmis[server]"``.

``python -m backends.vqpu {serve,report,probe} --help`` shows the command line.
Nothing heavy is imported here, so the command line starts fast.

References
----------
.. [1] Cipollini et al., "Three ways to share a QPU: Scheduling strategies for hybrid
   Quantum-HPC applications", arXiv:2604.14955 (the vQPU, Section 4.3.1, Figures 7-8).
"""
