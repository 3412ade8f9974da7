"""Abyss: Conspiracy (the Abyss Universe card game): card data and its loader."""
