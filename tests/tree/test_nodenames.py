"""Node folder names: 3 digits at least in every file, unique, no node showing another's number."""
from __future__ import annotations

from gbxfs.tree.gbx.nodenames import node_folder_name, node_labels, unique_name


def test_direct_nodes_never_take_a_slot_number():
    slots = [0, None, 2, 1, None, 5]
    labels = node_labels(slots)
    assert labels[:1] + labels[2:4] + labels[5:] == [0, 2, 1, 5]     # slots kept
    assert labels[1] == 6 and labels[4] == 7                          # after the largest slot
    assert len(set(labels)) == len(labels)


def test_same_slot_twice_stays_unique():
    taken: set[str] = set()
    names = []
    for n in ["005.CFoo", "005.CFoo", "005.CFoo", "005.CFoo~2"]:
        name = unique_name(n, taken)
        taken.add(name)
        names.append(name)
    assert len(set(names)) == 4 and names[:3] == ["005.CFoo", "005.CFoo~2", "005.CFoo~3"]


def test_names_do_not_depend_on_the_file():
    assert node_folder_name(0, "CGameCtnChallenge") == "000.CGameCtnChallenge"
    assert node_folder_name(42, "CFoo") == "042.CFoo" and node_folder_name(1234, "CFoo") == "1234.CFoo"


def test_width_is_three_digits_in_every_file(corpus):
    from gbxfs.tree.root import build_tree
    from gbxfs.tree.walk import resolve
    tracks = corpus / "adrien-obrecht+GbxParser/Benchmark/Tracks"
    for m in sorted(tracks.iterdir()):
        nodes = resolve(build_tree(str(m)), "body/nodes").children()
        numbers = [n.split(".", 1)[0] for n in nodes]
        assert all(len(x.split("~")[0]) == max(3, len(str(int(x.split("~")[0])))) for x in numbers), m.name
        assert next(iter(nodes)).startswith("000."), m.name
