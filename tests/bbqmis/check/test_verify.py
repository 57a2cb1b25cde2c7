"""The checker's own checks: graph identity, proper colouring, and the lower bound's witnesses."""

import pytest

from bbqmis.check import InvalidCertificate, UnreadableInput, check_certificate, parse_dimacs, read_dimacs


def check(path, certificate):
    return check_certificate(read_dimacs(path), certificate)


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("name", "kind", "line"),
    [
        ("myciel3", "mycielski", "ok: chromatic number 4 proved"),
        ("myciel4", "mycielski", "ok: chromatic number 5 proved"),
        ("myciel5", "mycielski", "ok: chromatic number 6 proved"),
        ("queen5_5", "clique", "ok: chromatic number 5 proved"),
        ("anna", "clique", "ok: chromatic number 11 proved"),
        ("1-FullIns_3", "mycielski", "ok: chromatic number 4 proved"),
        ("mug88_1", "refutation", "ok: chromatic number 4 proved"),
        ("2-Insertions_3", "refutation", "ok: chromatic number 4 proved"),
        ("DSJC125.1", "refutation", "ok: chromatic number 5 proved"),
        ("queen6_6", "refutation", "ok: chromatic number 7 proved"),
        ("queen8_8", "refutation", "ok: chromatic number 9 proved"),
    ],
)
def test_certificates_of_runs_on_bundled_graphs_verify(certificate_of, name, kind, line):
    path, certificate = certificate_of(name)
    assert certificate["optimal"] is True and certificate["lower_bound_certificate"]["kind"] == kind
    assert check(path, certificate) == line


@pytest.mark.timeout(60)
def test_a_colouring_that_is_not_proper_is_rejected(certificate_of):
    path, certificate = certificate_of("myciel4")
    graph = read_dimacs(path)
    a = "1"
    b = min(graph.neighbours[a], key=int)
    certificate["coloring"][b] = certificate["coloring"][a]
    with pytest.raises(InvalidCertificate, match=f"not proper: adjacent vertices {a} and {b} share colour"):
        check_certificate(graph, certificate)


@pytest.mark.timeout(60)
def test_colours_outside_0_to_k_and_missing_vertices_are_rejected(certificate_of):
    path, certificate = certificate_of("queen5_5")
    certificate["coloring"]["7"] = 5
    with pytest.raises(InvalidCertificate, match=r"vertex 7 has colour 5, not one of 0\.\.4"):
        check(path, certificate)
    del certificate["coloring"]["7"]
    with pytest.raises(InvalidCertificate, match=r"exactly the vertices 1\.\.25"):
        check(path, certificate)


@pytest.mark.timeout(60)
def test_a_non_clique_is_rejected(certificate_of):
    path, certificate = certificate_of("queen5_5")
    graph = read_dimacs(path)
    clique = certificate["lower_bound_certificate"]["clique"]
    outsider = next(v for v in graph.names if v not in clique and not graph.adjacent(v, clique[0]))
    clique[-1] = outsider
    with pytest.raises(InvalidCertificate, match=r"clique: vertices \d+ and \d+ are not adjacent"):
        check_certificate(graph, certificate)


@pytest.mark.timeout(60)
def test_a_corrupted_mycielskian_level_is_rejected(certificate_of):
    path, good = certificate_of("myciel4")
    graph = read_dimacs(path)
    levels = good["lower_bound_certificate"]["levels"]
    assert len(levels) == 3
    # w moved to a vertex that misses a shadow
    certificate = {**good, "lower_bound_certificate": {**good["lower_bound_certificate"]}}
    level = levels[1]
    shadows = [u for _, u in level["shadows"]]
    level_w = next(v for v in graph.names if any(not graph.adjacent(u, v) for u in shadows))
    certificate["lower_bound_certificate"]["levels"] = [levels[0], {**level, "w": level_w}, levels[2]]
    with pytest.raises(InvalidCertificate, match="Mycielskian level 2: shadow of"):
        check_certificate(graph, certificate)
    # a shadow swapped for a vertex not adjacent to the structure
    broken = [dict(level) for level in levels]
    v, u = broken[0]["shadows"][0]
    stranger = next(x for x in graph.names if not graph.adjacent(x, broken[0]["w"]))
    broken[0]["shadows"] = [[v, stranger], *broken[0]["shadows"][1:]]
    certificate["lower_bound_certificate"]["levels"] = broken
    with pytest.raises(InvalidCertificate, match="Mycielskian level 1: shadow of"):
        check_certificate(graph, certificate)


@pytest.mark.timeout(60)
def test_a_level_repeated_or_a_bound_inflated_is_rejected(certificate_of):
    path, certificate = certificate_of("myciel4")
    witness = certificate["lower_bound_certificate"]
    witness["levels"].append(witness["levels"][-1])
    witness["bound"] += 1
    with pytest.raises(InvalidCertificate, match="level 4: needs exactly one shadow per vertex"):
        check(path, certificate)
    path, certificate = certificate_of("myciel4")
    certificate["lower_bound_certificate"]["bound"] = 6
    with pytest.raises(InvalidCertificate, match="the witness claims bound 6 but proves 5"):
        check(path, certificate)
    path, certificate = certificate_of("myciel4")
    certificate["lower_bound_certificate"]["levels"].pop()
    certificate["lower_bound_certificate"]["bound"] = 4
    with pytest.raises(InvalidCertificate, match="the witness proves 4, the certificate claims 5"):
        check(path, certificate)


@pytest.mark.timeout(60)
def test_a_certificate_of_another_graph_is_rejected(certificate_of, tmp_path):
    path, certificate = certificate_of("myciel4")
    other, _ = certificate_of("myciel3")
    with pytest.raises(InvalidCertificate, match="for another graph: vertices 23, the graph has 11"):
        check(other, certificate)
    # the same vertex and edge counts, one edge moved: only the hash differs
    lines = path.read_text().splitlines()
    graph = read_dimacs(path)
    first = next(i for i, line in enumerate(lines) if line.startswith("e "))
    a, b = next((a, b) for a in graph.names for b in graph.names if a < b and not graph.adjacent(a, b))
    lines[first] = f"e {a} {b}"
    moved = tmp_path / "moved.col"
    moved.write_text("\n".join(lines) + "\n")
    with pytest.raises(InvalidCertificate, match="for another graph: edges_sha256"):
        check(moved, certificate)


@pytest.mark.timeout(30)
def test_an_uncertified_bound_is_reported_not_trusted():
    graph = parse_dimacs(["p edge 5 5", "e 1 2", "e 2 3", "e 3 4", "e 4 5", "e 5 1"])
    certificate = {
        "graph": {"vertices": 5, "edges": 5, "edges_sha256": graph.sha256},
        "coloring": {"1": 0, "2": 1, "3": 0, "4": 1, "5": 2},
        "num_colors": 3,
        "lower_bound": 3,
        "lower_bound_certificate": None,
        "weaker_certificate": {"kind": "clique", "bound": 2, "clique": ["4", "5"]},
    }
    line = "ok: colouring with 3 colours, lower bound 2 (the claimed lower bound 3 is not certified)"
    assert check_certificate(graph, certificate) == line
    level = {"w": "4", "shadows": [["1", "3"], ["2", "5"]]}
    five_cycle = {"kind": "mycielski", "bound": 3, "clique": ["1", "2"], "levels": [level]}
    certificate["lower_bound_certificate"] = five_cycle
    assert check_certificate(graph, certificate) == "ok: chromatic number 3 proved"


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (["p edge 2 1", "e 1 3"], "g.col line 2: vertex 3 is not in 1..2"),
        (["p edge 2 1", "e 1 x"], "g.col line 2: expected a vertex count or number, got 'x'"),
        (["p edge 2 1", "e 1 1"], "g.col line 2: a self-loop at vertex 1"),
        (["p edge 2 1", "p edge 2 1"], "g.col line 2: expected one header"),
        (["c nothing"], "g.col: no 'p edge N M' header"),
        (["p edge 2 1", "x 1 2"], "g.col line 2: expected a 'c', 'p' or 'e' line"),
    ],
)
def test_unreadable_dimacs_names_the_file_and_line(lines, message):
    with pytest.raises(UnreadableInput, match=message):
        parse_dimacs(lines, "g.col")
