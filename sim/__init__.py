"""abyss-mc: Monte Carlo simulation of board games (the Abyss family)."""
