"""The LP side of graph colouring: the set-cover LP over independent sets and branch-and-price.

Above :mod:`~bbqmis.coloring.classical`, below :mod:`~bbqmis.coloring.tree`, which it never
imports.

Modules:

- :mod:`~bbqmis.coloring.lp.master`: the restricted master LP over a pool of columns;
- :mod:`~bbqmis.coloring.lp.pricing`: the pricing oracle that generates columns: its protocol
  and results; the pricers in :mod:`~bbqmis.coloring.lp.heuristic_pricers` and
  :mod:`~bbqmis.coloring.lp.exact_pricer`, by name in :mod:`~bbqmis.coloring.lp.pricers`;
- :mod:`~bbqmis.coloring.lp.lp_bound`: column generation to a lower bound on the chromatic number;
- :mod:`~bbqmis.coloring.lp.node_lp`: LP bounds at the nodes of the BBQ-MIS tree;
- :mod:`~bbqmis.coloring.lp.branch_price`: branch-and-price over a Zykov tree.
"""
