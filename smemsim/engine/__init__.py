"""The bank engine: how one warp's shared-memory request is served (banks, merges, wavefronts), by architecture."""
