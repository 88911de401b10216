#!/usr/bin/env python3
"""Check that real graph libraries read what `neardup graph` writes.

Runs neardup on the bundled Reuters sample and on a small corpus of awkward ids and texts,
then reads the GraphML with networkx and igraph, the DOT with pydot and the JSON with the
standard library, and checks node and edge counts, ids, attributes and weights against the
TSV edge list and the JSON groups. Also checks the GraphML against the content model of the
GraphML schema (element order, required and enumerated attributes).

Usage: scripts/check_graph_parsers.py path/to/neardup
Needs: networkx, igraph, pydot (scripts/check_graph_parsers.sh installs them in a venv).
"""
import json
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

import igraph
import networkx as nx
import pydot

GML = "{http://graphml.graphdrawing.org/xmlns}"
SAMPLE = "tests/data/reuters-sample.jsonl"


def run(binary, args, stdin=None):
    res = subprocess.run([binary, *args], input=stdin, capture_output=True, check=False)
    if res.returncode != 0:
        sys.exit(f"neardup {' '.join(args)} failed ({res.returncode}): {res.stderr.decode()}")
    return res.stdout


def awkward_corpus():
    """Five near copies with ids and texts that need escaping, and one unrelated document."""
    words = [f"w{(i * 7919) % 5000}" for i in range(80)]
    ids = ['a<&>"\'b', "tab\there", "plain", "uni\u00e9", "ctrl\u0001x"]
    lines = []
    for i, doc_id in enumerate(ids):
        w = list(words)
        w[79 - i] = f"edit{i}"
        if i == 2:
            w[0] = '<b>Bold & "quoted"</b>'
        year = "n/a" if i == 3 else 1990 + i
        lines.append(json.dumps({"id": doc_id, "text": " ".join(w), "year": year, "n": i}))
    lines.append(json.dumps({"id": "alone", "text": " ".join(f"z{i}" for i in range(80)), "n": 9}))
    return ("\n".join(lines) + "\n").encode()


def check_schema_model(data):
    """The GraphML schema's content model for what neardup uses."""
    root = ET.fromstring(data)
    assert root.tag == GML + "graphml", root.tag
    children = list(root)
    kinds = [c.tag for c in children]
    assert kinds == sorted(kinds, key=lambda t: 0 if t == GML + "key" else 1), "keys come first"
    key_ids = set()
    for key in root.findall(GML + "key"):
        assert key.get("id"), "key without id"
        assert key.get("for") in {"all", "graphml", "graph", "node", "edge", "hyperedge", "port", "endpoint"}
        assert key.get("attr.type") in {"boolean", "int", "long", "float", "double", "string"}
        assert key.get("id") not in key_ids, "duplicate key id"
        key_ids.add(key.get("id"))
    graphs = root.findall(GML + "graph")
    assert len(graphs) == 1
    graph = graphs[0]
    assert graph.get("edgedefault") in {"directed", "undirected"}
    node_ids = set()
    for el in graph:
        if el.tag == GML + "node":
            assert el.get("id") and el.get("id") not in node_ids
            node_ids.add(el.get("id"))
        elif el.tag == GML + "edge":
            assert el.get("source") in node_ids and el.get("target") in node_ids
        else:
            raise AssertionError(f"unexpected element {el.tag}")
        for d in el:
            assert d.tag == GML + "data" and d.get("key") in key_ids, d.attrib


def check(binary, label, input_path, stdin, args, attrs):
    base = ["graph", *args, *[a for name in attrs for a in ("--node-attr", name)]]
    src = [input_path] if input_path else []
    graphml = run(binary, base + ["--format", "graphml", *src], stdin)
    tsv = run(binary, base + ["--format", "tsv", *src], stdin).decode()
    doc = json.loads(run(binary, base + ["--format", "json", *src], stdin))
    dot = run(binary, base + ["--format", "dot", *src], stdin).decode()

    edges = [line.split("\t") for line in tsv.splitlines()]
    n_nodes, n_edges = len(doc["nodes"]), len(doc["edges"])
    assert n_edges == len(edges), (n_edges, len(edges))
    check_schema_model(graphml)

    with tempfile.NamedTemporaryFile(suffix=".graphml") as f:
        f.write(graphml)
        f.flush()
        g = nx.read_graphml(f.name)
        ig = igraph.Graph.Read_GraphML(f.name)
    assert g.number_of_nodes() == n_nodes and g.number_of_edges() == n_edges, label
    assert ig.vcount() == n_nodes and ig.ecount() == n_edges, label
    labels = [g.nodes[n]["label"] for n in g.nodes]
    expected = [str(n["id"]) if not isinstance(n["id"], str) else n["id"] for n in doc["nodes"]]
    expected = [e.replace("\u0001", "\ufffd") for e in expected]
    assert labels == expected, (labels[:5], expected[:5])
    assert ig.vs["label"] == expected
    for node, j in zip(g.nodes, doc["nodes"]):
        assert g.nodes[node]["component"] == j["component"]
        assert g.nodes[node]["size"] == j["size"]
        assert isinstance(g.nodes[node]["degree"], int)
        for name in attrs:
            if name in j["attrs"]:
                value = g.nodes[node][name]
                assert str(value) == str(j["attrs"][name]) or float(value) == float(j["attrs"][name])
    weights = sorted(round(d["weight"], 4) for _, _, d in g.edges(data=True))
    assert weights == sorted(float(e[2]) for e in edges), label
    assert sorted(round(w, 4) for w in ig.es["weight"]) == weights
    # Components seen by networkx equal neardup's groups (no --min-edge here).
    sizes = sorted(len(c) for c in nx.connected_components(g) if len(c) > 1)
    assert sizes == sorted(grp["size"] for grp in doc["groups"]), label

    parsed = pydot.graph_from_dot_data(dot)
    assert parsed and len(parsed) == 1
    p = parsed[0]
    dot_nodes = [n for n in p.get_nodes() if n.get_name() not in ("node", "graph", "edge")]
    for sub in p.get_subgraphs():
        dot_nodes += [n for n in sub.get_nodes() if n.get_name() not in ("node", "graph", "edge")]
    assert len(dot_nodes) == n_nodes, (len(dot_nodes), n_nodes)
    assert len(p.get_edges()) == n_edges
    assert len(p.get_subgraphs()) == len(doc["groups"])
    print(f"{label}: {n_nodes} nodes, {n_edges} edges, {len(doc['groups'])} groups: "
          f"networkx, igraph, pydot and json agree")


def main():
    binary = sys.argv[1]
    check(binary, "reuters sample", SAMPLE, None, ["--id-field", "id", "-t", "0.5"], ["date", "title"])
    check(binary, "awkward ids", None, awkward_corpus(), ["--id-field", "id", "-t", "0.5"], ["year", "n"])
    check(binary, "all nodes", SAMPLE, None, ["-t", "0.8", "--all-nodes"], ["date"])


if __name__ == "__main__":
    main()
