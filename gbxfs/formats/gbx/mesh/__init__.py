"""Meshes out of GBX bodies: the decoded geometry of solids, crystals and prefabs
(extract) as plain arrays (model), written as Wavefront OBJ + MTL (obj) or glTF 2.0
binary (glb). Coordinates stay the game's: Y is up, metres, triangles as the index
buffers list them."""
