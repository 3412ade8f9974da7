"""The fast path: the rules as @njit functions over one int32 workspace, mirroring `rules`."""
