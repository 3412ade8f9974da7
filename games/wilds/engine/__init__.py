"""Leviathan Wilds: Shattered Peak, the warped-crystal rules (`--game wilds`)."""
