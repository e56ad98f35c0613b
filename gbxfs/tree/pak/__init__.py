"""Paks in the tree: view.py (a .pak as a folder), keys.py (finding its key:
packlist.dat or a key file), entries.py (its files and folders), names.py
(typed names for hashed entries), pack.py (ManiaPlanet/TM2020 packs, versions
6-18), info.py (.pak-info.txt and the error folder). An open pak and its
entries, over the pure formats/pak: archive.py, archive6.py (the archives,
their cache and entries), entry.py, entry6.py (an entry's state, cache and
lock), group.py (what one pak's entries share), pieces.py (large entries by
pieces, decryption ahead), tablecache.py (the file table kept in the cache)."""
