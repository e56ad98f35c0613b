"""GBX files in the tree: view.py (a *.gbx as a folder of its parts), parse.py
(one cached parse per file), errors.py (error.txt), and the generated parts:
info.py, chunkfiles.py, ghostfiles.py, embedded.py."""
