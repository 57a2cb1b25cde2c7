"""Classical bounds, heuristics and reductions of graph colouring, used before and inside the trees.

The lowest layer of :mod:`bbqmis.coloring` above its base (samplers, results, errors,
limits); it imports neither :mod:`~bbqmis.coloring.lp` nor :mod:`~bbqmis.coloring.tree`.

Modules:

- :mod:`~bbqmis.coloring.classical.bounds`: lower and upper bounds on the chromatic number
  (clique, odd cycle, spectral; DSATUR);
- :mod:`~bbqmis.coloring.classical.clique`: maximum clique by branch-and-bound;
- :mod:`~bbqmis.coloring.classical.mycielski`: Mycielskian lower bounds with their witnesses
  (at the root, and on the quotient graphs of exact DSATUR's nodes);
- :mod:`~bbqmis.coloring.classical.dsatur_exact`: exact DSATUR branch-and-bound, whose tree is
  :mod:`~bbqmis.coloring.classical.dsatur_search`;
- :mod:`~bbqmis.coloring.classical.sat` and :mod:`~bbqmis.coloring.classical.sat_worker`:
  exact colouring by SAT (CaDiCaL in a child process);
- :mod:`~bbqmis.coloring.classical.zykov`: Zykov reasoning at the clique bound for the SAT
  encoding (every colour on every k-clique, and the vertex pairs these cliques merge);
- :mod:`~bbqmis.coloring.classical.tabucol`: TabuCol local search;
- :mod:`~bbqmis.coloring.classical.reduce`: components, easy graph classes, peeling;
- :mod:`~bbqmis.coloring.classical.matrices`: adjacency matrices built in one pass.
"""
