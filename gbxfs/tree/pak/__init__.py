"""Paks in the tree: view.py (a .pak as a folder), keys.py (finding its key:
packlist.dat or a key file), entries.py (its files and folders), names.py
(typed names for hashed entries), pack.py (ManiaPlanet/TM2020 packs, versions
6-18), info.py (.pak-info.txt and the error folder)."""
