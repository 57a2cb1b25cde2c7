"""Virtual QPU: one physical backend time-multiplexed between many jobs.

- :mod:`backends.vqpu.server` - the FastAPI application: HTTP routes and error answers;
- :mod:`backends.vqpu.fastpath` - well-formed submissions answered ahead of FastAPI's routing;
- :mod:`backends.vqpu.service` - request handling: authentication, limits, long polls;
- :mod:`backends.vqpu.executor` - the executor thread that runs batches one at a time;
- :mod:`backends.vqpu.gate` - requests before batches: the executor waits for the requests in hand;
- :mod:`backends.vqpu.policies` - scheduling policies: FIFO, round-robin, waiting-time bound;
- :mod:`backends.vqpu.accounting` - usage per job and per user, quotas of quantum seconds;
- :mod:`backends.vqpu.metrics` - ``/metrics`` in the Prometheus text format;
- :mod:`backends.vqpu.tokens` - per-job tokens (and the users billed) read from a file;
- :mod:`backends.vqpu.limits` - what one request may ask of the server;
- :mod:`backends.vqpu.store` - SQLite accounting and recovery (one writer thread);
- :mod:`backends.vqpu.wire` - circuits as base64 QPY, both ways, and the QPY header;
- :mod:`backends.vqpu.sandbox` - untrusted QPY deserialised in a memory-capped worker process;
- :mod:`backends.vqpu.api` - HTTP session with retries and idempotent resubmission;
- :mod:`backends.vqpu.client` - :class:`VQPUBackend`, the ``vqpu:<url>`` backend;
- :mod:`backends.vqpu.report` - occupancy, per-user and per-job tables, CSV, figures.

``python -m backends.vqpu {serve,report,probe} --help`` shows the command line.
Nothing heavy is imported here, so the command line starts fast.

References
----------
.. [1] Viviani et al., arXiv:2504.10520 (virtual QPUs under Slurm).
.. [2] "Three ways to share a QPU", arXiv:2604.14955.
"""
