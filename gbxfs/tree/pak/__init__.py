"""Paks in the tree: view.py (a .pak as a folder), keys.py (finding its key),
entries.py (its files and folders), pack.py (ManiaPlanet packs), info.py
(.pak-info.txt and the error folder)."""
