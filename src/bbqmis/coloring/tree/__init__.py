"""The BBQ-MIS branch-and-bound tree: its nodes, its workers, its loop and its checkpoints.

A tree node is a partial colouring: the colour classes chosen so far and the residual
graph ``H`` of uncoloured vertices. A node is expanded on a worker: a branching vertex
``v`` of ``H`` is chosen (largest degree), and every child gives ``v``'s colour class,
a maximal independent set of ``H`` containing ``v``. Such sets are exactly
``{v} | S`` for the maximal independent sets ``S`` of ``H - N[v]``, and every colouring
of ``H`` can be rearranged so that ``v``'s class is one of them; so branching over
*all* of them is exhaustive, and the search can prove optimality.

The sampler (QAOA, annealing, greedy, random, exact; see :mod:`bbqmis.coloring.samplers`)
decides which children come first, and supplies early incumbents through a DSATUR
completion of its best children. With ``exhaustive=True`` (the default) the children
the sampler did not find are enumerated afterwards, lazily: a *completion node* with
the parent's bound waits in the queue and is expanded only if the bounds cannot prune
it. With ``exhaustive=False`` only sampled sets (of ``H`` itself, not forced to contain
``v``) are branched on, as in the reference implementation, and optimality is claimed
only when the incumbent meets the root lower bound.

A node's bound is its colours plus the best lower bound of ``H``
(:func:`bbqmis.coloring.classical.bounds.adjacency_bounds`: clique, odd cycle, Hoffman, Edwards,
inertia; rounded up). The manager (this process) holds the queue, the incumbent and one
table of residual vertex sets seen by all workers, so no residual is explored twice.
Workers run on any :class:`concurrent.futures.Executor`.

Above :mod:`~bbqmis.coloring.lp` and :mod:`~bbqmis.coloring.classical`, below the
pipeline (:mod:`~bbqmis.coloring.pipeline`), which it never imports.

Modules:

- :mod:`~bbqmis.coloring.tree.tree`: the manager side, the queue, incumbent and seen residuals;
- :mod:`~bbqmis.coloring.tree.expand`: the worker side, one node expanded into its children;
- :mod:`~bbqmis.coloring.tree.search`: the loop that submits nodes to workers and obeys limits;
- :mod:`~bbqmis.coloring.tree.executors`: serial, process-pool and MPI executors;
- :mod:`~bbqmis.coloring.tree.snapshot`: the JSON form of a search and of a branch-and-price tree;
- :mod:`~bbqmis.coloring.tree.checkpoint`: atomic, checked checkpoint files, saved and resumed.
"""
