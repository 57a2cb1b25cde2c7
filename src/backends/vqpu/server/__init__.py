"""The vQPU server: one physical backend time-multiplexed between many jobs over HTTP.

Its dependencies (FastAPI, uvicorn, prometheus-client) come with the ``server`` extra:
``pip install "bbqmis[server]"``. Modules, from the outside in:

- :mod:`~backends.vqpu.server.app` - the FastAPI application: HTTP routes and error answers;
- :mod:`~backends.vqpu.server.fastpath` - well-formed submissions answered ahead of FastAPI's routing;
- :mod:`~backends.vqpu.server.service` - request handling: authentication, limits, long polls;
- :mod:`~backends.vqpu.server.errors` - the error answered to a client: status, code and message;
- :mod:`~backends.vqpu.server.callers` - who is asking: the job and user of a request;
- :mod:`~backends.vqpu.server.admission` - a submission's body and the limits it must keep;
- :mod:`~backends.vqpu.server.executor` - the executor thread that runs batches one at a time;
- :mod:`~backends.vqpu.server.maintenance` - maintenance: the admin's flag, a device down, Slurm's hold;
- :mod:`~backends.vqpu.server.gate` - requests before batches: the executor waits for the requests in hand;
- :mod:`~backends.vqpu.server.policies` - scheduling policies: FIFO, round-robin, waiting-time bound;
- :mod:`~backends.vqpu.server.accounting` - usage per job and per user, quotas of quantum seconds;
- :mod:`~backends.vqpu.server.shares` - the account file (quotas, shares), decayed usage, fair-share factors;
- :mod:`~backends.vqpu.server.metrics` - ``/metrics`` in the Prometheus text format;
- :mod:`~backends.vqpu.server.network` - where the server may listen: no open mode beyond loopback, TLS;
- :mod:`~backends.vqpu.server.slurm_auth` - Slurm-bound access: MUNGE credentials of running jobs;
- :mod:`~backends.vqpu.server.sessions` - session tickets: one MUNGE credential per client and minute;
- :mod:`~backends.vqpu.server.slurm_jobs` - the running jobs holding a vQPU, polled from ``squeue``;
- :mod:`~backends.vqpu.server.slurm_hold` - the Slurm reservation of the vQPU licences during maintenance;
- :mod:`~backends.vqpu.server.slurm_accounting` - each job's usage in its Slurm record (``sacct``);
- :mod:`~backends.vqpu.server.vqpu_count` - the number of vQPU licences following the device's load;
- :mod:`~backends.vqpu.server.periodic` - a function called every few seconds on a daemon thread;
- :mod:`~backends.vqpu.server.tokens` - per-job tokens (and the users billed) read from a file;
- :mod:`~backends.vqpu.server.watched_file` - a configuration file read again when it changes, failing closed;
- :mod:`~backends.vqpu.server.limits` - what one request may ask of the server;
- :mod:`~backends.vqpu.server.store` - SQLite accounting and recovery: reads and a batch's life cycle;
- :mod:`~backends.vqpu.server.writer` - the one writer thread of a database, and its lock;
- :mod:`~backends.vqpu.server.database` - the schema, older versions updated, foreign files refused;
- :mod:`~backends.vqpu.server.records` - a batch as stored, and as the scheduler sees it;
- :mod:`~backends.vqpu.server.sandbox` - untrusted QPY deserialised in a memory-capped worker process;
- :mod:`~backends.vqpu.server.report` - occupancy, per-user and per-job tables, CSV, figures.

Nothing is imported here, so ``python -m backends.vqpu --help`` starts fast.
"""
