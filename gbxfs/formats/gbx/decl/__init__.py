"""The declaration language and its engine: chunks/*.chunks -> compiled decoders.

    types.py     the builtin field types (one table)
    ast.py       the syntax tree and DeclarationError
    lines.py     lines and field lines;  parser.py  statements, chunk lines, files
    link.py      checks names, counts, `read chunk` targets
    compile.py   statements -> closures run(reader, frame): the reference decoders
    frame.py     the runtime scope and the special names
    registry.py  loading: Registry, registry() (the shipped declarations)
    stored.py    the parsed and linked declarations kept in the user's cache folder
    codegen.py   generated decoders: a declaration as one Python function, on first use
    genfields.py   its field reads;  genexpr.py  its expressions;
    genruntime.py  the names the generated code calls
    scopes.py    which names a scope may hold (lets generated code use the frame's dict)
    itemcost.py  what a loop item certainly costs, charged before the loop is built

The engine reads through the reader's public methods only; node references call
back into `reader.walker` (nodes.NodeWalker), so nothing here imports the walker.
"""
from __future__ import annotations

from .ast import DeclarationError
from .parser import FLAGS, parse_file
from .registry import ChunkDecl, Registry, declaration_texts, registry

__all__ = ["ChunkDecl", "DeclarationError", "FLAGS", "Registry", "declaration_texts", "parse_file", "registry"]
