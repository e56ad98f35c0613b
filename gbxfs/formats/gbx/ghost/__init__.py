"""Ghosts: the samples of a recorded race as a GhostTrack (what ghost.csv shows).

    samples.py    CGameGhost sample chunks (decoded by chunks/ghost.chunks) -> GhostTrack
    entrecord.py  TM2020 / ManiaPlanet 4 record data (CPlugEntRecordData) -> GhostTrack
    vehicle.py    one vehicle sample record, by state version;  codec.py  packed numbers
    model.py      GhostTrack, GhostSample;  csvfile.py  GhostTrack -> ghost.csv
"""
